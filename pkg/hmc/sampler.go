package hmc

import (
	"context"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Run is Run(ctx, t, s, src, rec) returning only the draws: Settings is a
// sampler.Sampler. The draws carry the diagnostics in Set.Diag (max R̂, min
// bulk and tail ESS, divergences, and the flags of Result.Reasons); the
// per-chain statistics are in the *Result of the package function Run.
// With Strict a flagged result comes with a *particle.FlaggedError.
func (s Settings) Run(ctx context.Context, t target.Target, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	r, err := Run(ctx, t, s, src, rec)
	if r == nil {
		return particle.Set{}, err
	}
	return r.Set, err
}
