package svgd

import (
	"context"
	"errors"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Scheduled = (*State)(nil)

// Step is Step(ctx, st), one update of every particle: State is a
// sampler.State.
func (st *State) Step(ctx context.Context) error { return Step(ctx, st) }

// Done reports that Run would stop here: StopPlateau has settled or
// Settings.Iterations updates are made.
func (st *State) Done() bool { return st.Settled || st.Iteration >= st.s.Iterations }

// Set writes the current particles, in the target's coordinates, with
// equal weights into dst (see sampler.State).
func (st *State) Set(dst *particle.Set) {
	n, d := st.r.x.Dims()
	st.Particles(sampler.Resize(dst, n, d))
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Advance is Step: the snapshots fall on updates (see Snapshot).
func (st *State) Advance(ctx context.Context) error { return Step(ctx, st) }

// Snapshot writes the current particles, in the target's coordinates, with
// equal weights, Step the count of updates, into snap: at the start, every
// Settings.RecordEvery updates, at the last (Settings.Iterations) and when
// StopPlateau has settled.
func (st *State) Snapshot(snap *particle.Snapshot) bool {
	it := st.Iteration
	if !(it == 0 || st.Settled || it == st.s.Iterations || (st.s.RecordEvery > 0 && it%st.s.RecordEvery == 0)) {
		return false
	}
	r := st.r
	*snap = particle.Snapshot{Step: it, X: st.wh.Rows(r.x), W: r.w, GradEvals: st.GradEvals}
	return true
}

// Result returns the current particles with equal weights 1/n and their
// diagnostics (Set.Diag, as Run returns them: evaluated in the target's
// coordinates; the flag "ceiling" when StopPlateau has not settled within
// Settings.Iterations updates), the gradient evaluations (with
// WhitenLaplace those of the MAP search and the Laplace fit as the parts
// MAP and Laplace), and with Settings.Strict the *particle.FlaggedError
// of a flagged set. It does not change st, and it does not time:
// Cost.Seconds is zero. Detail is nil.
func (st *State) Result() (sampler.Result, error) {
	return st.Finish(context.Background(), nil)
}

// Finish returns the result of the run ended with err (see
// sampler.Scheduled): the particles with their diagnostics after nil, and
// after particle.ErrStop without the flag "ceiling"; the particles
// without diagnostics beside a recorder's error or a cancellation; none
// after another error.
func (st *State) Finish(ctx context.Context, err error) (sampler.Result, error) {
	r, it := st.r, st.Iteration
	var set particle.Set
	var re *sampler.RecordError
	switch {
	case err == nil:
		set, err = st.result()
	case err == particle.ErrStop:
		set, err = st.end(r.finish(it, nil), it, nil)
	case errors.As(err, &re):
		set, err = st.end(r.finish(it, nil), it, err)
	case ctx.Err() != nil:
		set, err = st.end(r.set(), it, err)
	}
	return sampler.Result{Set: set, Cost: st.wh.Cost(st.GradEvals)}, err
}
