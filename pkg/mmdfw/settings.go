package mmdfw

import (
	"math"

	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
)

// First selects the first particle (the key start); the empty text is
// FirstAuto.
type First string

const (
	// FirstAuto is the first SVGD particle when particle.Start.Particles (SVGD particles) or
	// Inputs.SVGD is set and FirstMAP otherwise.
	FirstAuto First = ""
	// FirstMAP runs L-BFGS on −log p from a prior draw (or particle.Start.X0, or
	// the origin) and starts at the (near) MAP point, as the paper
	// recommends. Its gradient evaluations are charged to the run.
	FirstMAP First = "map"
	// FirstPrior starts at a prior draw (target.PriorSampler).
	FirstPrior First = "prior"
	// FirstGiven starts at particle.Start.X0.
	FirstGiven First = "given"
	// FirstTrained starts at one point trained by optim.Train (minibatch
	// Adam or AdaGrad with early stopping by Inputs.Train.Validate) from
	// particle.Start.X0 (default a prior draw) on Inputs.TrainTarget (default
	// the run's target, which must then be a target.Stochastic). Its
	// gradient evaluations and seconds are charged to the run, and its
	// per-coordinate scales, clamped to [TrainedScaleMin, TrainedScaleMax],
	// become Inputs.Scales under ScaleAuto (ScaleGiven).
	FirstTrained First = "trained"
)

// CandidateInit selects where the Approx-LMO of each new particle starts; the
// empty text is InitAuto.
type CandidateInit string

const (
	// InitAuto is InitSVGD when particle.Start.Particles (SVGD particles) or Inputs.SVGD is
	// set, InitLaplace (the best of DefaultStarts draws where the run has
	// z) when the run's scale is ScaleBandwidth, whose noise would
	// otherwise be in the bandwidth's units, and InitPerturb when it is
	// already the target's (ScaleTarget, ScaleLaplace, ScaleGiven)
	// (docs/DECISIONS.md, "The LMO's candidate start").
	InitAuto CandidateInit = ""
	// InitPrior starts from a prior draw (the paper).
	InitPrior CandidateInit = "prior"
	// InitSVGD starts the n-th particle from row n of
	// the SVGD particles particle.Start.Particles (the SVGD→MMD-FW combination); past the last
	// row the rows are reused, perturbed as in InitPerturb.
	InitSVGD CandidateInit = "svgd"
	// InitPerturb starts from an existing particle, picked by
	// Settings.Pick, plus N(0, (Settings.Noise·h)² I) noise, h the kernel
	// bandwidth (N(0, Noise²Σ) with ScaleLaplace).
	InitPerturb CandidateInit = "perturb"
	// InitLaplace starts from a draw of N(x₁, Σ), a Gaussian at the first
	// particle x₁ in the target's own scales (the default under
	// ScaleBandwidth): Σ the Laplace covariance
	// (−∇²log p(x₁))⁻¹ of ScaleLaplace, or, with ScaleBandwidth, of a
	// Laplace fit made for the candidates alone (laplace.Fit, its
	// gradient evaluations charged to the run; the kernel and the LMO
	// steps keep the bandwidth's units); diag σ² with ScaleGiven; the unit
	// matrix in the whitened coordinates of ScaleTarget, i.e. the Laplace
	// fit at the MAP. Settings.Noise does not apply: each candidate is a
	// draw of an approximation of the target, the paper's prior draw in
	// the target's scale, so that it lands where the mass is rather than
	// one bandwidth from a particle that may itself lie in a tail.
	InitLaplace CandidateInit = "laplace"
)

// Scale selects the length scales of the candidates' noise and of the LMO
// steps; the empty text is ScaleAuto.
type Scale string

