// Package sampler names the one shape every particle method of this module
// has: a settings value that runs on a target from a start (Sampler), and
// a run between two of its steps (State), which Drive runs to its end.
//
// mmdfw.Settings, svgd.Settings, sp.Settings, sgld.Settings and
// hmc.Settings are Samplers; a method of one's own that implements Sampler
// can be compared with them on the same targets, recorders and seeds, and
// checked by the conformance suite of package samplertest. What a run
// spent and decided beyond the particles (HMC's per-chain statistics, Stein
// Points' cost, MMD-FW's bandwidth and MAP cost) comes from each package's
// package function Run, which returns a Result (Result.Cost,
// Result.Detail), as its State's Result does, or from snapshot statistics
// (particle.Snapshot.Stats). Every package function Run is Run over the
// method's Init: one loop (Drive's) steps, records, times and stops every
// method, each State saying where its snapshots fall (Scheduled).
//
// # Non-finite values
//
// A log density or score that is not finite (NaN, or ±∞) at any point a
// method evaluates, minibatch estimates included, is an error, a
// *particle.NonFiniteError naming the method, its iteration and the point
// (particle, LMO candidate, Stein Points candidate or Nelder–Mead
// evaluation, SGLD chain), never a particle silently kept: a density
// written without its support (log p = NaN or −∞ outside it) fails loudly.
// HMC alone treats such a proposal exactly, as a density of zero that its
// Metropolis step rejects (a divergent transition, counted and flagged).
// SGLD's zero value does the same in its adaptive burn-in only, whose
// states are discarded: a move there to a non-finite log density or score,
// or one that a Metropolis step would almost surely reject
// (sgld.RejectLogRatio), is rejected and the step halved
// (sgld.ScheduleAdaptive); after the burn-in the contract holds as stated.
//
// # Diagnostics
//
// Every result carries particle.Set.Diag: named values and flags, each a
// code and a one-line reason, computed after the method's clock has stopped
// so that no recorded time includes them. HMC records max R̂, min bulk and
// tail ESS and divergences, and flags R̂ > 1.01, bulk ESS < 400 (its
// Settings.MaxRhat and MinESS) and divergent sampling transitions. The
// particle methods record Kish's ESS of the weights, the KSD² (IMQ kernel
// c = 1, β = −½) and the Stein spread ratio from full-data scores (cached by
// MMD-FW and Stein Points, evaluated at a subsample by SVGD and SGLD), and
// run a missed-mode test with probes of the target, all within 5% of the
// run's gradient evaluations (metric.DiagnoseSet gives the rules: flags
// "collapse", "spread", "stein", "mode"); SGLD adds the R̂ of its chains
// (flag "rhat") when its convergence monitor did not end the run. The
// probes come from a fixed stream of their own and take nothing from the
// run's. The zero values of MMD-FW, SVGD, Stein Points and SGLD, which run
// in the whitened coordinates of a Laplace fit and stop by a criterion,
// compute these on the set mapped back, in the target's own coordinates
// with its own score, so that they mean the same whatever the run's
// coordinates; their stopping rule adds "iterations" (or "points",
// "particles") and, when the ceiling came first, the flag "ceiling" (for
// SGLD with the last R̂ and ESS of its monitor). MMD-FW's pairwise weight
// solver adds "weight_solves" and "weight_gap_max", and the flag "weights"
// when a solve reached its iteration ceiling before its certified gap
// (a statement about the weights' optimisation, not about the set). Each method's
// Settings.Strict turns a flagged result, the ceiling's included, into a
// *particle.FlaggedError returned beside the set.
//
// # Enumerated settings
//
// A setting that takes one of a few named values (Frame.Whiten and
// Frame.Stop here; mmdfw.Scale, mmdfw.Rule, svgd.BandwidthRule,
// sgld.Schedule, hmc.Metric and the rest) is a string type whose exported
// constants are its texts in experiment files and recorded settings
// (mmdfw.LineSearch is "line-search"). The empty text is the documented
// default, so that the zero Settings has it and its key is omitted from
// the recorded settings, and Validate refuses any other text with a
// *setting.Error naming the key and listing the texts (setting.OneOf).
// Where a default also has a name that a file may write (mmdfw.PickUniform
// "uniform", mmdfw.RBFKernel "rbf"), UnmarshalText reads that name as the
// empty text, so that naming the default records the same settings as
// omitting it; MMD-FW's types also refuse an unknown text when an
// experiment file or recorded settings are decoded.
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
// The value that implements Sampler holds the method's settings, only what
// can be tuned and written to a file (each method's Settings); what a run
// is given comes as arguments: the target t and the start (the zero
// particle.Start is the method's documented default start; see
// particle.Start for what X0 and Particles mean, and a method that cannot
// use a starting set returns an error naming itself). Run draws every
// random choice from src, so that the same settings, target, start and
// source give the same set. rec (nil records nothing) receives
// snapshots as the run proceeds; particle.ErrStop from rec ends the run
// with the particles of that snapshot and a nil error, any other error from
// rec ends it with that error wrapped. When ctx is cancelled Run returns
// promptly with an error wrapping ctx.Err(). A non-finite log density or
// score is an error (a Metropolis method may reject it instead; see the
// package documentation), and the particles returned with any error are
// finite. Invalid settings are an error wrapping a *setting.Error. The set
// carries its diagnostics in Set.Diag.
type Sampler interface {
	Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error)
}

// Func adapts a function to a Sampler.
type Func func(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error)

// Run calls f.
func (f Func) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	return f(ctx, t, start, src, rec)
}
