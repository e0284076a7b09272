package svgd

import (
	"context"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.State = (*State)(nil)

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

// Result returns the current particles with equal weights 1/n and their
// diagnostics (Set.Diag, as Run returns them: evaluated in the target's
// coordinates; the flag "ceiling" when StopPlateau has not settled within
// Settings.Iterations updates), the gradient evaluations (those of the MAP
// search and the Laplace fit as the part "scale" with WhitenLaplace), and
// with Settings.Strict the *particle.FlaggedError of a flagged set. It
// does not change st, and it does not time: Cost.Seconds is zero. Detail
// is nil.
func (st *State) Result() (sampler.Result, error) {
	set, err := st.result()
	return sampler.Result{Set: set, Cost: st.cost()}, err
}

// cost is the bill of st so far, without seconds.
func (st *State) cost() sampler.Cost {
	c := sampler.Cost{GradEvals: st.GradEvals}
	if st.w != nil {
		c.Parts = []sampler.Part{{Name: "scale", GradEvals: st.scaleEvals}}
	}
	return c
}
