package sp

import (
	"context"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.State = (*State)(nil)

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

// Result returns the points placed so far with equal weights 1/n and
// their diagnostics (Set.Diag, as Run returns them, in the
// target's coordinates; the flag "ceiling" when StopKSD has not settled
// within Settings.N points), the gradient evaluations (the MAP search's
// and the Laplace fit's as the part "scale" with WhitenLaplace), the Cost
// of the run so far as Detail, and with Settings.Strict the
// *particle.FlaggedError of a flagged set. It does not change st, and it
// does not time: Cost.Seconds is zero.
func (st *State) Result() (sampler.Result, error) {
	set, err := st.result()
	return sampler.Result{Set: set, Cost: st.cost(), Detail: st.Cost()}, err
}

// cost is the bill of st so far, without seconds.
func (st *State) cost() sampler.Cost {
	c := sampler.Cost{GradEvals: st.GradEvals}
	if st.w != nil {
		c.Parts = []sampler.Part{{Name: "scale", GradEvals: st.scaleEvals}}
	}
	return c
}
