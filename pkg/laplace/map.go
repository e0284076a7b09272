package laplace

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// MAPSettings configure FindMAP. The zero value is full-data L-BFGS with
// the defaults below.
type MAPSettings struct {
	// Iterations bounds the L-BFGS major iterations. Default 1000.
	Iterations int
	// GradTol stops the search when ‖∇log p‖∞ < GradTol·max(1, |log p|).
	// The scale makes one tolerance fit a 2-d toy and a posterior over
	// half a million data points, whose gradient is a sum of that many
	// terms. Default 1e-6.
	GradTol float64
	// Batch is the minibatch size of the gradients of a target.Stochastic:
	// every evaluated point gets one fresh minibatch, shared by its value
	// and gradient so that L-BFGS sees a consistent pair. 0, or a size ≥
	// NData, uses full-data gradients. Default 0.
	Batch int
	// Src draws the minibatches; it is needed only when Batch is used.
	Src rand.Source
	// NewtonTol, when positive and the target implements target.Hessian
	// (with full-data gradients), also stops the search when the Newton
	// decrement √(gᵀ(−H)⁻¹g), g = ∇log p and H = ∇²log p at the current
	// point, is below NewtonTol: the predicted distance to the mode in the
	// norm of the Laplace precision, i.e. in posterior standard deviations.
	// It is checked every 10 iterations once ‖g‖∞ has fallen below 1 % of
	// its value at the start, and each check is charged
	// HessianGradEvals(N, d). 0 (the default) never checks it.
	NewtonTol float64
}

// MAP search statuses (MAPResult.Status).
const (
	MAPGradTol    = "gradient tolerance"
	MAPFuncTol    = "function tolerance"
	MAPIterLimit  = "iteration limit"
	MAPLineSearch = "line search failed"
	MAPNewton     = "Newton decrement"
)

// MAPResult is the outcome of FindMAP.
type MAPResult struct {
	// X is the best point found.
	X []float64
	// LogProb is log p(X) and GradNorm ‖∇log p(X)‖∞, as last evaluated
	// there (minibatch estimates with MAPSettings.Batch).
	LogProb, GradNorm float64
	// Iterations counts the L-BFGS major iterations.
	Iterations int
	// GradEvals counts the per-datapoint gradient evaluations spent (see
	// target.NData): the cost to charge to a method that starts from X.
	GradEvals int64
	// Newton is the Newton decrement at the last check of
	// MAPSettings.NewtonTol (NaN when none was made) and NewtonChecks the
	// number of checks.
	Newton       float64
	NewtonChecks int
	// Status says why the search stopped: MAPGradTol, MAPNewton,
	// MAPFuncTol, MAPIterLimit, MAPLineSearch (round-off or minibatch noise near the
	// optimum; X is still the best point found) or gonum's status name.
	Status string
}

