package mmdfw

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Inputs is what an MMD-FW run is given beside its target, its start
// (particle.Start) and its Settings: data (a pool, per-coordinate scales,
// a training target) and strategies (the samplers of its SVGD particles,
// pool and bandwidth draws, its embedding). None of it can be written to
// an experiment file; the other fields of Settings hold what can. It is
// the field Settings.Inputs (tagged so that no file or recorded setting
// sees it), so that Run has the arguments of every method's Run.
//
// The zero value asks for nothing and means each field's default.
// pkg/mmdfw/pools fills the samplers of the other methods of this module
// (pools.Fill). A run does not modify its Inputs.
type Inputs struct {
	// Train configures the training of FirstTrained (nil: optim.Train's
	// defaults, without validation).
	Train *optim.Settings
	// TrainTarget is the target FirstTrained trains on (default the run's
	// target), e.g. the posterior on the training rows that are not held
	// out for Train.Validate.
	TrainTarget target.Stochastic
	// Scales are the per-coordinate scales σ of ScaleGiven (length Dim,
	// finite and positive); with FirstTrained they default to the
	// training's.
	Scales []float64

	// SVGD, when set and the start has no Particles, draws the SVGD
	// particles first (the SVGD→MMD-FW combination): the run calls it once
	// with N as the size and its own stream as the source, uses the result
	// as its SVGD particles (see particle.Start.Particles) and charges its
	// time and gradient evaluations to the run. pools.SVGD
	// (pkg/mmdfw/pools) runs svgd.Run.
	SVGD PoolSampler
	// LocalSampler draws the initial set of the median heuristic on a
	// target without a prior when no other law is known (see
	// Settings.Bandwidth): MedianDraws points around the first particle,
	// its gradient evaluations charged to the run. Default (nil): draws of
	// the Laplace fit at the MAP found from the first particle.
	// pools.SGLDLocal runs a short SGLD there.
	LocalSampler LocalSampler

	// Embed returns the closed-form embedding of the target for the run's
	// kernel (ZExact). The kernel is a kernel.RBF or an *rff.Features;
	// GaussianEmbedding adapts a target.Gaussian.
	Embed func(k Kernel) (Embedder, error)
	// Pool is a separate sample pool (rows) for ZPool, drawn by the caller
	// (its cost is not charged to the run).
	Pool *mat.Dense
	// PoolSampler draws the pool when Pool is nil (ZPool); its time and
	// gradient evaluations are charged to the run. ZPool needs one of
	// them: pools.SGLD(PoolIterations) and pools.HMC (pkg/mmdfw/pools)
	// draw one by SGLD or HMC.
	PoolSampler PoolSampler
}

// given is what one run reads beside its Settings: the caller's Inputs
// and its start, X0 the first particle of FirstGiven and the L-BFGS
// starting point of FirstMAP and FirstTrained, SVGDParticles the SVGD
// particles (rows) of InitSVGD, firstSVGD and the median heuristic.
type given struct {
	Inputs
	X0            []float64
	SVGDParticles *mat.Dense
}

// newGiven returns what a run from start with in reads.
func newGiven(start particle.Start, in Inputs) *given {
	return &given{Inputs: in, X0: start.X0, SVGDParticles: start.Particles}
}

// check returns a *setting.Error naming the first setting of s (before its
// defaults) that the inputs contradict, or an input that is invalid; nil
// when they agree.
func (in *given) check(s *Settings) error {
	for j, v := range in.Scales {
		if !(v > 0) || math.IsInf(v, 0) {
			return setting.Errorf("scales", v, "coordinate %d must be finite and positive", j)
		}
	}
	switch {
	case s.Scale == ScaleGiven && in.Scales == nil && s.First != FirstTrained:
		return setting.Errorf("scale", s.Scale, `needs Scales or start "trained"`)
	case in.Scales != nil && s.Scale != ScaleGiven && s.Scale != ScaleAuto:
		return setting.Errorf("scale", s.Scale, `contradicts the given Scales (use "given")`)
	case (in.Train != nil || in.TrainTarget != nil) && s.First != FirstTrained:
		return setting.Errorf("start", s.First, `a Train or TrainTarget needs start "trained"`)
	case s.Scale == ScaleLaplace && s.First == FirstTrained && in.Scales != nil:
		return setting.Errorf("scale", s.Scale, "contradicts the given Scales")
	}
	if s.Scale == ScaleTarget {
		switch {
		case in.SVGD != nil || in.SVGDParticles != nil:
			return setting.Errorf("scale", s.Scale, "needs candidates in the target's scales (init \"laplace\" or \"perturb\")")
		case in.Embed != nil || in.Pool != nil:
			return setting.Errorf("scale", s.Scale, "cannot take an embedding or a pool in the target's coordinates")
		case in.Scales != nil:
			return setting.Errorf("scale", s.Scale, "contradicts the given Scales")
		}
	}
	return nil
}
