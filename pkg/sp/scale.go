package sp

import (
	"cmp"
	"math"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
)

// Coordinates of a run (Settings.Whiten).
const (
	// WhitenLaplace places the points in the coordinates z = L⁻¹(x − x̂)
	// of the target's Laplace fit N(x̂, LLᵀ) at its MAP x̂
	// (laplace.FitAtMAP: L-BFGS from the start point X0, then the target's
	// exact Hessian where it offers one, else 2d gradients by central
	// differences; a diagonal L above laplace.DenseMaxDim dimensions),
	// whose gradient evaluations are charged to the run. The base kernel
	// is then the IMQ of ‖L⁻¹(x − y)‖ and the Stein kernel that of the
	// whitened target, whose discrepancy is that of x up to the constant
	// map; the first pool, the perturbations and the box are in posterior
	// standard deviations. The target's prior is not used for candidates
	// (its draws are far outside the posterior's scales). The points are
	// returned, and reported, in x.
	WhitenLaplace = "laplace"
	// WhitenNone searches in the target's own coordinates, as the
	// original.
	WhitenNone = "none"
)

// Stopping rules (Settings.Stop).
const (
	// StopKSD ends the run after point n once the points' KSD²_n (Cost.KSD2,
	// in the run's Stein kernel) is at most k̄/KSDSize, k̄ the mean of
	// k₀(xᵢ, xᵢ) over the points: the expected KSD² of KSDSize independent
	// draws of the target is E k₀(x, x)/KSDSize, so that the points are
	// then at least as close to it, in this discrepancy, as that many
	// draws. Points is the ceiling: a run that reaches it first is returned
	// with the flag "ceiling" in particle.Set.Diag when its points are
	// worse than as many independent draws in KSD² (metric.CeilingFlagged),
	// with the note "ceiling" (Diag.Notes) otherwise; Diag also records
	// "points" and "ksd_size" (k̄/KSD²_n, the number of independent draws
	// the points equal).
	StopKSD = "ksd"
	// StopFixed places exactly Points points.
	StopFixed = "fixed"
)

// Defaults of the stopping rule.
const (
	// DefaultCeiling is the zero Points with StopKSD.
	DefaultCeiling = 400
	// DefaultKSDSize is the zero KSDSize.
	DefaultKSDSize = 1000
)

// validateScale checks Whiten, Stop and KSDSize.
func (s Settings) validateScale() error {
	switch s.Whiten {
	case "", WhitenLaplace, WhitenNone:
	default:
		return setting.Errorf("whiten", s.Whiten, "is not one of %q", []string{WhitenLaplace, WhitenNone})
	}
	switch s.Stop {
	case "", StopKSD, StopFixed:
	default:
		return setting.Errorf("stop", s.Stop, "is not one of %q", []string{StopKSD, StopFixed})
	}
	if s.KSDSize < 0 {
		return setting.Errorf("ksd_size", s.KSDSize, "must not be negative")
	}
	return nil
}

// resolveScale fills Whiten, Stop, KSDSize, Points and, with
// WhitenLaplace, C for dimension d.
func (s *Settings) resolveScale(d int) {
	s.Whiten = cmp.Or(s.Whiten, WhitenLaplace)
	if s.Whiten == WhitenLaplace {
		s.C = cmp.Or(s.C, math.Sqrt(float64(d)))
	}
	s.Stop = cmp.Or(s.Stop, StopKSD)
	s.KSDSize = cmp.Or(s.KSDSize, DefaultKSDSize)
	if s.Stop == StopKSD {
		s.N = cmp.Or(s.N, DefaultCeiling)
	} else {
		s.N = cmp.Or(s.N, DefaultN)
	}
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
	set.Diag.Set("points", float64(n))
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
