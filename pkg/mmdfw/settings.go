package mmdfw

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// Start selects the first particle.
type Start int

const (
	// StartAuto is the first SVGD particle when Settings.SVGDParticles or
	// Settings.SVGD is set and StartMAP otherwise.
	StartAuto Start = iota
	// StartMAP runs L-BFGS on −log p from a prior draw (or Settings.X0, or
	// the origin) and starts at the (near) MAP point, as the paper
	// recommends. Its gradient evaluations are charged to the run.
	StartMAP
	// StartPrior starts at a prior draw (target.PriorSampler).
	StartPrior
	// StartGiven starts at Settings.X0.
	StartGiven
)

// Init selects where the Approx-LMO of each new particle starts.
type Init int

const (
	// InitAuto is InitSVGD when Settings.SVGDParticles or Settings.SVGD is
	// set and
	// InitPerturb otherwise.
	InitAuto Init = iota
	// InitPrior starts from a prior draw (the paper).
	InitPrior
	// InitSVGD starts the n-th particle from row n of
	// Settings.SVGDParticles (the SVGD→MMD-FW combination); past the last
	// row the rows are reused, perturbed as in InitPerturb.
	InitSVGD
	// InitPerturb starts from an existing particle, picked by
	// Settings.Pick, plus N(0, (Settings.Noise·h)² I) noise, h the kernel
	// bandwidth (N(0, Noise²Σ) with ScaleLaplace).
	InitPerturb
)

// Scale selects the length scales of the candidates' noise and of the LMO
// steps.
type Scale int

const (
	// ScaleAuto is ScaleBandwidth.
	ScaleAuto Scale = iota
	// ScaleBandwidth measures Noise and StepSize in units of the kernel
	// bandwidth h, the same in every coordinate.
	ScaleBandwidth
	// ScaleLaplace fits the Laplace approximation N(x₁, Σ), Σ = (−∇²log
	// p(x₁))⁻¹, at the first particle x₁ (FitLaplace, its 2d gradients
	// charged to the run): the noise of InitPerturb is N(0, Noise²Σ), the
	// first AdaGrad step of coordinate j is about StepSize·√Σⱼⱼ, and the
	// median heuristic, without SVGD particles or a pool, uses
	// MedianDraws draws of N(x₁, Σ) instead of the prior.
	ScaleLaplace
)

// Pick selects the existing particle that InitPerturb perturbs.
type Pick int

const (
	// PickUniform picks every existing particle with equal probability.
	PickUniform Pick = iota
	// PickByWeight picks particle i with probability |wᵢ| / Σⱼ|wⱼ|.
	PickByWeight
)

