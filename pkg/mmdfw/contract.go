package mmdfw

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Scheduled = (*State)(nil)

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

// Advance is Step: a snapshot follows every particle.
func (st *State) Advance(ctx context.Context) error { return Step(ctx, st) }

// Snapshot writes the particles placed so far, in the target's coordinates,
// with the weights the run reports, Step the count of particles and, with
// z, the statistics (StatMMD2Kernel or StatMMD2KernelPool) into snap; none
// before the first particle, and none for the first particle once
// reported (Run reports it from the set-up).
func (st *State) Snapshot(snap *particle.Snapshot) bool {
	r := st.r
	if r.n == 0 || r.n == 1 && r.snapped == 1 {
		return false
	}
	r.snapped = r.n
	*snap = r.snapshot()
	snap.X = st.w.Snapshot(&st.buf, snap.X)
	snap.GradEvals = st.GradEvals
	return true
}

// Result returns the particles placed so far with their weights and
// diagnostics, as Run returns them (the flag "ceiling" when StopKSD
// has not settled within Settings.N particles), the seconds and gradient
// evaluations of the run (its set-up's parts named: MAP, Laplace, Pool,
// Start for the SVGD particles, Training), the *Result as Detail, and
// with Settings.Strict the *particle.FlaggedError of a flagged set.
func (st *State) Result() (sampler.Result, error) {
	return st.Finish(context.Background(), nil)
}

// Finish returns the result of the run ended with err (see
// sampler.Scheduled): the particles with their diagnostics after nil or
// particle.ErrStop; the particles so far without diagnostics after a
// cancellation (with ctx.Err()); none, but the cost, after another error.
func (st *State) Finish(ctx context.Context, err error) (sampler.Result, error) {
	if r := st.r; err == particle.ErrStop {
		err = nil
		if r.ks != nil && r.n > 1 {
			cur := *r.ks
			*r.ks = r.ksPrev
			defer func() { *r.ks = cur }()
		}
	}
	res, err := st.result(ctx, err)
	return res.Sampler(), err
}

// Sampler returns r as the one result of every method: its set, its
// cost with the parts of the set-up named, and r as Detail.
func (r Result) Sampler() sampler.Result {
	return sampler.Result{Set: r.Set, Cost: sampler.Cost{
		Seconds: r.Seconds, GradEvals: r.GradEvals,
		MAP:      sampler.Part{GradEvals: r.MAPGradEvals},
		Laplace:  sampler.Part{GradEvals: r.LaplaceGradEvals},
		Pool:     sampler.Part{GradEvals: r.PoolGradEvals},
		Start:    sampler.Part{GradEvals: r.SVGDGradEvals},
		Training: sampler.Part{GradEvals: r.TrainGradEvals},
	}, Detail: &r}
}