const (
	// ScaleAuto is ScaleGiven with Inputs.Scales or FirstTrained,
	// ScaleTarget where the run allows it (see ScaleTarget) and
	// ScaleBandwidth otherwise.
	ScaleAuto Scale = ""
	// ScaleBandwidth measures Noise and StepSize in units of the kernel
	// bandwidth h, the same in every coordinate.
	ScaleBandwidth Scale = "bandwidth"
	// ScaleLaplace fits the Laplace approximation N(x₁, Σ), Σ = (−∇²log
	// p(x₁))⁻¹, at the first particle x₁ (laplace.Fit, its 2d gradients
	// charged to the run): the noise of InitPerturb is N(0, Noise²Σ), the
	// first AdaGrad step of coordinate j is about StepSize·√Σⱼⱼ, and the
	// median heuristic, without SVGD particles or a pool, uses
	// MedianDraws draws of N(x₁, Σ) instead of the prior. The kernel
	// stays isotropic in x, so that on a posterior whose scales differ
	// widely its bandwidth fits one coordinate and misfits the others:
	// ScaleTarget whitens the kernel as well.
	ScaleLaplace Scale = "laplace"
	// ScaleGiven takes per-coordinate scales σ from Inputs.Scales (or,
	// with FirstTrained, from the training): the noise of InitPerturb is
	// N(0, Noise²·diag σ²), the first AdaGrad step of coordinate j is
	// about StepSize·σⱼ, and the median heuristic, without SVGD
	// particles, uses MedianDraws draws of N(x₁, diag σ²).
	ScaleGiven Scale = "given"
	// ScaleTarget runs MMD-FW in the target's own scales: in the
	// coordinates z = L⁻¹(x − x̂) of the Laplace fit N(x̂, LLᵀ) at the MAP x̂
	// (laplace.FitAtMAP from X0, the fit's and the MAP's gradient
	// evaluations charged to the run; a diagonal L above
	// laplace.DenseMaxDim dimensions), with unit scales there. The kernel
	// is then the RBF of ‖L⁻¹(x − y)‖ (random features likewise) with,
	// unless Bandwidth is given (in whitened units), the bandwidth
	// laplace.WhitenedBandwidth(d); the candidates' noise is N(0, Noise²Σ)
	// and the first AdaGrad step of the LMO moves by about StepSize
	// posterior standard deviations along the fit's axes. The particles are returned, and reported, in x. It is
	// what ScaleAuto becomes for a MAP or given start with candidates
	// in the target's scales (InitPerturb, its default there, or
	// InitLaplace) and no closed-form embedding, pool or SVGD particles,
	// whose coordinates are the target's.
	ScaleTarget Scale = "target"
)

// The clamp of the trained start's scales: optim.Result.Scale is +Inf on a
// coordinate whose score never moved and tiny on one the data pin hard,
// and neither is a usable step.
const (
	TrainedScaleMin = 1e-4
	TrainedScaleMax = 1.0
)

// Pick selects the existing particle that InitPerturb perturbs; the empty
// text is PickUniform.
type Pick string

const (
	// PickUniform picks every existing particle with equal probability.
	PickUniform Pick = "uniform"
	// PickByWeight picks particle i with probability |wᵢ| / Σⱼ|wⱼ|.
	PickByWeight Pick = "weight"
)

// Defaults of the zero Settings (docs/DECISIONS.md gives their reasons).
const (
	DefaultN               = 100
	DefaultMAPIterations   = 1000
	DefaultMAPGradTol      = 1e-6
	DefaultLMOSteps        = 100
	DefaultStepSize        = 0.1
	DefaultNoise           = 1.0
	DefaultLaplaceNoise    = 0.5 // Noise with ScaleLaplace
	DefaultJitter          = 1e-8
	DefaultScheduleC       = 3.0
	DefaultSteinIterations = 300
	DefaultPoolSize        = 1000
	DefaultPoolIterations  = 2000
	DefaultMedianDraws     = 200
	DefaultFeatures        = 200
	DefaultStarts          = 5 // Starts with InitLaplace when the run has z
)

