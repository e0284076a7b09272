package metric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/kernel"
)

func randMat(rng *rand.Rand, n, d int, scale, shift float64) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			m.Set(i, j, shift+scale*rng.NormFloat64())
		}
	}
	return m
}

func directMMD2(k kernel.Radial, X *mat.Dense, w []float64, Y *mat.Dense) float64 {
	n, _ := X.Dims()
	S, _ := Y.Dims()
	var xx, xy, yy float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			xx += w[i] * w[j] * k.Eval(X.RawRowView(i), X.RawRowView(j))
		}
		for s := 0; s < S; s++ {
			xy += w[i] * k.Eval(X.RawRowView(i), Y.RawRowView(s))
		}
	}
	for s := 0; s < S; s++ {
		for u := 0; u < S; u++ {
			yy += k.Eval(Y.RawRowView(s), Y.RawRowView(u))
		}
	}
	fs := float64(S)
	return xx - 2*xy/fs + yy/(fs*fs)
}

// TestMMD2AgainstDirectSums runs with tiny blocks so that every block
// boundary of the reference and cross terms is crossed.
func TestMMD2AgainstDirectSums(t *testing.T) {
	defer func(b int) { blockEntries = b }(blockEntries)
	rng := rand.New(rand.NewPCG(1, 2))
	n, S, d := 7, 23, 3
	X := randMat(rng, n, d, 1, 0.5)
	Y := randMat(rng, S, d, 1, 0)
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.Float64()
	}
	for _, be := range []int{1 << 20, 50, 23, 1} {
		blockEntries = be
		for _, k := range []kernel.Radial{kernel.RBF{H: 1.3}, kernel.IMQ{}} {
			m := NewMMD(k, Y)
			got, want := m.MMD2(X, w), directMMD2(k, X, w, Y)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("blocks %d, %T: MMD² = %v, direct %v", be, k, got, want)
			}
			eq := make([]float64, n)
			for i := range eq {
				eq[i] = 1 / float64(n)
			}
			if got, want := m.MMD2(X, nil), directMMD2(k, X, eq, Y); math.Abs(got-want) > 1e-12 {
				t.Errorf("blocks %d, %T: nil weights MMD² = %v, direct %v", be, k, got, want)
			}
		}
	}
}

// TestMMD2AgainstExactGaussian compares the sample-based MMD² with the
// closed form of package target. Against S exact draws its expectation is
// the exact MMD² plus the V-statistic bias (1 − ∫∫kpp)/S; the mean over
// independent reference sets must match within 4 standard errors, and the
// standard error must be small against the value itself.
func TestMMD2AgainstExactGaussian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d, n, S, reps := 3, 15, 2000, 8
	g := testutil.Gaussian(t, rng, d)
	h := 1.4
	emb := g.RBFEmbedding(h)
	X := randMat(rng, n, d, 0.8, 0)
	for i := 0; i < n; i++ {
		for j, v := range g.Mean() {
			X.Set(i, j, X.At(i, j)+v+0.3)
		}
	}
	w := make([]float64, n)
	var sw float64
	for i := range w {
		w[i] = rng.Float64()
		sw += w[i]
	}
	for i := range w {
		w[i] /= sw
	}
	exact := emb.MMD2(X, w)
	bias := (1 - emb.NormSq()) / float64(S)
	Y := mat.NewDense(S, d, nil)
	v := make([]float64, reps)
	for r := range v {
		g.SampleRows(rng, Y)
		v[r] = NewMMD(kernel.RBF{H: h}, Y).MMD2(X, w)
	}
	mean, se := testutil.MeanSE(v)
	if math.Abs(mean-exact-bias) > 4*se {
		t.Errorf("MMD² = %v ± %v over reference sets, exact %v + bias %v", mean, se, exact, bias)
	}
	if se > 0.02*exact {
		t.Errorf("test too weak: standard error %v of %v", se, exact)
	}
	t.Logf("MMD² %.5g ± %.2g, exact %.5g, V-bias %.2g", mean, se, exact, bias)
}

func TestKSD2AgainstDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 8, 3
	X, S := randMat(rng, n, d, 1, 0), randMat(rng, n, d, 1, 0)
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.Float64()
	}
	for _, k := range []kernel.Radial{nil, kernel.IMQ{}, kernel.RBF{H: 0.9}} {
		kk := k
		if kk == nil {
			kk = kernel.IMQ{}
		}
		var want float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want += w[i] * w[j] * kernel.Stein(kk, X.RawRowView(i), X.RawRowView(j), S.RawRowView(i), S.RawRowView(j))
			}
		}
		if got := KSD2(k, X, S, w); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("%T: KSD² = %v, direct %v", k, got, want)
		}
	}
}

// TestKSD2OfExactDraws: for n exact draws with equal weights the off-diagonal
// Stein terms have mean zero, so E[KSD²] = E[k₀(x, x)]/n, and for the IMQ
// kernel (c = 1, β = −1/2) k₀(x, x) = d + ‖s(x)‖² with E‖s‖² = tr Σ⁻¹.
func TestKSD2OfExactDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d, n, reps := 3, 200, 60
	g := testutil.Gaussian(t, rng, d)
	var prec mat.Dense
	if err := prec.Inverse(g.Cov()); err != nil {
		t.Fatal(err)
	}
	want := (float64(d) + mat.Trace(&prec)) / float64(n)
	X, S := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	v := make([]float64, reps)
	for r := range v {
		g.SampleRows(rng, X)
		for i := 0; i < n; i++ {
			g.LogProbGrad(X.RawRowView(i), S.RawRowView(i))
		}
		v[r] = KSD2(nil, X, S, nil)
	}
	mean, se := testutil.MeanSE(v)
	if math.Abs(mean-want) > 4*se {
		t.Errorf("E[KSD²] = %v ± %v, want (d + tr Σ⁻¹)/n = %v", mean, se, want)
	}
	if se > 0.1*want {
		t.Errorf("test too weak: standard error %v of %v", se, want)
	}
}

func ExampleMMD() {
	rng := rand.New(rand.NewPCG(1, 2))
	// Reference: 2000 draws of N(0, I₂); particles: 400 draws of
	// N((1, 1), I₂). The population value is 2/3 − (2/3)e^(−1/3) ≈ 0.189;
	// the particles' V-statistic adds about (1 − 1/3)/400.
	Y := randMat(rng, 2000, 2, 1, 0)
	X := randMat(rng, 400, 2, 1, 1)
	ref := NewMMD(kernel.RBF{H: 1}, Y)
	fmt.Printf("MMD² = %.1f\n", ref.MMD2(X, nil))
	// Output: MMD² = 0.2
}
