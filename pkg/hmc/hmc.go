package hmc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// maxEnergyError is the energy error H − H₀ beyond which a trajectory is
// declared divergent, Stan's max_deltaH.
const maxEnergyError = 1000

// Settings configure Run. The zero value is usable: every field documents its
// default, which applies when the field is zero.
type Settings struct {
	// Chains is the number of chains, run in parallel. Default 4.
	Chains int `toml:"chains" json:"chains,omitempty"`
	// Warmup is the number of warm-up (adaptation) iterations per chain,
	// whose draws are discarded. Default 1000; NoWarmup (-1) means no
	// warm-up: the chains sample at once with StepSize and a unit mass
	// matrix. Other negative values are errors.
	Warmup int `toml:"warmup" json:"warmup,omitempty"`
	// DrawsPerChain is the number of kept draws per chain, Chains times
	// it in all. Default DefaultDrawsPerChain (1000).
	DrawsPerChain int `toml:"draws_per_chain" json:"draws_per_chain,omitempty"`
	// TargetAccept is the mean acceptance statistic δ that dual averaging
	// aims at. Default 0.8.
	TargetAccept float64 `toml:"target_accept" json:"target_accept,omitempty"`
	// IntegrationTime is the nominal trajectory length T = Lε. Default 2π:
	// with the jitter default, T·u is uniform on [π, 3π], over which a
	// Gaussian direction of unit scale (after the mass matrix) has mean
	// autocorrelation E[cos(T·u)] = 0.
	IntegrationTime float64 `toml:"integration_time" json:"integration_time,omitempty"`
	// Steps, when positive, fixes the nominal number of leapfrog steps L
	// instead of deriving it from IntegrationTime. Default 0 (use
	// IntegrationTime).
	Steps int `toml:"steps" json:"steps,omitempty"`
	// Jitter is the relative path-length jitter j: each transition uses
	// L = ⌈L₀·u⌉ steps with u ~ U[1−j, 1+j]. Default 0.5; NoJitter (-1)
	// turns jitter off; other negative values are errors. Must be below 1.
	Jitter float64 `toml:"jitter" json:"jitter,omitempty"`
	// MaxSteps caps the leapfrog steps of one transition, so that a tiny
	// step size early in warm-up cannot stall a chain. Default 1024.
	MaxSteps int `toml:"max_steps" json:"max_steps,omitempty"`
	// StepSize is the initial step size ε₀ that the warm-up heuristic starts
	// from, or the step size when there is no warm-up. Default 1.
	StepSize float64 `toml:"step_size" json:"step_size,omitempty"`
	// InitScale is the standard deviation of the jitter around the start
	// point (particle.Start.X0): chain c starts at X0 + InitScale·z,
	// z ~ N(0, I). Default 1.
	InitScale float64 `toml:"init_scale" json:"init_scale,omitempty"`
	// RecordEvery is the number of sampling iterations (per chain) between
	// snapshots. Default 100. A snapshot is always reported after the last
	// iteration.
	RecordEvery int `toml:"record_every" json:"record_every,omitempty"`
	// Metric is the form of the inverse mass matrix M⁻¹ adapted in warm-up:
	// MetricDiag (the marginal variances of the warm-up draws, Stan's
	// diag_e), MetricDense (their covariance, Stan's dense_e, which undoes
	// linear correlations at O(d²) per leapfrog step) or MetricAuto, dense
	// when Dim ≤ AutoDenseMaxDim and diagonal above. Default MetricAuto.
	Metric Metric `toml:"metric" json:"metric,omitempty"`
	// MaxRhat and MinESS are the thresholds beyond which a reference is
	// Flagged. Defaults 1.01 and 400.
	MaxRhat float64 `toml:"max_rhat" json:"max_rhat,omitempty"`
	MinESS  float64 `toml:"min_ess" json:"min_ess,omitempty"`

	// Checkpoint, when non-nil with a Path, saves the chains' state as the
	// run goes and resumes from it (see Checkpoint). Default nil.
	Checkpoint *Checkpoint `toml:"-" json:"-"`
	// Progress, when non-nil, is called after every transition of every
	// chain, from the chains' goroutines at once: it must be safe for
	// concurrent use and quick. Default nil.
	Progress func(ChainProgress) `toml:"-" json:"-"`

	// Strict turns a Flagged result into a *particle.FlaggedError returned
	// beside it (by Run and Settings.Run). Default false: the flags are
	// only recorded.
	Strict bool `toml:"strict" json:"strict,omitempty"`
}