// Settings configures Run. The zero value is usable: every field documents
// its default, and zero means that default. Negative values are refused by
// Validate (and so by Run). The reasons for the defaults are in
// docs/DECISIONS.md.
//
// The struct tags are the fields' names in experiment files (TOML) and in
// recorded settings (JSON); N, set by the caller for each run, and Inputs,
// the run's data and strategies, have none. What a run starts from, its
// start point and starting set (particle.Start), is an argument of Run and
// Init, as for every method.
//
// The fields are grouped by concern in anonymously embedded structs (the
// run frame, Candidates, LMO, Weighting, KernelSpec, MAPSearch), whose
// fields are the Settings' own in experiment files, in recorded settings
// and in Go (s.LMOSteps); only a composite literal names the group:
//
//	mmdfw.Settings{N: 30, LMO: mmdfw.LMO{LMOSteps: 20}, KernelSpec: mmdfw.KernelSpec{Bandwidth: 0.8}}
type Settings struct {
	// N is the number of particles with StopFixed and their ceiling with
	// StopKSD. Default DefaultN (100) with StopFixed, DefaultCeiling with
	// StopKSD.
	N int `toml:"-" json:"-"`

	// Frame is the run frame MMD-FW shares (its keys stop, ksd_size and
	// strict; NoDiagnostics): Stop StopKSD (the default with Stein
	// weights) ends the run once the weighted particles are as close to
	// the target in the kernel Stein discrepancy as KSDSize independent
	// draws are expected to be, N being a ceiling whose reaching flags the
	// result when it is worse than N draws (metric.CeilingFlagged);
	// StopFixed (the default with the other rules) after N particles.
	// MMD-FW's coordinates are its Scale, not Whiten, and a run is one
	// goroutine (Workers is not used).
	sampler.Frame

	// Candidates is where the particles come from: the first particle,
	// each LMO's starting point and the coordinates they are drawn in.
	Candidates

	// LMO is the Approx-LMO that moves a candidate to the next particle.
	LMO

	// Weighting is the rule and solver of the particles' weights.
	Weighting

	// KernelSpec is the run's kernel and the estimator of its embedding
	// zᵢ = μ_p(xᵢ).
	KernelSpec

	// MAPSearch is the L-BFGS search for the MAP of the MAP starts and of
	// ScaleTarget.
	MAPSearch

	// Inputs is what the run is given beside its settings: data and
	// strategies that cannot be written to a file (see Inputs). It has no
	// key in experiment files and is no part of the recorded settings
	// (nor of a cache key); the zero value asks for none.
	Inputs Inputs `toml:"-" json:"-"`
}

// Candidates groups the settings of where MMD-FW's particles come from
// (Settings.Candidates; its keys are the Settings' own).
type Candidates struct {
	// First selects the first particle. Default FirstAuto.
	First First `toml:"start" json:"start,omitempty"`
	// CandidateInit selects the starting point of each LMO. Default InitAuto.
	CandidateInit CandidateInit `toml:"init" json:"init,omitempty"`
	// Pick selects the particle InitPerturb perturbs. Default PickUniform.
	Pick Pick `toml:"pick" json:"pick,omitempty"`
	// Starts is the number of candidate starts drawn for each LMO (by
	// Init); the run keeps the one with the smallest LMO objective
	// F_n(x) = Σᵢ wᵢ k(x, xᵢ) − μ_p(x), which needs z (an exact embedding
	// or a pool): it costs Starts·n kernel and Starts embedding
	// evaluations per particle, no score. Default DefaultStarts (5) with
	// InitLaplace when the run has z, 1 otherwise.
	Starts int `toml:"starts" json:"starts,omitempty"`
	// Noise is the standard deviation of InitPerturb in units of the
	// bandwidth h, or of the Laplace covariance with ScaleLaplace.
	// Default DefaultNoise (1), DefaultLaplaceNoise (0.5) with ScaleLaplace.
	Noise float64 `toml:"noise" json:"noise,omitempty"`
	// Scale selects the units of Noise and StepSize. Default ScaleAuto.
	Scale Scale `toml:"scale" json:"scale,omitempty"`
	// LaplaceBatch is the fixed minibatch of the Laplace fit's gradients
	// (laplace.FitSettings.Batch); 0 uses full-data gradients. Default 0.
	LaplaceBatch int `toml:"laplace_batch" json:"laplace_batch,omitempty"`
}

