package hmc

import (
	"context"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.State = (*State)(nil)

// Step is Step(ctx, st), one transition of every chain: State is a
// sampler.State.
func (st *State) Step(ctx context.Context) error { return Step(ctx, st) }

// Done reports that every chain has made its Warmup+Draws iterations.
func (st *State) Done() bool { return st.Iteration >= st.Warmup+st.Draws }

// Set writes the sampling draws every chain has made so far, pooled as in
// Result.Set, with equal weights into dst (see sampler.State); none during
// the warm-up.
func (st *State) Set(dst *particle.Set) {
	done := min(max(st.Iteration-st.Warmup, 0), st.Draws)
	if done == 0 {
		sampler.SetOf(dst, nil, nil)
		return
	}
	n := done * st.s.Chains
	sampler.Resize(dst, n, st.d).Copy(st.pooled.Slice(0, n, 0, st.d))
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Result returns the sampling draws every chain has made so far
// (Iteration − Warmup of them) with their diagnostics, the gradient
// evaluations and the *Result (per-chain draws and diagnostics, R̂, ESS,
// the flags) as Detail, as Run returns them; Cost.Seconds is zero (the
// caller times its own loop). Before the first sampling draw it returns an
// error and an empty Result. With Settings.Strict a flagged result comes
// with a *particle.FlaggedError. The state is not changed: Step may go on
// after Result.
func (st *State) Result() (sampler.Result, error) {
	res, err := st.Detail()
	if res == nil {
		return sampler.Result{}, err
	}
	return res.Sampler(), err
}

// Sampler returns r as the one result of every method: its set, its
// seconds and gradient evaluations, and r as Detail.
func (r *Result) Sampler() sampler.Result {
	return sampler.Result{Set: r.Set, Cost: sampler.Cost{Seconds: r.Seconds, GradEvals: r.GradEvals}, Detail: r}
}
