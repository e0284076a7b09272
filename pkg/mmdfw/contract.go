package mmdfw

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.State = (*State)(nil)

// Step is Step(ctx, st), one particle: State is a sampler.State.
func (st *State) Step(ctx context.Context) error { return Step(ctx, st) }

// Done reports that Run would stop here: StopKSD has settled or the
// Settings.N particles are placed.
func (st *State) Done() bool { return st.Settled || st.r.n >= st.r.s.N }

// Set writes the particles placed so far, in the target's coordinates,
// with the weights the run reports (normalised unless Settings.RawWeights)
// into dst (see sampler.State); no diagnostics (see Result).
func (st *State) Set(dst *particle.Set) {
	r := st.r
	if r.n == 0 {
		sampler.SetOf(dst, nil, nil)
		return
	}
	x := r.X.Slice(0, r.n, 0, r.d).(*mat.Dense)
	if st.w != nil {
		st.w.RowsToX(sampler.Resize(dst, r.n, r.d), x)
		copy(dst.W, r.reported())
		return
	}
	sampler.SetOf(dst, x, r.reported())
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Close does nothing: an MMD-FW State holds no goroutine between steps.
func (st *State) Close() {}

// Result returns the particles placed so far with their weights and
// diagnostics, as Run returns them (the flag "ceiling" when StopKSD
// has not settled within Settings.N particles), the seconds and gradient
// evaluations of the run (its set-up's parts named: "map", "laplace",
// "pool", "start" for the SVGD particles, "training"), the *Result as
// Detail, and with Settings.Strict the *particle.FlaggedError of a
// flagged set.
func (st *State) Result() (sampler.Result, error) {
	res, err := st.result(context.Background(), nil)
	return res.Sampler(), err
}

// Sampler returns r as the one result of every method: its set, its
// cost with the parts of the set-up named, and r as Detail.
func (r Result) Sampler() sampler.Result {
	c := sampler.Cost{Seconds: r.Seconds, GradEvals: r.GradEvals}
	for _, p := range []sampler.Part{
		{Name: "map", GradEvals: r.MAPGradEvals},
		{Name: "laplace", GradEvals: r.LaplaceGradEvals},
		{Name: "pool", GradEvals: r.PoolGradEvals},
		{Name: "start", GradEvals: r.SVGDGradEvals},
		{Name: "training", GradEvals: r.TrainGradEvals},
	} {
		if p.GradEvals != 0 {
			c.Parts = append(c.Parts, p)
		}
	}
	return sampler.Result{Set: r.Set, Cost: c, Detail: &r}
}
