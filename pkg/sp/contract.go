package sp

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Scheduled = (*State)(nil)

// Step is Step(ctx, st), one point: State is a sampler.State.
func (st *State) Step(ctx context.Context) error { return Step(ctx, st) }

// Done reports that Run would stop here: StopKSD has settled or
// the Settings.N points are placed.
func (st *State) Done() bool { return st.Settled || st.Points >= st.r.s.N }

// Set writes the points placed so far, in the target's coordinates, with
// equal weights into dst (see sampler.State); none before the first point.
func (st *State) Set(dst *particle.Set) {
	o := st.r.obj
	if o.n == 0 {
		sampler.SetOf(dst, nil, nil)
		return
	}
	st.Particles(sampler.Resize(dst, o.n, o.d))
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Close does nothing: a Stein Points State holds no goroutine between
// steps.
func (st *State) Close() {}

// Advance is Step: a snapshot follows every point.
func (st *State) Advance(ctx context.Context) error { return Step(ctx, st) }

// Snapshot writes the points placed so far, in the target's coordinates,
// with equal weights, Step the count of points, into snap; none before the
// first point.
func (st *State) Snapshot(snap *particle.Snapshot) bool {
	r := st.r
	n, d := r.obj.n, r.obj.d
	if n == 0 {
		return false
	}
	*snap = particle.Snapshot{
		Step:      n,
		X:         st.wh.Rows(mat.NewDense(n, d, r.obj.x[:n*d])),
		W:         r.weights(),
		GradEvals: st.GradEvals,
	}
	return true
}

// Result returns the points placed so far with equal weights 1/n and
// their diagnostics (Set.Diag, as Run returns them, in the target's
// coordinates; the flag "ceiling" when StopKSD has not settled within
// Settings.N points), the gradient evaluations (with WhitenLaplace the
// MAP search's and the Laplace fit's as the parts MAP and Laplace), the
// Cost of the run so far as Detail, and with Settings.Strict the
// *particle.FlaggedError of a flagged set. It does not change st, and it
// does not time: Cost.Seconds is zero.
func (st *State) Result() (sampler.Result, error) {
	return st.Finish(context.Background(), nil)
}

// Finish returns the result of the run ended with err (see
// sampler.Scheduled): the points with their diagnostics after nil or
// particle.ErrStop; the points so far without diagnostics after a
// cancellation (with ctx.Err()); none after another error.
func (st *State) Finish(ctx context.Context, err error) (sampler.Result, error) {
	r := st.r
	var set particle.Set
	switch {
	case err == nil || err == particle.ErrStop:
		set, err = st.result()
	case ctx.Err() != nil:
		set, err = st.end(ctx, r.set(), ctx.Err())
	default:
		set, err = st.end(ctx, particle.Set{}, err)
	}
	return sampler.Result{Set: set, Cost: st.wh.Cost(st.GradEvals), Detail: r.cost}, err
}
