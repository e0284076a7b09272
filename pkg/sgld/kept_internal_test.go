package sgld

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestKeptSmallSet: on 12 kept draws (4 chains of 3) against 4,000
// monitored draws of N(0, I₂), a set whose mean is 0.7 sd off (z = 2.4,
// within FlagKeptZ) or whose sd is 0.3 of theirs is flagged "kept"; a set
// at the standard normal's quantiles is not.
func TestKeptSmallSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mon := mat.NewDense(4000, 2, nil)
	for i := range 4000 {
		mon.Set(i, 0, rng.NormFloat64())
		mon.Set(i, 1, rng.NormFloat64())
	}
	// Quantiles of N(0, 1) at (k+½)/12, in a scrambled order per column.
	q := []float64{-1.732, -1.150, -0.812, -0.549, -0.319, -0.105, 0.105, 0.319, 0.549, 0.812, 1.150, 1.732}
	set := func(shift, scale float64) *mat.Dense {
		x := mat.NewDense(12, 2, nil)
		for i := range 12 {
			x.Set(i, 0, shift+scale*q[i])
			x.Set(i, 1, scale*q[(5*i+3)%12])
		}
		return x
	}
	for _, c := range []struct {
		name         string
		shift, scale float64
		want         string
	}{
		{"close", 0, 1, ""},
		{"mean off", 0.7, 1, "sd (> 0.5) from"},
		{"narrow", 0, 0.3, "times the sd"},
		{"wide", 0, 2.5, "times the sd"},
	} {
		s := particle.Set{X: set(c.shift, c.scale), W: make([]float64, 12)}
		diagnoseKept(&s, s.X, mon, 4, 3)
		got := s.Diag.Reason()
		if (c.want == "") != !s.Diag.Flagged() || !strings.Contains(got, c.want) {
			t.Errorf("%s: flags %q, want %q", c.name, got, c.want)
		}
		if z := s.Diag.Values["kept_mean_z"]; c.name == "mean off" && !(z > 2 && z <= FlagKeptZ) {
			t.Errorf("%s: kept_mean_z %.3g, want within (2, %g]: the z rule alone would not flag it", c.name, z, FlagKeptZ)
		}
	}
}
