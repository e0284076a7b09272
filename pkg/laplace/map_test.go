package laplace

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// counting wraps t and counts its full-data evaluations.
type counting struct {
	target.Target
	n int64
}

func (c *counting) LogProbGrad(x, grad []float64) float64 {
	c.n++
	return c.Target.LogProbGrad(x, grad)
}

// TestFindMAP checks FindMAP against known maximisers: a Gaussian's mean
// and Rosenbrock's (1, 1); the reported value, gradient norm and cost
// against direct evaluation; and that x0 is left alone.
func TestFindMAP(t *testing.T) {
	g := newGaussian(5, rand.New(rand.NewPCG(2, 9)))
	rosen := target.Func{D: 2, F: func(x, grad []float64) float64 {
		a, b := x[1]-x[0]*x[0], 1-x[0]
		grad[0] = 400*a*x[0] + 2*b
		grad[1] = -200 * a
		return -(100*a*a + b*b)
	}}
	for _, c := range []struct {
		name string
		t    target.Target
		x0   []float64
		mode []float64
		tol  float64
	}{
		{"gaussian", g, make([]float64, 5), g.Mean(), 1e-5},
		{"rosenbrock", rosen, []float64{-1.2, 1}, []float64{1, 1}, 1e-4},
	} {
		ct := &counting{Target: c.t}
		x0 := slices.Clone(c.x0)
		res, err := FindMAP(context.Background(), ct, x0, MAPSettings{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(x0, c.x0) {
			t.Errorf("%s: x0 changed to %v", c.name, x0)
		}
		for j, m := range c.mode {
			if math.Abs(res.X[j]-m) > c.tol {
				t.Errorf("%s: coord %d = %v, mode %v", c.name, j, res.X[j], m)
			}
		}
		grad := make([]float64, len(res.X))
		lp := c.t.LogProbGrad(res.X, grad)
		var gn float64
		for _, v := range grad {
			gn = math.Max(gn, math.Abs(v))
		}
		if res.LogProb != lp || res.GradNorm != gn {
			t.Errorf("%s: log p %v, |∇|∞ %v; direct %v, %v", c.name, res.LogProb, res.GradNorm, lp, gn)
		}
		if res.Status != MAPGradTol || gn >= 1e-6*math.Max(1, math.Abs(lp)) {
			t.Errorf("%s: status %q with |∇|∞ %v", c.name, res.Status, gn)
		}
		if res.GradEvals != ct.n || res.Iterations < 1 {
			t.Errorf("%s: %d gradient evaluations counted, %d made, %d iterations", c.name, res.GradEvals, ct.n, res.Iterations)
		}
	}

	// The tolerance is relative to |log p|: far from the mode of a target
	// with |log p| ≈ 1e8, a gradient of 1 already meets it.
	big := target.Func{D: 1, F: func(x, grad []float64) float64 {
		grad[0] = -(x[0] - 1)
		return -1e8 - 0.5*(x[0]-1)*(x[0]-1)
	}}
	res, err := FindMAP(context.Background(), big, []float64{0}, MAPSettings{})
	if err != nil || res.Status != MAPGradTol || res.X[0] != 0 {
		t.Errorf("relative tolerance: x %v, status %q, err %v; want the start, %q", res.X, res.Status, err, MAPGradTol)
	}

	// The iteration bound, and cancellation.
	if res, err = FindMAP(context.Background(), rosen, []float64{-1.2, 1}, MAPSettings{Iterations: 3}); err != nil || res.Status != MAPIterLimit || res.Iterations != 3 {
		t.Errorf("3 iterations: status %q after %d, err %v", res.Status, res.Iterations, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FindMAP(ctx, rosen, []float64{-1.2, 1}, MAPSettings{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

// TestFindMAPMinibatch checks that a minibatch search is charged its batch
// sizes and climbs the full-data log p. (Minibatch noise ends it early by a
// line-search failure, far from the full-data MAP: it is a cheap start, no
// more.)
func TestFindMAPMinibatch(t *testing.T) {
	lr := syntheticLR(2000, 4, rand.New(rand.NewPCG(5, 5)))
	x0 := make([]float64, lr.Dim())
	res, err := FindMAP(context.Background(), lr, x0, MAPSettings{Batch: 500, Iterations: 50, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.GradEvals%500 != 0 || res.GradEvals == 0 {
		t.Errorf("minibatch search charged %d, not a multiple of 500", res.GradEvals)
	}
	g := make([]float64, lr.Dim())
	if a, b := lr.LogProbGrad(x0, g), lr.LogProbGrad(res.X, g); !(b > a+0.1*math.Abs(a)) {
		t.Errorf("full-data log p %v at the start, %v at the minibatch MAP: no progress", a, b)
	}
}

// TestFindMAPNewton checks the Newton-decrement stop on model.Logistic:
// with a gradient tolerance too strict to stop first, the search stops by
// the decrement, earlier than the converged search, at a point whose
// distance to the converged mode in the Laplace precision's norm is below
// the tolerance (the decrement predicts it to second order; 0.5 sd
// against a tolerance of 0.5 allows for that error), with every check's
// Hessian charged; the zero value never checks.
func TestFindMAPNewton(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	lr := syntheticLR(4000, 20, rng)
	x0 := make([]float64, lr.Dim())
	ctx := context.Background()
	full, err := FindMAP(ctx, lr, x0, MAPSettings{GradTol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if full.NewtonChecks != 0 || !math.IsNaN(full.Newton) {
		t.Errorf("zero NewtonTol: %d checks, decrement %v", full.NewtonChecks, full.Newton)
	}
	const tol = 0.5
	nw, err := FindMAP(ctx, lr, x0, MAPSettings{GradTol: 1e-14, NewtonTol: tol})
	if err != nil {
		t.Fatal(err)
	}
	if nw.Status != MAPNewton || !(nw.Newton < tol) || nw.NewtonChecks < 1 {
		t.Fatalf("status %q, decrement %v after %d checks", nw.Status, nw.Newton, nw.NewtonChecks)
	}
	if nw.Iterations >= full.Iterations || nw.Iterations%10 != 0 {
		t.Errorf("stopped after %d iterations (converged search: %d); checks come every 10", nw.Iterations, full.Iterations)
	}
	// Distance to the converged mode in the norm of −∇²log p there.
	var prec mat.SymDense
	prec.ReuseAsSym(lr.Dim())
	lr.LogProbHessian(&prec, full.X)
	diff := make([]float64, lr.Dim())
	for j := range diff {
		diff[j] = nw.X[j] - full.X[j]
	}
	dv := mat.NewVecDense(len(diff), diff)
	dist := math.Sqrt(-mat.Inner(dv, &prec, dv))
	if !(dist < tol) {
		t.Errorf("stopped %v posterior sd from the mode (decrement %v)", dist, nw.Newton)
	}
	// The cost: gradients plus one Hessian per check, so it exceeds the
	// gradients alone by exactly the checks' charge.
	n, d := lr.NData(), lr.Dim()
	if extra := nw.GradEvals % int64(n); extra != (int64(nw.NewtonChecks)*HessianGradEvals(n, d))%int64(n) {
		t.Errorf("GradEvals %d does not include %d Hessian checks of %d", nw.GradEvals, nw.NewtonChecks, HessianGradEvals(n, d))
	}
	t.Logf("Newton stop after %d iterations (decrement %.3f, distance %.3f sd, %d checks); converged search %d iterations",
		nw.Iterations, nw.Newton, dist, nw.NewtonChecks, full.Iterations)
}