// LMO groups the settings of MMD-FW's Approx-LMO (Settings.LMO; its keys
// are the Settings' own).
type LMO struct {
	// Direction selects the LMO direction. Default Self.
	Direction Direction `toml:"direction" json:"direction,omitempty"`
	// LMOSteps is the number T of gradient steps of each Approx-LMO.
	// Default DefaultLMOSteps (100).
	LMOSteps int `toml:"lmo_steps" json:"lmo_steps,omitempty"`
	// StepSize is the AdaGrad step ε of the LMO in units of the kernel
	// bandwidth h: the first step moves each coordinate by about ε·h
	// (ε·√Σⱼⱼ with ScaleLaplace). Default DefaultStepSize (0.1).
	StepSize float64 `toml:"step_size" json:"step_size,omitempty"`
	// Batch is the minibatch size of the candidate's score in the Self
	// direction (target.Stochastic); 0 uses the full-data score. The cached
	// scores of the particles are always full-data. Default 0.
	Batch int `toml:"batch" json:"batch,omitempty"`
}

// Weighting groups the settings of MMD-FW's weights (Settings.Weighting;
// its keys are the Settings' own).
type Weighting struct {
	// Weights selects the weight rule. Default RuleAuto.
	Weights Rule `toml:"weights" json:"weights,omitempty"`
	// ScheduleC is c of the Schedule rule ρₙ = c/(n+c). Default
	// DefaultScheduleC (3).
	ScheduleC float64 `toml:"schedule_c" json:"schedule_c,omitempty"`
	// Jitter is λ of (K + λI) w = z relative to the kernel's diagonal
	// k(x, x). Default DefaultJitter (1e-8).
	Jitter float64 `toml:"jitter" json:"jitter,omitempty"`
	// RawWeights reports the BQ weights as solved. By default the reported
	// weights (snapshots and result) are rescaled to sum to one, while the
	// run itself keeps its own weights, so the particles do not change: BQ
	// weights are not constrained to the simplex and their sum falls below
	// one when the RKHS lacks the constants (RBF), which biases expectations
	// and predictive probabilities (docs/DECISIONS.md). The other rules'
	// weights already sum to one.
	RawWeights bool `toml:"raw_weights" json:"raw_weights,omitempty"`
	// SteinIterations is the number of projected-gradient iterations per
	// particle of the FISTA weight solver (WeightSolver "fista"). Default
	// DefaultSteinIterations (300).
	SteinIterations int `toml:"stein_iterations" json:"stein_iterations,omitempty"`
	// WeightSolver selects the solver of the Stein and MMD rules. Default
	// SolverAuto, pairwise Frank-Wolfe (docs/DECISIONS.md, "The weight
	// solver").
	WeightSolver WeightSolver `toml:"weight_solver" json:"weight_solver,omitempty"`
	// WeightTol is the pairwise solver's tolerance: a solve stops once the
	// Frank-Wolfe gap, a bound on F(w) − min F, is at most WeightTol·F(w).
	// Default DefaultWeightTol (1e-4).
	WeightTol float64 `toml:"weight_tol" json:"weight_tol,omitempty"`
	// WeightIterations is the pairwise solver's ceiling on iterations per
	// particle; a solve that reaches it is counted in Result.Weights and
	// flagged in the set's diagnostics. Default DefaultWeightIter (10000).
	WeightIterations int `toml:"weight_iterations" json:"weight_iterations,omitempty"`
}

