package mmdfw

import (
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
)

// The run frame's stopping rules (sampler.Frame) that MMD-FW takes.
const (
	// StopKSD ends the run after particle n once the kernel Stein
	// discrepancy of the weighted particles, KSD²ₙ = wᵀK₀w in the Stein
	// kernel K₀ of the Stein weights (base: the RBF kernel of the run's
	// bandwidth, in the run's coordinates), is at most k̄/KSDSize, k̄ =
	// Σᵢ wᵢ k₀(xᵢ, xᵢ): the expected KSD² of KSDSize independent draws of
	// the target is E k₀(x, x)/KSDSize, so that the particles are then at
	// least as close to it, in this discrepancy, as that many draws. N is
	// the ceiling (see sampler.StopKSD); Diag also records "particles" and
	// "ksd_size" (k̄/KSD²ₙ). It needs the Stein weights, whose K₀ the run
	// keeps.
	StopKSD = sampler.StopKSD
	// StopFixed adds exactly N particles.
	StopFixed = sampler.StopFixed
	// DefaultKSDSize is the zero KSDSize.
	DefaultKSDSize = sampler.DefaultKSDSize
)

// DefaultCeiling is the zero N with StopKSD.
const DefaultCeiling = 400

// rules is what of the run frame MMD-FW takes.
var rules = sampler.Rules{Stops: []sampler.Stop{StopKSD, StopFixed}, KSD: true}

// validateScale checks the frame and the starts ScaleTarget allows
// (given.check the inputs it allows).
func (s Settings) validateScale() error {
	if err := s.Frame.Validate(rules); err != nil {
		return err
	}
	if s.Stop == StopKSD && s.Weights != RuleAuto && s.Weights != Stein {
		return setting.Errorf("stop", s.Stop, "needs the Stein weights (weights %q)", s.Weights)
	}
	if s.Scale == ScaleTarget {
		switch {
		case s.First != FirstAuto && s.First != FirstMAP && s.First != FirstGiven:
			return setting.Errorf("scale", s.Scale, "needs a MAP or given start")
		case s.CandidateInit == InitPrior || s.CandidateInit == InitSVGD:
			return setting.Errorf("scale", s.Scale, "needs candidates in the target's scales (init \"laplace\" or \"perturb\")")
		case s.Z == ZExact:
			return setting.Errorf("scale", s.Scale, "cannot take an embedding or a pool in the target's coordinates")
		}
	}
	return nil
}

// targetScalable reports whether ScaleAuto may be ScaleTarget: a MAP or
// given start, candidates drawn around the first particle or perturbed
// from the particles, no embedding, pool or SVGD particles in the target's
// coordinates.
func (s *Settings) targetScalable(in *given) bool {
	return (s.First == FirstMAP || s.First == FirstGiven) &&
		(s.CandidateInit == InitAuto || s.CandidateInit == InitPerturb || s.CandidateInit == InitLaplace) &&
		in.SVGD == nil && in.SVGDParticles == nil &&
		in.Embed == nil && in.Pool == nil && in.PoolSampler == nil && s.Z == ZAuto
}

// resolveStop fills Stop, KSDSize and N once the weight rule is known.
func (s *Settings) resolveStop() {
	if s.Stop == "" {
		s.Stop = StopFixed
		if s.Weights == Stein {
			s.Stop = StopKSD
		}
	}
	s.Frame = s.Frame.Resolved(rules)
	s.N = s.Frame.Ceiling(s.N, DefaultCeiling, DefaultN)
}

// ksdStop is the state of StopKSD; a nil *ksdStop never stops.
type ksdStop struct {
	size  int
	n     int // the ceiling
	ksd2  float64
	equal float64 // k̄/KSD²
	done  bool
}

// ksdStop returns the stopping state of s, nil without StopKSD or Stein
// weights.
func (s *Settings) ksdStop() *ksdStop {
	if s.Stop != StopKSD || s.Weights != Stein {
		return nil
	}
	return &ksdStop{size: s.KSDSize, n: s.N}
}

// add checks the weighted particles of wt and reports whether they are
// close enough.
func (k *ksdStop) add(wt *weights) bool {
	if k == nil || wt.K0 == nil {
		return false
	}
	n, c := wt.n, wt.cap
	w := wt.w[:n]
	var q, kbar, tot float64
	for i, wi := range w {
		if wi == 0 {
			continue
		}
		row := wt.K0[i*c : i*c+n]
		var r float64
		for j, wj := range w {
			r += wj * row[j]
		}
		q += wi * r
		kbar += abs(wi) * row[i]
		tot += abs(wi)
	}
	if tot > 0 {
		q /= tot * tot
		kbar /= tot
	}
	k.ksd2 = q
	k.equal = kbar / q
	k.done = k.equal >= float64(k.size)
	return k.done
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// finish adds the run's diagnostics to set.
func (k *ksdStop) finish(set *particle.Set) {
	if set.X == nil {
		return
	}
	n, _ := set.X.Dims()
	set.Diag.Set("particles", float64(n))
	if k == nil {
		return
	}
	set.Diag.Set("ksd_size", k.equal)
	if !k.done && n >= k.n {
		if metric.CeilingFlagged(k.equal, n) {
			set.Diag.Raise("ceiling", "mmdfw: %d particles (the ceiling) with a KSD² of %.3g, that of %.0f independent draws, not %d, and fewer than the set's size",
				n, k.ksd2, k.equal, k.size)
		} else {
			set.Diag.Note("ceiling", "mmdfw: %d particles (the ceiling) with a KSD² of %.3g, that of %.0f independent draws: short of %d, no worse than %d independent draws",
				n, k.ksd2, k.equal, k.size, n)
		}
	}
}
