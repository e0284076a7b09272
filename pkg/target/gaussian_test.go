package target_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/target"
)

var (
	_ target.Target       = (*target.Gaussian)(nil)
	_ target.PriorSampler = (*target.Gaussian)(nil)
)

func TestGaussianRejectsIndefinite(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if _, err := target.NewGaussian([]float64{0, 0}, cov); err == nil {
		t.Fatal("indefinite covariance accepted")
	}
}

func TestGaussianLogProbGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := 4
	g := testutil.Gaussian(t, rng, d)
	// Reference log density through an LU inverse and determinant.
	var covInv mat.Dense
	if err := covInv.Inverse(g.Cov()); err != nil {
		t.Fatal(err)
	}
	logDet2pi := math.Log(mat.Det(g.Cov())) + float64(d)*math.Log(2*math.Pi)
	m := g.Mean()
	ref := func(x []float64) float64 {
		v := make([]float64, d)
		for i := range v {
			v[i] = x[i] - m[i]
		}
		vv := mat.NewVecDense(d, v)
		return -0.5*mat.Inner(vv, &covInv, vv) - 0.5*logDet2pi
	}
	grad := make([]float64, d)
	buf := make([]float64, d)
	for trial := 0; trial < 3; trial++ {
		x := testutil.RandVec(rng, d, 2)
		lp := g.LogProbGrad(x, grad)
		if want := ref(x); math.Abs(lp-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("log p = %v, distmv %v", lp, want)
		}
		testutil.CheckGrad(t, "score", func(v []float64) float64 { return g.LogProbGrad(v, buf) }, x, grad)
	}
}

// TestGaussianSampleMoments checks the sample mean and covariance of exact
// draws against m and Σ within 4 standard errors per entry.
func TestGaussianSampleMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := 3
	g := testutil.Gaussian(t, rng, d)
	const S = 20000
	X := mat.NewDense(S, d, nil)
	g.SampleRows(rng, X)
	m, cov := g.Mean(), g.Cov()
	for i := 0; i < d; i++ {
		col := mat.Col(nil, i, X)
		mu, se := testutil.MeanSE(col)
		if math.Abs(mu-m[i]) > 4*se {
			t.Errorf("mean[%d] = %v ± %v, want %v", i, mu, se, m[i])
		}
		for j := 0; j <= i; j++ {
			prod := make([]float64, S)
			for s := range prod {
				prod[s] = (X.At(s, i) - m[i]) * (X.At(s, j) - m[j])
			}
			c, se := testutil.MeanSE(prod)
			if math.Abs(c-cov.At(i, j)) > 4*se {
				t.Errorf("cov[%d,%d] = %v ± %v, want %v", i, j, c, se, cov.At(i, j))
			}
		}
	}
}

// TestRBFEmbeddingMonteCarlo checks μ_p(x) = E[k(x, y)] and ∫∫kpp =
// E[k(y, y′)] against exact draws, within 4 standard errors.
func TestRBFEmbeddingMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := 3
	g := testutil.Gaussian(t, rng, d)
	const S = 40000
	Y := mat.NewDense(2*S, d, nil)
	g.SampleRows(rng, Y)
	for _, h := range []float64{0.7, 1.5, 4} {
		e := g.RBFEmbedding(h)
		k := func(x, y []float64) float64 {
			var r2 float64
			for i := range x {
				r2 += (x[i] - y[i]) * (x[i] - y[i])
			}
			return math.Exp(-r2 / (2 * h * h))
		}
		for trial := 0; trial < 3; trial++ {
			x := g.Mean()
			for i := range x {
				x[i] += rng.NormFloat64()
			}
			v := make([]float64, S)
			for s := range v {
				v[s] = k(x, Y.RawRowView(s))
			}
			mu, se := testutil.MeanSE(v)
			if got := e.Value(x); math.Abs(got-mu) > 4*se {
				t.Errorf("h=%v: μ_p(x) = %v, Monte Carlo %v ± %v", h, got, mu, se)
			}
		}
		v := make([]float64, S)
		for s := range v {
			v[s] = k(Y.RawRowView(s), Y.RawRowView(S+s))
		}
		mu, se := testutil.MeanSE(v)
		if got := e.NormSq(); math.Abs(got-mu) > 4*se {
			t.Errorf("h=%v: ∫∫kpp = %v, Monte Carlo %v ± %v", h, got, mu, se)
		}
		if se > 0.02*mu {
			t.Errorf("h=%v: test too weak, standard error %v of %v", h, se, mu)
		}
	}
}

func TestRBFEmbeddingGradFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{1, 3, 6} {
		g := testutil.Gaussian(t, rng, d)
		e := g.RBFEmbedding(0.5 + rng.Float64())
		x := g.Mean()
		for i := range x {
			x[i] += rng.NormFloat64()
		}
		grad := make([]float64, d)
		if v := e.Grad(grad, x); v != e.Value(x) {
			t.Fatalf("Grad value %v != Value %v", v, e.Value(x))
		}
		testutil.CheckGrad(t, fmt.Sprintf("d=%d: ∇μ_p", d), e.Value, x, grad)
		if a := race.AllocsPerRun(t, 10, func() { e.Grad(grad, x) }); a != 0 {
			t.Errorf("Grad allocates %v times", a)
		}
	}
}

// TestRFFEmbeddingMonteCarlo checks E[φ(x)]ⱼ = √(2/D) exp(−½ωⱼᵀΣωⱼ)
// cos(ωⱼᵀm + bⱼ) for every feature within 4 standard errors.
func TestRFFEmbeddingMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	d, D, h := 3, 12, 1.2
	g := testutil.Gaussian(t, rng, d)
	omega := mat.NewDense(D, d, testutil.RandVec(rng, D*d, 1/h))
	b := make([]float64, D)
	for j := range b {
		b[j] = 2 * math.Pi * rng.Float64()
	}
	e := g.RFFEmbedding(omega, b)
	const S = 40000
	Y := mat.NewDense(S, d, nil)
	g.SampleRows(rng, Y)
	c := math.Sqrt(2 / float64(D))
	for j := 0; j < D; j++ {
		v := make([]float64, S)
		for s := range v {
			v[s] = c * math.Cos(mat.Dot(omega.RowView(j), Y.RowView(s))+b[j])
		}
		mu, se := testutil.MeanSE(v)
		if got := e.Mean()[j]; math.Abs(got-mu) > 4*se {
			t.Errorf("E[φ_%d] = %v, Monte Carlo %v ± %v", j, got, mu, se)
		}
	}
}

// directMMD2 is Σwᵢwⱼk(xᵢ,xⱼ) − 2Σwᵢμ_p(xᵢ) + ∫∫kpp by plain double sums.
func directMMD2(e *target.RBFEmbedding, X *mat.Dense, w []float64) float64 {
	n, _ := X.Dims()
	h := e.H()
	var s float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var r2 float64
			for c, v := range X.RawRowView(i) {
				r2 += (v - X.At(j, c)) * (v - X.At(j, c))
			}
			s += w[i] * w[j] * math.Exp(-r2/(2*h*h))
		}
		s -= 2 * w[i] * e.Value(X.RawRowView(i))
	}
	return s + e.NormSq()
}

