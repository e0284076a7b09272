package hmc

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Scheduled = (*State)(nil)

// Step is Step(ctx, st), one transition of every chain: State is a
// sampler.State.
func (st *State) Step(ctx context.Context) error { return Step(ctx, st) }

// Done reports that every chain has made its Warmup+DrawsPerChain iterations.
func (st *State) Done() bool { return st.Iteration >= st.Warmup+st.DrawsPerChain }

// Set writes the sampling draws every chain has made so far, pooled as in
// Result.Set, with equal weights into dst (see sampler.State); none during
// the warm-up.
func (st *State) Set(dst *particle.Set) {
	done := min(max(st.Iteration-st.Warmup, 0), st.DrawsPerChain)
	if done == 0 {
		sampler.SetOf(dst, nil, nil)
		return
	}
	n := done * st.s.Chains
	sampler.Resize(dst, n, st.d).Copy(st.pooled.Slice(0, n, 0, st.d))
}

// Evals returns GradEvals.
func (st *State) Evals() int64 { return st.GradEvals }

// Advance makes the warm-up (at its first call) and then the next
// Settings.RecordEvery sampling iterations of every chain (fewer at the
// end), one goroutine per chain, with the result of as many calls of Step.
func (st *State) Advance(ctx context.Context) error {
	if !st.warm {
		if err := st.advance(ctx, st.Warmup, false); err != nil {
			return err
		}
		st.warm = true
	}
	next := min(st.recorded+st.s.RecordEvery, st.DrawsPerChain)
	if err := st.advance(ctx, st.Warmup+next, false); err != nil {
		return err
	}
	st.recorded = next
	return nil
}

// Snapshot writes the pooled sampling draws of the last Advance, with
// equal weights, Step the draws per chain, into snap; none before it.
func (st *State) Snapshot(snap *particle.Snapshot) bool {
	done := st.recorded
	if done == 0 {
		return false
	}
	n := done * st.s.Chains
	*snap = particle.Snapshot{
		Step:      done,
		X:         st.pooled.Slice(0, n, 0, st.d).(*mat.Dense),
		W:         particle.Equal(n),
		GradEvals: st.GradEvals,
	}
	return true
}

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

// Finish returns the result of the run ended with err (see
// sampler.Scheduled): after nil or particle.ErrStop the draws of the last
// Advance, as Result gives them; nothing beside another error.
func (st *State) Finish(_ context.Context, err error) (sampler.Result, error) {
	if err != nil && err != particle.ErrStop {
		return sampler.Result{}, err
	}
	if st.recorded == 0 {
		return st.Result()
	}
	res, err := st.result(st.recorded, nil)
	return res.Sampler(), err
}

// Sampler returns r as the one result of every method: its set, its
// seconds and gradient evaluations, and r as Detail.
func (r *Result) Sampler() sampler.Result {
	return sampler.Result{Set: r.Set, Cost: sampler.Cost{Seconds: r.Seconds, GradEvals: r.GradEvals}, Detail: r}
}
