package sgld

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.State = (*State)(nil)

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
	if st.w != nil {
		st.w.RowsToX(x, z)
		return
	}
	x.Copy(z)
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Result returns the draws kept so far with equal weights 1/n and their
// diagnostics (Set.Diag, as Run returns them, in the target's
// coordinates; with StopConverged the last check's R̂ and ESS, and the
// flag "ceiling" when they were not met within Settings.Iterations), the
// gradient evaluations (the MAP search's and the Laplace fit's as the part
// "scale" with WhitenLaplace), and with Settings.Strict the
// *particle.FlaggedError of a flagged set. It does not change st, and it
// does not time: Cost.Seconds is zero. Detail is nil.
func (st *State) Result() (sampler.Result, error) {
	set, err := st.r.finish(st.Iteration, true)
	set, err = st.end(context.Background(), set, err)
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