func TestMMD2AgainstDirectSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	d, n := 4, 13
	g := testutil.Gaussian(t, rng, d)
	e := g.RBFEmbedding(1.4)
	X := mat.NewDense(n, d, testutil.RandVec(rng, n*d, 1.5))
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.Float64()
	}
	if got, want := e.MMD2(X, w), directMMD2(e, X, w); math.Abs(got-want) > 1e-12 {
		t.Errorf("MMD² = %v, direct %v", got, want)
	}
	eq := make([]float64, n)
	for i := range eq {
		eq[i] = 1 / float64(n)
	}
	if got, want := e.MMD2(X, nil), directMMD2(e, X, eq); math.Abs(got-want) > 1e-12 {
		t.Errorf("MMD² with nil weights = %v, direct with 1/n %v", got, want)
	}

	// RFF: ‖Σwᵢφ(xᵢ) − E[φ]‖² by hand.
	D := 25
	omega := mat.NewDense(D, d, testutil.RandVec(rng, D*d, 1/1.4))
	b := make([]float64, D)
	for j := range b {
		b[j] = 2 * math.Pi * rng.Float64()
	}
	re := g.RFFEmbedding(omega, b)
	diff := append([]float64(nil), re.Mean()...)
	for i := 0; i < n; i++ {
		for j := 0; j < D; j++ {
			diff[j] -= w[i] * math.Sqrt(2/float64(D)) * math.Cos(mat.Dot(omega.RowView(j), X.RowView(i))+b[j])
		}
	}
	want := mat.Dot(mat.NewVecDense(D, diff), mat.NewVecDense(D, diff))
	if got := re.MMD2(X, w); math.Abs(got-want) > 1e-12 {
		t.Errorf("RFF MMD² = %v, direct %v", got, want)
	}
}

// TestMMD2OfExactSamples checks that the MMD² (V-statistic, equal weights)
// of S exact draws has expectation (E k(x,x) − ∫∫kpp)/S = (1 − ∫∫kpp)/S:
// the mean over replicates at S = 100, 400, 1600 matches it within 4
// standard errors, and successive ratios (×4 in S) are 4 within 4
// propagated standard errors.
func TestMMD2OfExactSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	d := 3
	g := testutil.Gaussian(t, rng, d)
	e := g.RBFEmbedding(1.5)
	var means, ses []float64
	for _, c := range []struct{ S, reps int }{{100, 200}, {400, 60}, {1600, 40}} {
		X := mat.NewDense(c.S, d, nil)
		v := make([]float64, c.reps)
		for r := range v {
			g.SampleRows(rng, X)
			v[r] = e.MMD2(X, nil)
		}
		mean, se := testutil.MeanSE(v)
		want := (1 - e.NormSq()) / float64(c.S)
		if math.Abs(mean-want) > 4*se {
			t.Errorf("S=%d: E[MMD²] = %v ± %v, want (1 − ∫∫kpp)/S = %v", c.S, mean, se, want)
		}
		if se > 0.25*mean {
			t.Errorf("S=%d: test too weak, standard error %v of %v", c.S, se, mean)
		}
		t.Logf("S=%4d: E[MMD²] = %.4g ± %.2g, theory %.4g", c.S, mean, se, want)
		means = append(means, mean)
		ses = append(ses, se)
	}
	for i := 0; i+1 < len(means); i++ {
		ratio := means[i] / means[i+1]
		se := ratio * math.Hypot(ses[i]/means[i], ses[i+1]/means[i+1])
		if math.Abs(ratio-4) > 4*se {
			t.Errorf("MMD² ratio for 4× the samples = %v ± %v, want 4", ratio, se)
		}
		t.Logf("ratio %.3f ± %.2f", ratio, se)
	}
}

func ExampleRBFEmbedding() {
	// N(0, 1) in one dimension with h = 1: μ_p(0) = 2^(−1/2), ∫∫kpp = 3^(−1/2).
	g, _ := target.NewGaussian([]float64{0}, mat.NewSymDense(1, []float64{1}))
	e := g.RBFEmbedding(1)
	fmt.Printf("μ_p(0) = %.4f, ∫∫kpp = %.4f\n", e.Value([]float64{0}), e.NormSq())
	// A single particle at the mean:
	fmt.Printf("MMD² = %.4f\n", e.MMD2(mat.NewDense(1, 1, []float64{0}), nil))
	// Output:
	// μ_p(0) = 0.7071, ∫∫kpp = 0.5774
	// MMD² = 0.1631
}