// KernelSpec groups the settings of MMD-FW's kernel and of the estimator
// of its embedding (Settings.KernelSpec; its keys are the Settings' own).
type KernelSpec struct {
	// Z selects the estimator of zᵢ = μ_p(xᵢ). Default ZAuto.
	Z ZSource `toml:"z" json:"z,omitempty"`
	// PoolSize is the size of the pool PoolSampler draws. Default
	// DefaultPoolSize (1000).
	PoolSize int `toml:"pool_size" json:"pool_size,omitempty"`
	// PoolIterations is the length of each chain of the SGLD pool
	// (pools.SGLD, which pools.Fill gives a ZPool run without Pool or
	// PoolSampler). Default DefaultPoolIterations (2000).
	PoolIterations int `toml:"pool_iterations" json:"pool_iterations,omitempty"`

	// Kernel selects RBF or its random features. Default RBFKernel.
	Kernel KernelKind `toml:"kernel" json:"kernel,omitempty"`
	// Features is D of RFFKernel. Default DefaultFeatures (200). It must be
	// zero with RBFKernel.
	Features int `toml:"features" json:"features,omitempty"`
	// Bandwidth is h. Default 0: the median heuristic h = median pairwise
	// distance of an initial set (the SVGD particles, particle.Start.Particles, else MedianDraws draws of
	// the Laplace approximation with ScaleLaplace, else the pool, else
	// MedianDraws prior draws, else, on a target without a prior,
	// MedianDraws draws around the first particle, Inputs.LocalSampler's),
	// computed once and then frozen.
	Bandwidth float64 `toml:"bandwidth" json:"bandwidth,omitempty"`
	// MedianDraws is the number of draws of the median heuristic. Default
	// DefaultMedianDraws (200).
	MedianDraws int `toml:"median_draws" json:"median_draws,omitempty"`
}

// MAPSearch groups the settings of MMD-FW's MAP search (Settings.MAPSearch;
// its keys are the Settings' own).
type MAPSearch struct {
	// MAPIterations bounds the L-BFGS major iterations. Default
	// DefaultMAPIterations (1000).
	MAPIterations int `toml:"map_iterations" json:"map_iterations,omitempty"`
	// MAPGradTol stops L-BFGS when ‖∇log p‖∞ < MAPGradTol·max(1, |log p|)
	// (laplace.MAPSettings.GradTol). Default DefaultMAPGradTol (1e-6).
	MAPGradTol float64 `toml:"map_grad_tol" json:"map_grad_tol,omitempty"`
	// MAPBatch is the minibatch size of the L-BFGS gradients of a
	// target.Stochastic (a fixed batch per evaluated point); 0 or a size ≥
	// NData uses full-data gradients. Default 0.
	MAPBatch int `toml:"map_batch" json:"map_batch,omitempty"`
	// MAPNewtonTol also stops L-BFGS when the Newton decrement
	// √(gᵀ(−∇²log p)⁻¹g) falls below it (in posterior sd), on a target
	// with an exact Hessian (laplace.MAPSettings.NewtonTol). Default 0:
	// not checked.
	MAPNewtonTol float64 `toml:"map_newton_tol" json:"map_newton_tol,omitempty"`
}

