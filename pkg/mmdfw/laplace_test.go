package mmdfw

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestFitLaplaceGaussian checks the Laplace fit against the truth: on a
// Gaussian target the negative Hessian is Σ⁻¹ everywhere, so the fitted
// covariance must be Σ (central differences of a linear gradient are exact
// up to round-off) from any point, and it costs 2d gradients.
func TestFitLaplaceGaussian(t *testing.T) {
	for _, d := range []int{2, 10} {
		rng := rand.New(rand.NewPCG(3, uint64(d)))
		g := newGaussian(d, rng)
		x := make([]float64, d)
		for i := range x {
			x[i] = 3 * rng.NormFloat64()
		}
		c := &counting{Target: g.Gaussian}
		l, err := FitLaplace(context.Background(), c, x, LaplaceSettings{})
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

// TestFitLaplaceSaddle checks that a negative or vanishing curvature gives
// a usable covariance: the absolute value of a negative eigenvalue, the
// floor for a flat one.
func TestFitLaplaceSaddle(t *testing.T) {
	s := saddle{a: []float64{4, -1, 0}}
	l, err := FitLaplace(context.Background(), s, []float64{0.5, 0.5, 0.5}, LaplaceSettings{Floor: 1e-4})
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
	l, err := FitLaplace(context.Background(), g.Gaussian, g.Mean(), LaplaceSettings{})
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

// TestRunLaplaceScale checks the wiring of ScaleLaplace: the fit's 2d
// gradients are charged to the run, the bandwidth is the median heuristic
// of draws of N(x₁, Σ) (on a Gaussian: of the target itself, whose median
// pairwise distance is known by Monte Carlo), and the run approximates the
// target (BQ with exact z: MMD² at n = 30 is 9× below n = 1 with this
// seed; the assertion asks for 5×).
func TestRunLaplaceScale(t *testing.T) {
	const d = 10
	rng := rand.New(rand.NewPCG(8, 9))
	g := newGaussian(d, rng)
	ct := &counting{Target: g.Gaussian}
	var mmd []float64
	s := Settings{N: 30, Start: StartGiven, X0: g.Mean(), Scale: ScaleLaplace, Embed: g.embed, RawWeights: true}
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		mmd = append(mmd, sn.Stats[StatMMD2Kernel])
		return nil
	})
	res, err := RunResult(context.Background(), ct, s, rand.NewPCG(1, 2), rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Laplace == nil || res.LaplaceGradEvals != 2*d {
		t.Fatalf("Laplace %v, charged %d gradients, want %d", res.Laplace != nil, res.LaplaceGradEvals, 2*d)
	}
	if res.GradEvals != ct.n {
		t.Errorf("run charged %d gradients, the target counted %d", res.GradEvals, ct.n)
	}
	// Median pairwise distance of the target, 2000 exact draws.
	hTrue := medianBandwidth(g.sample(2000, rand.New(rand.NewPCG(4, 4))))
	// The run's median over 200 draws: a relative error of a few percent.
	if math.Abs(res.Bandwidth-hTrue) > 0.1*hTrue {
		t.Errorf("bandwidth %v, want the target's median distance %v within 10%%", res.Bandwidth, hTrue)
	}
	if !(mmd[len(mmd)-1] < 0.2*mmd[0]) {
		t.Errorf("MMD² %v at n=%d, %v at n=1: want a fivefold drop", mmd[len(mmd)-1], len(mmd), mmd[0])
	}
}

var _ target.Target = saddle{}