// FindMAP searches for a maximiser of log p from x0 (not modified) by
// gonum's L-BFGS on −log p. It stops at the gradient tolerance, when
// −log p has not improved by more than 1e-12·|log p| in 10 iterations, at
// the iteration bound, or when the line search fails; only a non-finite end
// point or a cancelled ctx is an error. Every evaluation is counted in
// MAPResult.GradEvals, also when an error is returned.
func FindMAP(ctx context.Context, t target.Target, x0 []float64, s MAPSettings) (MAPResult, error) {
	d := t.Dim()
	if len(x0) != d {
		panic("laplace: FindMAP starting point length differs from the target dimension")
	}
	if s.Iterations <= 0 {
		s.Iterations = 1000
	}
	if s.GradTol <= 0 {
		s.GradTol = 1e-6
	}
	res := MAPResult{Newton: math.NaN()}
	st, stoch := t.(target.Stochastic)
	var batch []int
	var rng *rand.Rand
	if stoch && s.Batch > 0 && s.Batch < st.NData() {
		if s.Src == nil {
			panic("laplace: MAPSettings.Batch needs MAPSettings.Src")
		}
		batch = make([]int, s.Batch)
		rng = rand.New(s.Src)
	}
	nd := int64(target.NData(t))
	lastX := make([]float64, d)
	lastG := make([]float64, d)
	lastF := math.NaN()
	eval := func(x []float64) {
		if !math.IsNaN(lastF) && slices.Equal(x, lastX) {
			return
		}
		copy(lastX, x)
		var lp float64
		if batch != nil {
			for i := range batch {
				batch[i] = rng.IntN(st.NData())
			}
			lp = st.MinibatchLogProbGrad(x, lastG, batch)
			res.GradEvals += int64(len(batch))
		} else {
			lp = t.LogProbGrad(x, lastG)
			res.GradEvals += nd
		}
		lastF = -lp
		for j := range lastG {
			lastG[j] = -lastG[j]
		}
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			eval(x)
			return lastF
		},
		Grad: func(grad, x []float64) {
			eval(x)
			copy(grad, lastG)
		},
	}
	conv := &mapConverge{tol: s.GradTol, f: optimize.FunctionConverge{Relative: 1e-12, Iterations: 10}}
	if ht, ok := t.(target.Hessian); ok && s.NewtonTol > 0 && batch == nil {
		conv.newton = &newtonCheck{t: ht, tol: s.NewtonTol, res: &res, g0: math.NaN(),
			H: mat.NewSymDense(d, nil), g: make([]float64, d), cost: HessianGradEvals(target.NData(t), d)}
	}
	set := &optimize.Settings{
		MajorIterations: s.Iterations,
		Converger:       conv,
		Recorder:        ctxRecorder{ctx},
	}
	r, err := optimize.Minimize(p, x0, set, &optimize.LBFGS{})
	if e := ctx.Err(); e != nil {
		return res, e
	}
	if r == nil {
		return res, fmt.Errorf("laplace: MAP search: %w", err)
	}
	for _, v := range r.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return res, fmt.Errorf("laplace: MAP search ended at a non-finite point (%v)", err)
		}
	}
	if math.IsNaN(r.F) || math.IsInf(r.F, 0) {
		return res, fmt.Errorf("laplace: MAP search ended with −log p = %v (%v)", r.F, err)
	}
	res.X = r.X
	res.LogProb = -r.F
	res.GradNorm = math.NaN()
	if r.Gradient != nil {
		res.GradNorm = floats.Norm(r.Gradient, math.Inf(1))
	}
	res.Iterations = r.MajorIterations
	switch {
	case err != nil:
		// A line-search failure near the optimum still leaves the best
		// point found, which is all a starting point needs.
		res.Status = MAPLineSearch
	case r.Status == optimize.GradientThreshold && conv.byNewton:
		res.Status = MAPNewton
	case r.Status == optimize.GradientThreshold:
		res.Status = MAPGradTol
	case r.Status == optimize.FunctionConvergence:
		res.Status = MAPFuncTol
	case r.Status == optimize.IterationLimit:
		res.Status = MAPIterLimit
	default:
		res.Status = r.Status.String()
	}
	return res, nil
}

// mapConverge stops at the relative gradient tolerance of MAPSettings, then
// defers to function convergence.
type mapConverge struct {
	tol    float64
	f      optimize.FunctionConverge
	newton *newtonCheck
	// byNewton records that the Newton decrement stopped the search.
	byNewton bool
}

func (c *mapConverge) Init(dim int) { c.f.Init(dim) }

func (c *mapConverge) Converged(l *optimize.Location) optimize.Status {
	if l.Gradient != nil && floats.Norm(l.Gradient, math.Inf(1)) < c.tol*math.Max(1, math.Abs(l.F)) {
		return optimize.GradientThreshold
	}
	if c.newton != nil && l.Gradient != nil && c.newton.done(l) {
		c.byNewton = true
		return optimize.GradientThreshold
	}
	return c.f.Converged(l)
}

// newtonCheck is the Newton-decrement stop of MAPSettings.NewtonTol.
type newtonCheck struct {
	t    target.Hessian
	tol  float64
	res  *MAPResult
	cost int64
	// g0 is ‖∇‖∞ at the first location seen; iter counts the locations.
	g0   float64
	iter int
	H    *mat.SymDense
	g    []float64
	chol mat.Cholesky
}

// done reports whether the Newton decrement at l is below the tolerance,
// checking every 10 locations once ‖∇‖∞ < 0.01·g0.
func (n *newtonCheck) done(l *optimize.Location) bool {
	gn := floats.Norm(l.Gradient, math.Inf(1))
	if math.IsNaN(n.g0) {
		n.g0 = gn
	}
	n.iter++
	if n.iter%10 != 0 || !(gn < 0.01*n.g0) {
		return false
	}
	// The location's gradient is that of −log p, and (−H)⁻¹ is even in
	// its sign.
	n.t.LogProbHessian(n.H, l.X)
	n.res.GradEvals += n.cost
	n.res.NewtonChecks++
	d := n.H.SymmetricDim()
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			n.H.SetSym(i, j, -n.H.At(i, j))
		}
	}
	if !n.chol.Factorize(n.H) {
		return false // not yet in a concave region
	}
	v := mat.NewVecDense(d, n.g)
	if err := n.chol.SolveVecTo(v, mat.NewVecDense(d, l.Gradient)); err != nil {
		return false
	}
	dec := math.Sqrt(math.Max(0, floats.Dot(l.Gradient, n.g)))
	n.res.Newton = dec
	return dec < n.tol
}

// ctxRecorder stops L-BFGS when the context is done.
type ctxRecorder struct{ ctx context.Context }

func (c ctxRecorder) Init() error { return nil }

func (c ctxRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	return c.ctx.Err()
}