// Validate returns a *setting.Error naming the first field that is
// negative, not finite, or contradicts another, and nil when s is valid.
// Zero fields are valid: they take their defaults.
func (s Settings) Validate() error {
	if err := setting.NonNegative(
		"particles", s.N, "starts", s.Starts, "noise", s.Noise, "laplace_batch", s.LaplaceBatch, "lmo_steps", s.LMOSteps,
		"step_size", s.StepSize, "batch", s.Batch, "schedule_c", s.ScheduleC, "jitter", s.Jitter,
		"stein_iterations", s.SteinIterations, "pool_size", s.PoolSize, "pool_iterations", s.PoolIterations,
		"features", s.Features, "bandwidth", s.Bandwidth, "median_draws", s.MedianDraws,
		"map_iterations", s.MAPIterations, "map_grad_tol", s.MAPGradTol, "map_batch", s.MAPBatch,
		"weight_tol", s.WeightTol, "weight_iterations", s.WeightIterations,
	); err != nil {
		return err
	}
	if err := s.validateSolver(); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"noise", s.Noise}, {"step_size", s.StepSize}, {"schedule_c", s.ScheduleC}, {"jitter", s.Jitter},
		{"bandwidth", s.Bandwidth}, {"map_grad_tol", s.MAPGradTol}} {
		if math.IsInf(f.v, 0) {
			return setting.Errorf(f.name, f.v, "must be finite")
		}
	}
	if err := s.validateEnums(); err != nil {
		return err
	}
	if s.Kernel != RFFKernel && s.Features != 0 {
		return setting.Errorf("features", s.Features, `needs kernel = "rff"`)
	}
	if math.IsInf(s.MAPNewtonTol, 0) || math.IsNaN(s.MAPNewtonTol) || s.MAPNewtonTol < 0 {
		return setting.Errorf("map_newton_tol", s.MAPNewtonTol, "must be finite and non-negative")
	}
	return s.validateScale()
}

// defaults fills the zero fields of s; the choices that depend on what the
// run is given (the SVGD particles, Scales, an embedding, a pool) read in.
func (s *Settings) defaults(in *given) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.MAPIterations, DefaultMAPIterations)
	deff(&s.MAPGradTol, DefaultMAPGradTol)
	def(&s.LMOSteps, DefaultLMOSteps)
	deff(&s.StepSize, DefaultStepSize)
	deff(&s.Jitter, DefaultJitter)
	deff(&s.ScheduleC, DefaultScheduleC)
	def(&s.SteinIterations, DefaultSteinIterations)
	s.solverDefaults()
	def(&s.PoolSize, DefaultPoolSize)
	def(&s.PoolIterations, DefaultPoolIterations)
	def(&s.MedianDraws, DefaultMedianDraws)
	def(&s.Features, DefaultFeatures)
	if s.Direction == DirectionAuto {
		s.Direction = Self
	}
	if s.First == FirstAuto {
		if in.SVGDParticles != nil || in.SVGD != nil {
			s.First = firstSVGD
		} else {
			s.First = FirstMAP
		}
	}
	if s.Scale == ScaleAuto {
		switch {
		case in.Scales != nil || s.First == FirstTrained:
			s.Scale = ScaleGiven
		case s.targetScalable(in):
			s.Scale = ScaleTarget
		default:
			s.Scale = ScaleBandwidth
		}
	}
	if s.Scale == ScaleLaplace {
		deff(&s.Noise, DefaultLaplaceNoise)
	} else {
		deff(&s.Noise, DefaultNoise)
	}
	if s.CandidateInit == InitAuto {
		if in.SVGDParticles != nil || in.SVGD != nil {
			s.CandidateInit = InitSVGD
		} else if s.Scale == ScaleBandwidth {
			s.CandidateInit = InitLaplace
		} else {
			s.CandidateInit = InitPerturb
		}
	}
	if s.Z == ZAuto {
		switch {
		case in.Embed != nil:
			s.Z = ZExact
		case in.Pool != nil || in.PoolSampler != nil:
			s.Z = ZPool
		}
	}
	if s.Starts == 0 {
		s.Starts = 1
		if s.Z != ZAuto && s.CandidateInit == InitLaplace {
			s.Starts = DefaultStarts
		}
	}
	if s.Weights == RuleAuto {
		if s.Z != ZAuto {
			s.Weights = BQ
		} else {
			s.Weights = Stein
		}
	}
	s.resolveStop()
}

// firstSVGD starts at the first SVGD particle (FirstAuto with SVGD
// particles).
const firstSVGD First = "svgd"
