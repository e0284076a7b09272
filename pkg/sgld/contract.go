package sgld

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Scheduled = (*State)(nil)

// Step is Step(ctx, st), one iteration of every chain: State is a
// sampler.State.
func (st *State) Step(ctx context.Context) error { return Step(ctx, st) }

// Done reports that Run would stop here: StopConverged's criterion was met
// at its last check or Settings.Iterations iterations are made.
func (st *State) Done() bool { return st.Converged || st.Iteration >= st.r.s.Iterations }

// Set writes the draws kept so far (see Draws), in the target's
// coordinates, with equal weights into dst (see sampler.State); none
// during the burn-in.
func (st *State) Set(dst *particle.Set) {
	r := st.r
	n := r.collect()
	if n == 0 {
		sampler.SetOf(dst, nil, nil)
		return
	}
	x := sampler.Resize(dst, n, r.d)
	z := mat.NewDense(n, r.d, r.snap[:n*r.d])
	if st.wh.W != nil {
		st.wh.W.RowsToX(x, z)
		return
	}
	x.Copy(z)
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Advance advances every chain to the next multiple of
// Settings.RecordEvery (at most Settings.Iterations; past it, by
// RecordEvery), on Settings.Workers goroutines, with the result of as many
// calls of Step.
func (st *State) Advance(ctx context.Context) error {
	until := st.Iteration + st.r.s.RecordEvery
	if st.Iteration < st.r.s.Iterations {
		until = min(until, st.r.s.Iterations)
	}
	return st.advance(ctx, until)
}

// Snapshot writes the draws kept so far, in the target's coordinates, with
// equal weights, Step the iteration, into snap; none during the burn-in.
func (st *State) Snapshot(snap *particle.Snapshot) bool {
	r := st.r
	n := r.collect()
	if n == 0 {
		return false
	}
	for i := range r.w[:n] {
		r.w[i] = 1 / float64(n)
	}
	*snap = particle.Snapshot{
		Step:      st.Iteration,
		X:         st.wh.Rows(mat.NewDense(n, r.d, r.snap[:n*r.d])),
		W:         r.w[:n],
		GradEvals: st.GradEvals,
	}
	return true
}

// Result returns the draws kept so far with equal weights 1/n and their
// diagnostics (Set.Diag, as Run returns them, in the target's
// coordinates; with StopConverged the last check's R̂ and ESS, and the
// flag "ceiling" when they were not met within Settings.Iterations), the
// gradient evaluations (with WhitenLaplace the MAP search's and the
// Laplace fit's as the parts MAP and Laplace), and with Settings.Strict
// the *particle.FlaggedError of a flagged set. It does not change st, and
// it does not time: Cost.Seconds is zero. Detail is nil.
func (st *State) Result() (sampler.Result, error) {
	return st.Finish(context.Background(), nil)
}

// Finish returns the result of the run ended with err (see
// sampler.Scheduled): the draws with their diagnostics after nil (the
// convergence monitor's set with StopConverged) or particle.ErrStop (every
// kept draw, with an R̂ of their own); the draws kept so far without
// diagnostics beside another error (none with WhitenLaplace unless the
// error is ctx's).
func (st *State) Finish(ctx context.Context, err error) (sampler.Result, error) {
	r := st.r
	var set particle.Set
	switch {
	case err == nil:
		set, err = r.finish(st.Iteration, true)
	case err == particle.ErrStop:
		set, err = r.finish(st.Iteration, false)
	default:
		set = r.result()
	}
	set, err = st.end(ctx, set, err)
	return sampler.Result{Set: set, Cost: st.wh.Cost(st.GradEvals)}, err
}