// NoWarmup as Settings.Warmup samples without warm-up, and NoJitter as
// Settings.Jitter keeps every trajectory at L₀ steps. They are the only
// negative values of their fields (warmup = -1, jitter = -1 in an
// experiment file).
const (
	NoWarmup = -1
	NoJitter = -1.0
)

// Defaults of the zero Settings.
const (
	DefaultChains          = 4
	DefaultWarmup          = 1000
	DefaultDrawsPerChain   = 1000
	DefaultTargetAccept    = 0.8
	DefaultIntegrationTime = 2 * math.Pi
	DefaultJitter          = 0.5
	DefaultMaxSteps        = 1024
	DefaultStepSize        = 1.0
	DefaultInitScale       = 1.0
	DefaultRecordEvery     = 100
	DefaultMaxRhat         = 1.01
	DefaultMinESS          = 400.0
)

// Validate returns a *setting.Error naming the first invalid field, nil
// when s is valid. Zero fields are valid: they take their defaults; so are
// Warmup = NoWarmup and Jitter = NoJitter, but no other negative value.
func (s Settings) Validate() error {
	if err := setting.NonNegative("chains", s.Chains, "draws_per_chain", s.DrawsPerChain, "target_accept", s.TargetAccept,
		"integration_time", s.IntegrationTime, "steps", s.Steps, "max_steps", s.MaxSteps, "step_size", s.StepSize,
		"init_scale", s.InitScale, "record_every", s.RecordEvery, "max_rhat", s.MaxRhat, "min_ess", s.MinESS); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"integration_time", s.IntegrationTime}, {"step_size", s.StepSize}, {"init_scale", s.InitScale}, {"jitter", s.Jitter}} {
		if math.IsInf(f.v, 0) || math.IsNaN(f.v) {
			return setting.Errorf(f.name, f.v, "must be finite")
		}
	}
	if err := setting.OneOf("metric", s.Metric, MetricAuto, MetricDiag, MetricDense); err != nil {
		return err
	}
	switch {
	case s.Warmup < 0 && s.Warmup != NoWarmup:
		return setting.Errorf("warmup", s.Warmup, "must not be negative (NoWarmup, -1, means no warm-up)")
	case s.Jitter < 0 && s.Jitter != NoJitter:
		return setting.Errorf("jitter", s.Jitter, "must not be negative (NoJitter, -1, turns it off)")
	case s.TargetAccept >= 1:
		return setting.Errorf("target_accept", s.TargetAccept, "is outside (0, 1)")
	case s.Jitter >= 1:
		return setting.Errorf("jitter", s.Jitter, "must be below 1")
	case s.Checkpoint != nil && s.Checkpoint.Every < 0:
		return setting.Errorf("checkpoint.every", s.Checkpoint.Every, "must not be negative")
	case s.Checkpoint != nil && s.Checkpoint.Interval < 0 && s.Checkpoint.Interval != NoInterval:
		return setting.Errorf("checkpoint.interval", s.Checkpoint.Interval, "must not be negative (NoInterval writes by Every only)")
	}
	return nil
}

// withDefaults fills the zero fields of s, or returns the error of Validate.
func (s Settings) withDefaults() (Settings, error) {
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("hmc: %w", err)
	}
	s.Chains = cmp.Or(s.Chains, DefaultChains)
	s.Warmup = max(cmp.Or(s.Warmup, DefaultWarmup), 0) // NoWarmup: none
	s.DrawsPerChain = cmp.Or(s.DrawsPerChain, DefaultDrawsPerChain)
	s.TargetAccept = cmp.Or(s.TargetAccept, DefaultTargetAccept)
	s.IntegrationTime = cmp.Or(s.IntegrationTime, DefaultIntegrationTime)
	s.Jitter = max(cmp.Or(s.Jitter, DefaultJitter), 0) // NoJitter: none
	s.MaxSteps = cmp.Or(s.MaxSteps, DefaultMaxSteps)
	s.StepSize = cmp.Or(s.StepSize, DefaultStepSize)
	s.InitScale = cmp.Or(s.InitScale, DefaultInitScale)
	s.RecordEvery = cmp.Or(s.RecordEvery, DefaultRecordEvery)
	s.Metric = cmp.Or(s.Metric, MetricAuto)
	s.MaxRhat = cmp.Or(s.MaxRhat, DefaultMaxRhat)
	s.MinESS = cmp.Or(s.MinESS, DefaultMinESS)
	return s, nil
}

