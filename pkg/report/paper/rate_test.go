package paper

import (
	"math"
	"testing"
)

// TestRateRule checks the claim-2 rule on series with known answers.
func TestRateRule(t *testing.T) {
	n := make([]float64, 40)
	for i := range n {
		n[i] = float64(i + 1)
	}
	logOf := func(f func(float64) float64) []float64 {
		l := make([]float64, len(n))
		for i, x := range n {
			l[i] = math.Log(f(x))
		}
		return l
	}
	for _, c := range []struct {
		name   string
		logm   []float64
		linear bool
		nmax   float64
	}{
		// 0.5·e^{−0.3N}: geometric R² = 1, 39·0.3/ln 10 ≈ 5.1 decades.
		{"geometric", logOf(func(x float64) float64 { return 0.5 * math.Exp(-0.3*x) }), true, 40},
		// N^{−2} falls 3.2 decades but is a power law: the log-log fit is exact.
		{"power law", logOf(func(x float64) float64 { return math.Pow(x, -2) }), false, 40},
		// Flat within noise: both fits poor, no decade of fall.
		{"flat", logOf(func(x float64) float64 { return 0.1 * (1 + 0.01*math.Sin(7*x)) }), false, 40},
		// Geometric to round-off at N = 20 (1e-13 of the start), then noise
		// at the floor: only N = 1…19 are fitted, and they are linear.
		{"floor", logOf(func(x float64) float64 {
			if x < 20 {
				return math.Exp(-1.5 * x)
			}
			return 1e-16 * (1 + 0.5*math.Sin(x))
		}), true, 19},
		// A geometric fall of only half a decade is not enough.
		{"short fall", logOf(func(x float64) float64 { return math.Exp(-0.03 * x) }), false, 40},
	} {
		r := rateTest(n, c.logm)
		if r.Linear != c.linear {
			t.Errorf("%s: linear %v, want %v (%+v)", c.name, r.Linear, c.linear, r)
		}
		if r.Geometric.XMax != c.nmax {
			t.Errorf("%s: fitted up to N = %g, want %g", c.name, r.Geometric.XMax, c.nmax)
		}
	}
	// The power law's exponent is recovered exactly.
	r := rateTest(n, logOf(func(x float64) float64 { return 3 / x }))
	if !near(r.Power.Slope, -1, 1e-12) || !near(r.Power.R2, 1, 1e-12) || r.Geometric.R2 >= r.Power.R2 {
		t.Errorf("1/N: power fit %+v, geometric %+v", r.Power, r.Geometric)
	}
	// The geometric rate is recovered exactly, with its decades.
	r = rateTest(n, logOf(func(x float64) float64 { return math.Exp(-0.3 * x) }))
	if !near(r.Geometric.Slope, -0.3, 1e-12) || !near(r.Decades, 0.3*39/math.Ln10, 1e-9) {
		t.Errorf("e^{−0.3N}: %+v", r)
	}
}

// A series that falls fast and then flattens on a floor far below its
// start is linear up to the floor; a power law, or a steady fall without a
// floor, has none.
func TestTailFloor(t *testing.T) {
	var n, floored, steady, power []float64
	for i := 1; i <= 200; i++ {
		x := float64(i)
		n = append(n, x)
		// 0.1 decade per particle to 10⁻¹⁰ at N = 100, then a floor
		// that drifts 0.3 decade over the next hundred.
		v := -0.1 * x
		if i > 100 {
			v = -10 - 0.003*(x-100) + 0.05*math.Sin(x)
		}
		floored = append(floored, v*math.Ln10)
		steady = append(steady, -0.05*x*math.Ln10)
		power = append(power, -3*math.Log(x))
	}
	rt := rateTest(n, floored)
	if !rt.TailFloor || rt.FloorN < 90 || rt.FloorN > 100 || !rt.Linear || rt.Geometric.XMax != rt.FloorN {
		t.Errorf("floored: floor %v at N %v, fit to %v, linear %v; want the fit to end within a decade of the floor (N 90–100) and linear up to it", rt.TailFloor, rt.FloorN, rt.Geometric.XMax, rt.Linear)
	}
	if l := math.Log10(rt.FloorLevel); l > -10 || l < -10.6 {
		t.Errorf("floor level 10^%.2f, want about 10^-10.3", l)
	}
	if rt := rateTest(n, steady); rt.TailFloor || !rt.Linear || rt.Geometric.XMax != 200 {
		t.Errorf("steady: floor %v, linear %v, fit to %v; want no floor, linear over all N", rt.TailFloor, rt.Linear, rt.Geometric.XMax)
	}
	if rt := rateTest(n, power); rt.TailFloor || rt.Linear {
		t.Errorf("power law N⁻³ (6.9 decades): floor %v, linear %v; want neither", rt.TailFloor, rt.Linear)
	}
}
