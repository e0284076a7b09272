package rff_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/rff"
)

// BenchmarkSteinFieldDirection is one MMD-FW LMO step with the random
// feature kernel: O(D·d) whatever the number of particles.
func BenchmarkSteinFieldDirection(b *testing.B) {
	for _, d := range []int{56, 953} {
		for _, D := range []int{100, 1000} {
			b.Run(fmt.Sprintf("D=%d/d=%d", D, d), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				f := rff.New(rng, d, D, 3)
				n := 100
				X, S := testutil.RandDense(rng, n, d), testutil.RandDense(rng, n, d)
				w := make([]float64, n)
				for i := range w {
					w[i] = 1 / float64(n)
				}
				field := rff.NewSteinField(f)
				field.Reset(X, S, w)
				x := testutil.RandVec(rng, d, 1)
				dst := make([]float64, d)
				b.ReportAllocs()
				for b.Loop() {
					field.Direction(dst, x)
				}
				// Three products of D·d multiply-adds: Ωx, M·φ and Ωᵀ(…).
				b.ReportMetric(6*float64(D*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkSteinFieldReset summarises n = 100 particles.
func BenchmarkSteinFieldReset(b *testing.B) {
	d, D, n := 56, 1000, 100
	rng := rand.New(rand.NewPCG(3, 4))
	f := rff.New(rng, d, D, 3)
	X, S := testutil.RandDense(rng, n, d), testutil.RandDense(rng, n, d)
	w := make([]float64, n)
	field := rff.NewSteinField(f)
	b.ReportAllocs()
	for b.Loop() {
		field.Reset(X, S, w)
	}
	// Two products of n·D·d multiply-adds: X Ωᵀ and Sᵀ Z.
	b.ReportMetric(4*float64(n*D*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
