package logpdf

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var benchSink float64

func BenchmarkNormal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, dm, ds := Normal(0.3, 0.1, 1.2)
		benchSink += lp + dx + dm + ds
	}
}

func BenchmarkStudentT(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, dn, dm, ds := StudentT(0.3, 4, 0.1, 1.2)
		benchSink += lp + dx + dn + dm + ds
	}
}

func BenchmarkCauchy(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, dm, ds := Cauchy(0.3, 0.1, 1.2)
		benchSink += lp + dx + dm + ds
	}
}

func BenchmarkGamma(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, da, db := Gamma(0.3, 2.5, 1.2)
		benchSink += lp + dx + da + db
	}
}

func BenchmarkInverseGamma(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, da, db := InverseGamma(0.3, 2.5, 1.2)
		benchSink += lp + dx + da + db
	}
}

func BenchmarkExponential(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, dl := Exponential(0.3, 1.2)
		benchSink += lp + dx + dl
	}
}

func BenchmarkBeta(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, da, db := Beta(0.3, 2.5, 1.2)
		benchSink += lp + dx + da + db
	}
}

func BenchmarkLogNormal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lp, dx, dm, ds := LogNormal(0.3, 0.1, 1.2)
		benchSink += lp + dx + dm + ds
	}
}

func BenchmarkMultiNormalCholesky(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 10
	L := randomChol(r, n)
	mu, x := randomVec(r, n, 1), randomVec(r, n, 1)
	dx, dmu, work := make([]float64, n), make([]float64, n), make([]float64, 2*n)
	dL := mat.NewTriDense(n, mat.Lower, nil)
	b.ReportAllocs()
	for b.Loop() {
		benchSink += MultiNormalCholesky(dx, dmu, dL, x, mu, L, work)
	}
}

func BenchmarkSqExpGP(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 20
	gp := NewSqExpGP(randomPoints(r, n, 1))
	y := randomVec(r, n, 1)
	b.ReportAllocs()
	for b.Loop() {
		lp, da, dr, ds := gp.LogMarginal(y, 1.1, 0.8, 0.3)
		benchSink += lp + da + dr + ds
	}
}
