package sp

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// State is a Stein Points run between two points: Init makes one, Step
// places one more point, and Run is the loop
//
//	st, err := Init(ctx, t, start, s, src)
//	for !st.Done() { err = st.Step(ctx) }
//	res, err := st.Result()
//
// with its snapshots. The points, their cached scores and log densities,
// the search box and the random stream live inside the State; the fields
// below are what a caller reads between steps. Step sets them.
type State struct {
	// Points is the number n of points placed, 0 after Init.
	Points int
	// GradEvals is the number of per-datapoint gradient evaluations spent
	// so far: those of the MAP search and the Laplace fit with
	// WhitenLaplace, then N per score call (every candidate and every
	// Nelder–Mead evaluation inside the box).
	GradEvals int64
	// KSD2 is the equally weighted squared kernel Stein discrepancy of the
	// points, (2/n²) Σ_{m≤n} f_m(x_m) from the objective trace (Cost.KSD2),
	// in the run's coordinates; 0 before the first point.
	KSD2 float64
	// Settled reports that StopKSD's criterion has been met: the points'
	// KSD² is at most that of KSDSize independent draws. Always false with
	// StopFixed.
	Settled bool

	r  *runner
	ks *ksdStop
	// s is the resolved Settings of the caller (in x with WhitenLaplace;
	// r.s are those of the run in z).
	s Settings
	// wh maps the run's coordinates z to the target's x (its W nil with
	// WhitenNone, where the run is in x) and holds what the fit cost.
	wh sampler.Whitened
}

// Init returns the state of a Stein Points run before its first point.
//
// With WhitenNone, start.X0, when not nil, is taken as the mode of the
// target (length Dim): the first candidate pool is then X0 and
// perturbations around it; since k₀(x, x) grows with ‖∇log p(x)‖², the
// mode minimises the first objective. When nil, the first pool comes from
// the prior of a target.PriorSampler, or from N(0, Scale² I) otherwise.
// With WhitenLaplace (the default) Init first searches the MAP from
// start.X0 (else a prior draw, else the origin) and fits the Laplace
// approximation there, under ctx, and charges their gradient evaluations
// to the state; the MAP is then the mode. A start point that is not finite
// and a starting set (start.Particles) are errors. src seeds every draw of
// the run.
func Init(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source) (*State, error) {
	d := t.Dim()
	s, err := s.resolved(d)
	if err != nil {
		return nil, err
	}
	if err := start.NoParticles("sp"); err != nil {
		return nil, err
	}
	if x0 := start.X0; x0 != nil {
		if len(x0) != d {
			return nil, fmt.Errorf("sp: X0 has length %d, target dimension is %d", len(x0), d)
		}
		if err := particle.CheckFinite("sp: X0", 0, x0); err != nil {
			return nil, err
		}
	}
	if s.Whiten != WhitenLaplace {
		return &State{r: newRunner(t, s, append([]float64(nil), start.X0...), src), ks: s.ksdStop(d), s: s}, nil
	}
	sc, err := laplace.FitFromStart(ctx, t, "sp", start.X0, rand.New(src), laplace.MAPSettings{}, laplace.FitSettings{})
	if err != nil {
		return nil, err
	}
	w := sc.Whitening
	inner := s
	inner.Whiten = WhitenNone
	// Strict applies to the set in x (Result).
	inner.Strict = false
	// In z the mode is the origin.
	r := newRunner(w.Target(t), inner, make([]float64, d), src)
	r.frame = &laplace.Frame{Target: t, W: w}
	return &State{GradEvals: sc.GradEvals, r: r, ks: inner.ksdStop(d), s: s, wh: sampler.Fit(sc)}, nil
}

// Step places one more point, xₙ₊₁ = argmin of the greedy objective
//
//	f(x) = ½ k₀(x, x) + Σ_{i≤n} k₀(xᵢ, x)
//
// over the step's candidates and the Nelder–Mead refinement of the best
// (see Run), then updates the stopping rule. Step may be called
// past Settings.N while the points' buffers have room: they are sized for
// N points, and a point beyond grows them. A cancelled ctx returns
// ctx.Err() (before the step, or from within it, without a point added);
// a non-finite log density or score, or a step without a finite
// objective, returns an error naming the step; st is then not to be
// stepped again.
func Step(ctx context.Context, st *State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := st.r
	n := st.Points + 1
	if err := r.step(ctx, n); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	d := r.obj.d
	st.Points = n
	st.GradEvals = st.wh.Evals + r.obj.calls*int64(target.NData(r.t))
	st.Settled = st.ks.add(n, r.obj.s[(n-1)*d:n*d], &r.cost)
	st.KSD2 = r.cost.KSD2(n)
	return nil
}

// Cost returns the bill of the run so far, point by point. Its slices are
// the State's: a later Step appends to them.
func (st *State) Cost() Cost { return st.r.cost }

// Particles writes the points placed so far, one per row, in the target's
// coordinates, into dst (Points×d; allocated when nil) and returns it; nil
// before the first point.
func (st *State) Particles(dst *mat.Dense) *mat.Dense {
	o := st.r.obj
	if o.n == 0 {
		return nil
	}
	z := mat.NewDense(o.n, o.d, o.x[:o.n*o.d])
	if dst == nil {
		dst = mat.NewDense(o.n, o.d, nil)
	}
	if st.wh.W != nil {
		return st.wh.W.RowsToX(dst, z)
	}
	dst.Copy(z)
	return dst
}

// result is Result's set and error.
func (st *State) result() (particle.Set, error) {
	r := st.r
	set := st.ks.finish(r.set(), r.obj.n)
	if !r.s.NoDiagnostics {
		r.diagnose(&set)
	}
	return st.end(context.Background(), set, particle.Strict("sp", set, r.s.Strict))
}

// end returns set, the run's set, and err as Run does (see
// sampler.Whitened.End).
func (st *State) end(ctx context.Context, set particle.Set, err error) (particle.Set, error) {
	return st.wh.End(ctx, "sp", set, err, st.s.Strict)
}