// NominalSteps returns the nominal number of leapfrog steps L₀ of a
// transition at step size eps, before jitter and the MaxSteps cap:
// L₀ = IntegrationTime/ε, or Steps when it is positive. Zero fields take
// their defaults, so that it applies to settings as an experiment file
// records them.
func (s Settings) NominalSteps(eps float64) float64 {
	if s.Steps > 0 {
		return float64(s.Steps)
	}
	return cmp.Or(s.IntegrationTime, DefaultIntegrationTime) / eps
}

// PathCapped reports whether a chain sampling at step size eps has its
// nominal path at or beyond the cap, L₀ = NominalSteps(ε) ≥ MaxSteps (true
// also when L₀ is NaN). Such a chain's trajectories are cut short of the
// integration time: every one when L₀(1 − j) ≥ MaxSteps for the jitter j,
// at least half of them otherwise, so it moves a fraction MaxSteps/L₀ of
// the intended distance per transition. Its chain explores slowly, which
// R̂ and ESS of short runs need not see (Stan warns likewise about
// transitions that saturate the maximum tree depth). Run flags such a chain
// "capped"; the report applies the same rule to recorded step sizes. Zero
// fields take their defaults.
func (s Settings) PathCapped(eps float64) bool {
	return !(s.NominalSteps(eps) < float64(cmp.Or(s.MaxSteps, DefaultMaxSteps)))
}

// denseFor reports whether the metric in d dimensions is dense.
func (s *Settings) denseFor(d int) bool {
	return s.Metric == MetricDense || s.Metric == MetricAuto && d <= AutoDenseMaxDim
}

// ChainDiagnostics describe one chain, so that a bad reference can be traced
// to the chain that spoiled it.
type ChainDiagnostics struct {
	// AcceptRate is the mean acceptance statistic min(1, exp(H₀ − H_L))
	// over the sampling iterations; dual averaging aims it at TargetAccept.
	AcceptRate float64
	// AdaptAccept is the mean acceptance statistic of the warm-up
	// iterations since the last dual-averaging restart (the terminal
	// window), the quantity dual averaging drives to TargetAccept; NaN
	// without warm-up.
	AdaptAccept float64
	// Divergences counts divergent sampling transitions; WarmupDivergences
	// those of the warm-up, which are common while ε is being found.
	Divergences, WarmupDivergences int
	// StepSize is the adapted step size ε used for sampling.
	StepSize float64
	// InvMass is the diagonal of the adapted inverse mass matrix, an
	// estimate of the posterior marginal variances.
	InvMass []float64
	// InvMetric is the adapted dense inverse mass matrix, an estimate of
	// the posterior covariance; nil for a diagonal metric.
	InvMetric *mat.SymDense
	// MeanSteps is the mean number of leapfrog steps per sampling
	// transition.
	MeanSteps float64
	// PathSteps is the nominal path length L₀ of the sampling transitions,
	// Settings.NominalSteps(StepSize), before jitter and the MaxSteps cap.
	PathSteps float64
	// Capped counts the sampling transitions whose jittered path reached
	// Settings.MaxSteps and was truncated there. A chain whose PathSteps is
	// at the cap (Settings.PathCapped) is flagged "capped".
	Capped int
	// GradCalls counts the chain's LogProbGrad calls, warm-up included.
	GradCalls int64
	// Warmup and Draws count the chain's warm-up iterations and its kept
	// sampling draws.
	Warmup, Draws int
}

// Result is a reference sample with the evidence of its quality.
type Result struct {
	// Set holds the pooled draws of all chains with equal weights. Rows are
	// in iteration-major order: row i·Chains + c is draw i of chain c.
	Set particle.Set
	// Chains holds the draws of each chain (Draws × Dim).
	Chains []*mat.Dense
	// Diagnostics holds one entry per chain.
	Diagnostics []ChainDiagnostics
	// Rhat and ESS are the rank-normalised split-R̂ and the bulk effective
	// sample size of every coordinate (metric.SplitRhat, metric.BulkESS);
	// MaxRhat and MinESS summarise them. They are NaN when there are fewer
	// than 4 draws per chain.
	Rhat, ESS       []float64
	MaxRhat, MinESS float64
	// Flagged reports that the draws should not be trusted as a reference;
	// Reasons says why.
	Flagged bool
	Reasons []string
	// Seconds is the compute time, warm-up included and recording excluded;
	// GradEvals the per-datapoint gradient evaluations (calls × NData).
	Seconds   float64
	GradEvals int64
	// ResumedAt is the number of iterations (warm-up and sampling together)
	// of the least advanced chain in the checkpoint the run resumed from; 0
	// when it started afresh.
	ResumedAt int
}

