package sp

import (
	"cmp"
	"math"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

// The run frame's values (sampler.Frame) that Stein Points takes.
const (
	// WhitenLaplace (the default) searches the points in the whitened
	// coordinates of the Laplace fit; the target's prior is then not used
	// for candidates (its draws are far outside the posterior's scales).
	WhitenLaplace = sampler.WhitenLaplace
	// WhitenNone searches in the target's own coordinates, as the
	// original.
	WhitenNone = sampler.WhitenNone
	// StopKSD (the default) ends the run after point n once the points'
	// KSD²_n (Cost.KSD2, in the run's Stein kernel) is at most k̄/KSDSize,
	// k̄ the mean of k₀(xᵢ, xᵢ) over the points; N is the ceiling, and
	// Diag records "particles" and "ksd_size" (k̄/KSD²_n, the number of
	// independent draws the points equal). See sampler.StopKSD.
	StopKSD = sampler.StopKSD
	// StopFixed places exactly N points.
	StopFixed = sampler.StopFixed
	// DefaultKSDSize is the zero KSDSize.
	DefaultKSDSize = sampler.DefaultKSDSize
)

// DefaultCeiling is the zero N with StopKSD.
const DefaultCeiling = 400

// rules is what of the run frame Stein Points takes.
var rules = sampler.Rules{Stops: []sampler.Stop{StopKSD, StopFixed}, Whiten: true, KSD: true}

// resolveScale fills the frame, N and, with WhitenLaplace, C for
// dimension d.
func (s *Settings) resolveScale(d int) {
	s.Frame = s.Frame.Resolved(rules)
	if s.Whiten == WhitenLaplace {
		s.C = cmp.Or(s.C, math.Sqrt(float64(d)))
	}
	s.N = s.Frame.Ceiling(s.N, DefaultCeiling, DefaultN)
}

// ksdStop is the state of StopKSD; a nil *ksdStop never stops.
type ksdStop struct {
	size    int
	k0      float64 // Σ k₀(xᵢ, xᵢ) over the points
	ksd2    float64
	equal   float64 // k̄/KSD²_n
	done    bool
	k       float64 // the base kernel's −2βd c^(2(β−1))
	c2b     float64 // c^(2β)
	points  int
	ceiling int
}

// ksdStop returns the stopping state of s in dimension d, nil with
// StopFixed.
func (s Settings) ksdStop(d int) *ksdStop {
	if s.Stop != StopKSD {
		return nil
	}
	return &ksdStop{size: s.KSDSize, ceiling: s.N,
		k: -2 * s.Beta * float64(d) * math.Pow(s.C, 2*(s.Beta-1)), c2b: math.Pow(s.C, 2*s.Beta)}
}

// add takes point n (its score sc) and the cost so far and reports whether
// the points are close enough.
func (k *ksdStop) add(n int, sc []float64, c *Cost) bool {
	if k == nil {
		return false
	}
	var ss float64
	for _, v := range sc {
		ss += v * v
	}
	k.k0 += k.k + k.c2b*ss
	k.points = n
	k.ksd2 = c.KSD2(n)
	k.equal = k.k0 / float64(n) / k.ksd2
	k.done = k.equal >= float64(k.size)
	return k.done
}

// finish adds the run's diagnostics to set.
func (k *ksdStop) finish(set particle.Set, n int) particle.Set {
	if set.X == nil {
		return set
	}
	set.Diag.Set("particles", float64(n))
	if k == nil {
		return set
	}
	set.Diag.Set("ksd_size", k.equal)
	if !k.done && n >= k.ceiling {
		if metric.CeilingFlagged(k.equal, n) {
			set.Diag.Raise("ceiling", "sp: %d points (the ceiling) with a KSD² of %.3g, that of %.0f independent draws, not %d, and fewer than the set's size",
				n, k.ksd2, k.equal, k.size)
		} else {
			set.Diag.Note("ceiling", "sp: %d points (the ceiling) with a KSD² of %.3g, that of %.0f independent draws: short of %d, no worse than %d independent draws",
				n, k.ksd2, k.equal, k.size, n)
		}
	}
	return set
}
