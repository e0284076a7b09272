package hmc

import (
	"context"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Run draws a reference sample from t as RunResult does and returns the
// pooled draws alone, the one result shape of every method's Run
// (particle.Set, its diagnostics in Set.Diag: max R̂, min bulk and tail ESS,
// divergences, and the flags of Result.Reasons); the per-chain statistics
// are in the *Result of RunResult, as MMD-FW's are in mmdfw.RunResult's.
// With Strict a flagged result comes with a *particle.FlaggedError.
func Run(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	r, err := RunResult(ctx, t, start, s, src, rec)
	if r == nil {
		return particle.Set{}, err
	}
	return r.Set, err
}

// Run is the package function Run with these settings: Settings is a
// sampler.Sampler.
func (s Settings) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	return Run(ctx, t, start, s, src, rec)
}