// Run draws a reference sample from t with s.Chains parallel chains. It
// reports the pooled draws through rec (nil records nothing) every
// s.RecordEvery sampling iterations; a recorder returning particle.ErrStop
// ends the run early with the draws so far. Run returns ctx.Err() when ctx is
// cancelled, and an error naming the chain and iteration when a chain reaches
// a non-finite state. A proposal whose log density or score is not finite
// (NaN, or −∞ outside the support) is a divergent transition that the
// Metropolis step rejects: never a draw, counted in
// ChainDiagnostics.Divergences, and a flag when it happens while sampling;
// it is not an error.
//
// Result.Set carries the diagnostics (Set.Diag, see fillDiag); with
// Settings.Strict a Flagged result comes with a *particle.FlaggedError.
//
// Run is the loop over Init and Steps (see State), with the same draws bit
// for bit as a hand loop of Step. The Result's Detail is the *Result: the
// per-chain draws and statistics.
func Run(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
	res, err := sampler.Run(ctx, func(particle.Recorder) (sampler.State, error) {
		return Init(ctx, t, start, s, src)
	}, rec)
	if r, ok := res.Detail.(*Result); ok {
		r.Seconds = res.Cost.Seconds
	}
	return res, err
}

// diagnose fills Rhat, ESS and the flag.
func (r *Result) diagnose(s *Settings) {
	n, d := r.Chains[0].Dims()
	r.MaxRhat, r.MinESS = math.NaN(), math.NaN()
	if n < 4 {
		r.flag("draws", fmt.Sprintf("only %d draws per chain: R̂ and ESS undefined", n))
		r.flagCapped(s)
		return
	}
	r.Rhat = metric.SplitRhat(r.Chains, nil)
	r.ESS = metric.BulkESS(r.Chains, nil)
	r.MaxRhat, r.MinESS = math.Inf(-1), math.Inf(1)
	worstR, worstE := 0, 0
	for j := 0; j < d; j++ {
		if math.IsNaN(r.Rhat[j]) || math.IsNaN(r.ESS[j]) {
			r.flag("constant", fmt.Sprintf("coordinate %d: R̂ or ESS undefined (constant draws)", j))
			continue
		}
		if r.Rhat[j] > r.MaxRhat {
			r.MaxRhat, worstR = r.Rhat[j], j
		}
		if r.ESS[j] < r.MinESS {
			r.MinESS, worstE = r.ESS[j], j
		}
	}
	if r.MaxRhat > s.MaxRhat {
		r.flag("rhat", fmt.Sprintf("max R̂ %.4g > %g (coordinate %d)", r.MaxRhat, s.MaxRhat, worstR))
	}
	if r.MinESS < s.MinESS {
		r.flag("ess", fmt.Sprintf("min bulk ESS %.4g < %g (coordinate %d)", r.MinESS, s.MinESS, worstE))
	}
	for c, dg := range r.Diagnostics {
		if dg.Divergences > 0 {
			r.flag("divergences", fmt.Sprintf("chain %d: %d divergent sampling transitions", c, dg.Divergences))
		}
	}
	r.flagCapped(s)
}

// flagCapped flags every chain whose nominal path is at the MaxSteps cap
// (Settings.PathCapped), with its path steps and the count of truncated
// sampling transitions.
func (r *Result) flagCapped(s *Settings) {
	for c, dg := range r.Diagnostics {
		if s.PathCapped(dg.StepSize) {
			r.flag("capped", fmt.Sprintf("chain %d: path of %.4g leapfrog steps (step size %.3g) at the cap max_steps = %d: %d of %d sampling transitions truncated",
				c, dg.PathSteps, dg.StepSize, s.MaxSteps, dg.Capped, dg.Draws))
		}
	}
}

// parallel runs f on every chain, one goroutine each, and returns ctx.Err()
// when ctx is done, else the error of the lowest-numbered failing chain.
func parallel(ctx context.Context, chains []*chain, f func(*chain) error) error {
	errs := make([]error, len(chains))
	var wg sync.WaitGroup
	for c, ch := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = f(ch)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstNonNil(errs)
}

// firstNonNil returns the first error other than errPause, else errPause
// when a chain paused, else nil.
func firstNonNil(errs []error) error {
	var paused error
	for _, err := range errs {
		switch {
		case err == errPause:
			paused = err
		case err != nil:
			return err
		}
	}
	return paused
}
