package laplace

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestFitGaussian checks the Laplace fit against the truth: on a
// Gaussian target the negative Hessian is Σ⁻¹ everywhere, so the fitted
// covariance must be Σ (central differences of a linear gradient are exact
// up to round-off) from any point, and it costs 2d gradients.
func TestFitGaussian(t *testing.T) {
	for _, d := range []int{2, 10} {
		rng := rand.New(rand.NewPCG(3, uint64(d)))
		g := newGaussian(d, rng)
		x := make([]float64, d)
		for i := range x {
			x[i] = 3 * rng.NormFloat64()
		}
		c := &counting{Target: g}
		l, err := Fit(context.Background(), c, x, FitSettings{})
		if err != nil {
			t.Fatal(err)
		}
		if c.n != int64(2*d) {
			t.Errorf("d=%d: %d gradient evaluations, want %d", d, c.n, 2*d)
		}
		if l.Flipped != 0 || l.Floored != 0 {
			t.Errorf("d=%d: %d flipped, %d floored eigenvalues of a positive definite precision", d, l.Flipped, l.Floored)
		}
		sig := g.Cov()
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if diff := math.Abs(l.Cov.At(i, j) - sig.At(i, j)); diff > 1e-6*math.Sqrt(sig.At(i, i)*sig.At(j, j)) {
					t.Errorf("d=%d: Cov[%d,%d] = %v, want %v", d, i, j, l.Cov.At(i, j), sig.At(i, j))
				}
			}
			if diff := math.Abs(l.SD[i] - math.Sqrt(sig.At(i, i))); diff > 1e-6 {
				t.Errorf("d=%d: SD[%d] = %v, want %v", d, i, l.SD[i], math.Sqrt(sig.At(i, i)))
			}
		}
	}
}

// saddle is log p = −½ Σᵢ aᵢxᵢ²: with some aᵢ < 0 a saddle, with aᵢ = 0
// flat along xᵢ; its negative Hessian is diag(a).
type saddle struct{ a []float64 }

func (s saddle) Dim() int { return len(s.a) }
func (s saddle) LogProbGrad(x, grad []float64) float64 {
	var v float64
	for i, a := range s.a {
		v -= 0.5 * a * x[i] * x[i]
		grad[i] = -a * x[i]
	}
	return v
}

// TestFitSaddle checks that a negative or vanishing curvature gives
// a usable covariance: the absolute value of a negative eigenvalue, the
// floor for a flat one.
func TestFitSaddle(t *testing.T) {
	s := saddle{a: []float64{4, -1, 0}}
	l, err := Fit(context.Background(), s, []float64{0.5, 0.5, 0.5}, FitSettings{Floor: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, 1, 1 / math.Sqrt(4e-4)}
	for i, w := range want {
		if math.Abs(l.SD[i]-w) > 1e-6*w {
			t.Errorf("SD[%d] = %v, want %v", i, l.SD[i], w)
		}
	}
	if l.Flipped != 1 || l.Floored != 1 {
		t.Errorf("flipped %d, floored %d; want 1, 1", l.Flipped, l.Floored)
	}
}

// TestLaplaceSample checks that Sample draws N(X, Cov): the sample mean
// and covariance within 4 Monte Carlo standard errors.
func TestLaplaceSample(t *testing.T) {
	const d, n = 3, 20000
	rng := rand.New(rand.NewPCG(5, 6))
	g := newGaussian(d, rng)
	l, err := Fit(context.Background(), g, g.Mean(), FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	X := l.Sample(n, rng)
	var cov mat.SymDense
	var mean [d]float64
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			mean[j] += X.At(i, j) / n
		}
	}
	covOf(&cov, X)
	sig := g.Cov()
	for i := 0; i < d; i++ {
		if se := math.Sqrt(sig.At(i, i) / n); math.Abs(mean[i]-l.X[i]) > 4*se {
			t.Errorf("mean[%d] = %v, want %v ± %v", i, mean[i], l.X[i], 4*se)
		}
		for j := 0; j < d; j++ {
			// Var of a sample covariance: (σᵢⱼ² + σᵢᵢσⱼⱼ)/n.
			se := math.Sqrt((sig.At(i, j)*sig.At(i, j) + sig.At(i, i)*sig.At(j, j)) / n)
			if math.Abs(cov.At(i, j)-sig.At(i, j)) > 4*se {
				t.Errorf("cov[%d,%d] = %v, want %v ± %v", i, j, cov.At(i, j), sig.At(i, j), 4*se)
			}
		}
	}
}

func covOf(dst *mat.SymDense, X *mat.Dense) {
	n, d := X.Dims()
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			mean[j] += X.At(i, j) / float64(n)
		}
	}
	dst.ReuseAsSym(d)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			var s float64
			for i := 0; i < n; i++ {
				s += (X.At(i, a) - mean[a]) * (X.At(i, b) - mean[b])
			}
			dst.SetSym(a, b, s/float64(n-1))
		}
	}
}

var _ target.Target = saddle{}

// TestFitExactHessian checks the exact-Hessian path on model.Logistic
// against finite differences at the MAP of a synthetic posterior: every
// covariance entry agrees to 1e-4 of √(ΣᵢᵢΣⱼⱼ) (central differences of
// step 1e-4 have an O(δ²) error, far below that, plus round-off of
// order 1e-16·‖∇‖/δ), and the exact fit is charged ⌈N·d/2⌉
// per-datapoint gradient evaluations against the 2d·N of the differences.
func TestFitExactHessian(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	lr := syntheticLR(300, 4, rng)
	m, err := FindMAP(context.Background(), lr, make([]float64, lr.Dim()), MAPSettings{})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Fit(context.Background(), lr, m.X, FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := Fit(context.Background(), lr, m.X, FitSettings{FiniteDiff: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Exact || fd.Exact {
		t.Fatalf("Exact = %v (exact path), %v (finite differences)", ex.Exact, fd.Exact)
	}
	d, n := lr.Dim(), lr.NData()
	if want := int64((n*d + 1) / 2); ex.GradEvals != want || ex.GradEvals != HessianGradEvals(n, d) {
		t.Errorf("exact fit charged %d gradient evaluations, want %d", ex.GradEvals, want)
	}
	if want := int64(2 * d * n); fd.GradEvals != want {
		t.Errorf("finite-difference fit charged %d gradient evaluations, want %d", fd.GradEvals, want)
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			tol := 1e-4 * math.Sqrt(fd.Cov.At(i, i)*fd.Cov.At(j, j))
			if diff := math.Abs(ex.Cov.At(i, j) - fd.Cov.At(i, j)); diff > tol {
				t.Errorf("Cov[%d,%d]: exact %v, finite differences %v", i, j, ex.Cov.At(i, j), fd.Cov.At(i, j))
			}
		}
	}
	if ex.Flipped != 0 || ex.Floored != 0 {
		t.Errorf("at the MAP: %d flipped, %d floored eigenvalues", ex.Flipped, ex.Floored)
	}
}

// A fit that fails says so once, with the package's prefix: a flat target
// has a zero Hessian, and a gradient that is NaN gives a NaN entry.
func TestFitErrorMessages(t *testing.T) {
	flat := target.Func{D: 2, F: func(x, g []float64) float64 { return 0 }}
	nan := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0] = math.NaN()
		return 0
	}}
	for _, c := range []struct {
		t    target.Target
		want string
	}{
		{flat, "laplace: the Hessian is zero"},
		{nan, "laplace: Hessian entry (0, 0) is NaN"},
	} {
		_, err := Fit(context.Background(), c.t, []float64{0.5, -1}, FitSettings{})
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