// Settings configures Run. The zero value is usable: every field documents
// its default. The reasons for the defaults are in docs/DECISIONS.md.
type Settings struct {
	// N is the number of particles. Default 100.
	N int

	// Start selects the first particle. Default StartAuto.
	Start Start
	// X0 is the first particle for StartGiven and the L-BFGS starting point
	// for StartMAP (default: a prior draw, else the origin).
	X0 []float64
	// MAPIterations bounds the L-BFGS major iterations. Default 1000.
	MAPIterations int
	// MAPGradTol stops L-BFGS when ‖∇log p‖∞ < MAPGradTol·max(1, |log p|)
	// (MAPSettings.GradTol). Default 1e-6.
	MAPGradTol float64
	// MAPBatch is the minibatch size of the L-BFGS gradients of a
	// target.Stochastic (a fixed batch per evaluated point); 0 or a size ≥
	// NData uses full-data gradients. Default 0.
	MAPBatch int

	// LMOSteps is the number T of gradient steps of each Approx-LMO.
	// Default 100.
	LMOSteps int
	// StepSize is the AdaGrad step ε of the LMO in units of the kernel
	// bandwidth h: the first step moves each coordinate by about ε·h
	// (ε·√Σⱼⱼ with ScaleLaplace). Default 0.1.
	StepSize float64
	// Direction selects the LMO direction. Default Self.
	Direction Direction
	// Batch is the minibatch size of the candidate's score in the Self
	// direction (target.Stochastic); 0 uses the full-data score. The cached
	// scores of the particles are always full-data. Default 0.
	Batch int

	// Init selects the starting point of each LMO. Default InitAuto.
	Init Init
	// SVGDParticles (rows) are the SVGD particles for InitSVGD and for the
	// median heuristic.
	SVGDParticles *mat.Dense
	// SVGD, when set and SVGDParticles is nil, makes the run call svgd.Run
	// first with these settings (Particles defaults to N) and use its
	// particles as SVGDParticles; its time and gradient evaluations are
	// charged to the run.
	SVGD *svgd.Settings
	// Pick selects the particle InitPerturb perturbs. Default PickUniform.
	Pick Pick
	// Noise is the standard deviation of InitPerturb in units of the
	// bandwidth h, or of the Laplace covariance with ScaleLaplace.
	// Default 1, 0.5 with ScaleLaplace.
	Noise float64
	// Scale selects the units of Noise and StepSize. Default ScaleAuto.
	Scale Scale
	// LaplaceBatch is the fixed minibatch of the Laplace fit's gradients
	// (LaplaceSettings.Batch); 0 uses full-data gradients. Default 0.
	LaplaceBatch int

	// Weights selects the weight rule. Default RuleAuto.
	Weights Rule
	// Jitter is λ of (K + λI) w = z relative to the kernel's diagonal
	// k(x, x). Default 1e-8.
	Jitter float64
	// RawWeights reports the BQ weights as solved. By default the reported
	// weights (snapshots and result) are rescaled to sum to one, while the
	// run itself keeps its own weights, so the particles do not change: BQ
	// weights are not constrained to the simplex and their sum falls below
	// one when the RKHS lacks the constants (RBF), which biases expectations
	// and predictive probabilities (docs/DECISIONS.md). The other rules'
	// weights already sum to one.
	RawWeights bool
	// ScheduleC is c of the Schedule rule ρₙ = c/(n+c). Default 3.
	ScheduleC float64
	// SteinIterations is the number of projected-gradient iterations of the
	// Stein rule per particle. Default 300.
	SteinIterations int

	// Z selects the estimator of zᵢ = μ_p(xᵢ). Default ZAuto.
	Z ZSource
	// Embed returns the closed-form embedding of the target for the run's
	// kernel (ZExact). The kernel is a kernel.RBF or an *rff.Features;
	// GaussianEmbedding adapts a target.Gaussian.
	Embed func(k Kernel) (Embedder, error)
	// Pool is a separate sample pool (rows) for ZPool, drawn by the caller
	// (its cost is not charged to the run).
	Pool *mat.Dense
	// PoolSampler draws the pool when Pool is nil (ZPool); its time and
	// gradient evaluations are charged to the run.
	PoolSampler PoolSampler
	// PoolSize is the size of the pool PoolSampler draws. Default 1000.
	PoolSize int

	// Kernel selects RBF or its random features. Default RBFKernel.
	Kernel KernelKind
	// Bandwidth is h. Default 0: the median heuristic h = median pairwise
	// distance of an initial set (SVGDParticles, else MedianDraws draws of
	// the Laplace approximation with ScaleLaplace, else the pool, else
	// MedianDraws prior draws), computed once and then frozen.
	Bandwidth float64
	// MedianDraws is the number of Laplace or prior draws of the median
	// heuristic. Default 200.
	MedianDraws int
	// Features is D of RFFKernel. Default 200.
	Features int
}

func (s *Settings) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&s.N, 100)
	def(&s.MAPIterations, 1000)
	deff(&s.MAPGradTol, 1e-6)
	def(&s.LMOSteps, 100)
	deff(&s.StepSize, 0.1)
	deff(&s.Jitter, 1e-8)
	deff(&s.ScheduleC, 3)
	def(&s.SteinIterations, 300)
	def(&s.PoolSize, 1000)
	def(&s.MedianDraws, 200)
	def(&s.Features, 200)
	if s.Direction == DirectionAuto {
		s.Direction = Self
	}
	if s.Start == StartAuto {
		if s.SVGDParticles != nil || s.SVGD != nil {
			s.Start = startSVGD
		} else {
			s.Start = StartMAP
		}
	}
	if s.Scale == ScaleAuto {
		s.Scale = ScaleBandwidth
	}
	if s.Scale == ScaleLaplace {
		deff(&s.Noise, 0.5)
	} else {
		deff(&s.Noise, 1)
	}
	if s.Init == InitAuto {
		if s.SVGDParticles != nil || s.SVGD != nil {
			s.Init = InitSVGD
		} else {
			s.Init = InitPerturb
		}
	}
	if s.Z == ZAuto {
		switch {
		case s.Embed != nil:
			s.Z = ZExact
		case s.Pool != nil || s.PoolSampler != nil:
			s.Z = ZPool
		}
	}
	if s.Weights == RuleAuto {
		if s.Z != ZAuto {
			s.Weights = BQ
		} else {
			s.Weights = Stein
		}
	}
}

// startSVGD starts at the first SVGD particle (StartAuto with SVGD
// particles).
const startSVGD Start = -1
