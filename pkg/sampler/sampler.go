// Package sampler names the one shape every particle method of this module
// has: a settings value that runs on a target.
//
// mmdfw.Settings, svgd.Settings, sp.Settings, sgld.Settings and
// hmc.Settings are Samplers; a method of one's own that implements Sampler
// can be compared with them on the same targets, recorders and seeds, and
// checked by the conformance suite of package samplertest. Diagnostics
// beyond the particles (HMC's R̂ and ESS, Stein Points' cost, MMD-FW's
// bandwidth and MAP cost) come from each package's own result function
// (hmc.Run, sp.RunWithCost, mmdfw.RunResult) or from snapshot statistics
// (particle.Snapshot.Stats).
//
// # Randomness
//
// A run's randomness comes from the one rand.Source it is given, and no
// method takes a *rand.Rand in its settings or arguments. Where a run needs
// independent streams (the chains of SGLD and HMC, the SVGD run or SGLD
// pool inside MMD-FW, the short SGLD run of its bandwidth), it splits them
// off its own stream by one rule: each new stream is rand.NewPCG(u, v) for
// the next two values u, v of the run's stream, taken in a fixed order
// before the streams are used, so that the result does not depend on the
// scheduling of goroutines or the worker count.
package sampler

import (
	"context"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Sampler approximates a target by a weighted particle set.
//
// Run draws every random choice from src, so that the same settings, target
// and source give the same set. rec (nil records nothing) receives
// snapshots as the run proceeds; particle.ErrStop from rec ends the run
// with the particles of that snapshot and a nil error, any other error from
// rec ends it with that error wrapped. When ctx is cancelled Run returns
// promptly with an error wrapping ctx.Err(). A non-finite log density or
// score is an error, and the particles returned with any error are finite.
// Invalid settings are an error wrapping a *setting.Error.
type Sampler interface {
	Run(ctx context.Context, t target.Target, src rand.Source, rec particle.Recorder) (particle.Set, error)
}

// Func adapts a function to a Sampler.
type Func func(ctx context.Context, t target.Target, src rand.Source, rec particle.Recorder) (particle.Set, error)

// Run calls f.
func (f Func) Run(ctx context.Context, t target.Target, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	return f(ctx, t, src, rec)
}
