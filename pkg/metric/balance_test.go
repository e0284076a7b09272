package metric

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// mix2 is π·N((−4, 0), I) + (1−π)·N((4, 0), I) in two dimensions.
func mix2(pi float64) target.Target {
	return target.Func{D: 2, F: func(x, g []float64) float64 {
		a := math.Log(pi) - 0.5*((x[0]+4)*(x[0]+4)+x[1]*x[1])
		b := math.Log(1-pi) - 0.5*((x[0]-4)*(x[0]-4)+x[1]*x[1])
		m := math.Max(a, b)
		lp := m + math.Log(math.Exp(a-m)+math.Exp(b-m))
		ra, rb := math.Exp(a-lp), math.Exp(b-lp)
		g[0] = -ra*(x[0]+4) - rb*(x[0]-4)
		g[1] = -x[1]
		return lp
	}}
}

// modeSet returns n draws, k of them from N((−4, 0), I) and the rest from
// N((4, 0), I), with equal weights.
func modeSet(n, k int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, 2, nil)
	w := make([]float64, n)
	for i := range n {
		c := 4.0
		if i < k {
			c = -4
		}
		X.Set(i, 0, c+rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		w[i] = 1
	}
	return X, w
}

// The mass-balance test flags a set that puts 0.67 or 0.74 of its weight
// on one of two equal, well-separated modes (as MMD-FW and SVGD did on a
// two-mode mixture), and not one that splits its weight as the target
// does (equal modes, or 0.3 and 0.7), nor a set of one Gaussian.
func TestBalance(t *testing.T) {
	for _, c := range []struct {
		name string
		pi   float64
		n, k int
		flag bool
	}{
		{"0.67 on one of equal modes", 0.5, 100, 67, true},
		{"0.74 on one of equal modes", 0.5, 100, 74, true},
		{"0.6 on one of equal modes, N = 30", 0.5, 30, 18, false}, // 2.5 standard errors of 30 draws are 0.23
		{"half on each", 0.5, 100, 50, false},
		{"0.3 and 0.7 as the target", 0.3, 100, 30, false},
		{"half on each of 0.3 and 0.7", 0.3, 100, 50, true},
		// Above BalanceMaxRows the split reads every k-th row.
		{"0.67 of 5,000 draws", 0.5, 5000, 3350, true},
		{"half of 5,000 draws", 0.5, 5000, 2500, false},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			X, w := modeSet(c.n, c.k, seed)
			tg := mix2(c.pi)
			S, lp := scored(tg, X)
			var d particle.Diagnostics
			DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: tg, Probes: MaxProbes})
			got := strings.Contains(flags(d), "balance")
			t.Logf("%s (seed %d): weight %.3g, mass %.3g", c.name, seed, d.Values["balance_weight"], d.Values["balance_mass"])
			if got != c.flag || d.Values["balance_mass"] == 0 {
				t.Errorf("%s (seed %d): flags %q, weight %.3g, mass %.3g; want balance %v", c.name, seed, d.Reason(),
					d.Values["balance_weight"], d.Values["balance_mass"], c.flag)
			}
			if m := d.Values["balance_mass"]; math.Abs(m-c.pi) > 0.075 && math.Abs(m-(1-c.pi)) > 0.075 {
				t.Errorf("%s (seed %d): estimated mass %.3g, want %g", c.name, seed, m, c.pi)
			}
		}
	}
	// Two tight groups on one Gaussian, 3 sds apart: well separated, but
	// the target has no trough between them, so no balance value.
	X2 := mat.NewDense(12, 2, nil)
	w2 := make([]float64, 12)
	for i := range 12 {
		c := -1.5
		if i >= 8 {
			c = 1.5
		}
		X2.Set(i, 0, c+0.05*float64(i%4))
		X2.Set(i, 1, 0.1*float64(i%3))
		w2[i] = 1
	}
	S2, lp2 := scored(normal2, X2)
	var d2 particle.Diagnostics
	DiagnoseSet(&d2, SetDiagnosis{X: X2, W: w2, S: S2, LogP: lp2, Target: normal2, Probes: MaxProbes})
	if _, ok := d2.Values["balance_mass"]; ok || strings.Contains(flags(d2), "balance") {
		t.Errorf("two groups on one Gaussian: values %v, flags %q", d2.Values, d2.Reason())
	}
	if _, _, _, _, _, ok := balanceSplit(X2, []float64{1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12, 1. / 12},
		[]float64{-0.5, 0.1}, []float64{1.4, 0.08}, mix2(0.5)); !ok {
		t.Error("the same groups on the two-mode mixture (a trough between them): no split")
	}

	// One Gaussian: no split, no balance value, and the probes all go to
	// the missed-mode test.
	rng := rand.New(rand.NewPCG(3, 4))
	X := mat.NewDense(100, 2, nil)
	w := make([]float64, 100)
	for i := range 100 {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, 2*rng.NormFloat64())
		w[i] = 1
	}
	S, lp := scored(normal2, X)
	var d particle.Diagnostics
	DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: normal2, Probes: MaxProbes})
	if _, ok := d.Values["balance_mass"]; ok || d.Flagged() || d.Values["probes"] != MaxProbes {
		t.Errorf("one Gaussian: values %v, flags %q", d.Values, d.Reason())
	}
}
