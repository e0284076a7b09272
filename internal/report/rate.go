package report

import (
	"math"
)

// Thresholds of the claim-2 rule (verdict rules v2).
const (
	// MinDecades is the fewest decades by which the geometric fit of a
	// claim-2 series must fall over the N it was fitted to
	// (−r·(N_max − N_min)/ln 10 ≥ MinDecades): a curve flat within noise
	// is fitted by either line and is no convergence.
	MinDecades = 1.0
)

// RateTest is the claim-2 test of one MMD² series: the two straight lines
// fitted to the mean over splits of log MMD² at each N above the series'
// numerical floor, and whether the series is linear (geometric) by the
// rule.
type RateTest struct {
	// Geometric is log MMD² = a + b·N (a linear rate r = −b per particle).
	Geometric Fit
	// Power is log MMD² = a + c·log N (MMD² ∝ N^c, the O(1/N) family of
	// rates a kernel-herding or Monte Carlo estimate has for c = −1).
	Power Fit
	// Decades is how far the geometric line falls over the N fitted,
	// −b·(N_max − N_min)/ln 10.
	Decades float64
	// Linear is the rule's outcome: at least MinRatePoints points, b < 0,
	// the geometric fit has the smaller residual sum of squares (the larger
	// R², both fits being to the same points with two parameters), and
	// Decades ≥ MinDecades.
	Linear bool
}

// floorPoints returns the (N, log MMD²) points of a series' mean log MMD²
// above its numerical floor: N ≥ 1, finite, at least ZeroFloor times the
// series' largest value, and before the first N at which the series
// reaches that floor (past it, the values are rounding noise, whatever
// their size).
func floorPoints(n, logm []float64) (x, y []float64) {
	top := math.Inf(-1)
	for i := range logm {
		if finite(logm[i]) && n[i] >= 1 {
			top = math.Max(top, logm[i])
		}
	}
	floor := top + math.Log(ZeroFloor)
	for i := range logm {
		if n[i] < 1 {
			continue
		}
		if !finite(logm[i]) || logm[i] < floor {
			if len(x) > 0 {
				break
			}
			continue
		}
		x = append(x, n[i])
		y = append(y, logm[i])
	}
	return x, y
}

// TestRate applies the claim-2 rule to a series of MMD² against N (mean
// over splits of log MMD² at each N).
//
// Over the points above the numerical floor it fits
//
//	geometric: log MMD² = a + b·N
//	power law: log MMD² = a + c·log N
//
// by least squares. The series is linear when b < 0, the geometric fit's
// R² exceeds the power law's, and the geometric line falls at least
// MinDecades decades over the N fitted.
func TestRate(s *Series) RateTest {
	m, _ := s.LogMeanSD()
	return rateTest(s.X, m)
}

func rateTest(n, logm []float64) RateTest {
	x, y := floorPoints(n, logm)
	lx := make([]float64, len(x))
	for i := range x {
		lx[i] = math.Log(x[i])
	}
	t := RateTest{Geometric: FitLine(x, y), Power: FitLine(lx, y), Decades: math.NaN()}
	g := t.Geometric
	if g.N < MinRatePoints || !finite(g.Slope) || !finite(t.Power.R2) {
		return t
	}
	t.Decades = -g.Slope * (g.XMax - g.XMin) / math.Ln10
	t.Linear = g.Slope < 0 && g.R2 > t.Power.R2 && t.Decades >= MinDecades
	return t
}
