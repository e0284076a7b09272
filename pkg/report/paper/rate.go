package paper

import (
	"math"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// MinRatePoints is the fewest particle counts a rate is fitted to.
const MinRatePoints = 3

// Thresholds of the claim-2 rule (verdict rules v2).
const (
	// MinDecades is the fewest decades by which the geometric fit of a
	// claim-2 series must fall over the N it was fitted to
	// (−r·(N_max − N_min)/ln 10 ≥ MinDecades): a curve flat within noise
	// is fitted by either line and is no convergence.
	MinDecades = 1.0
	// FloorMinDecades is how far below a series' largest value its tail
	// must sit to be a numerical floor (rounding or the jitter of the
	// weights' solve), not a statistical one: 6 decades.
	FloorMinDecades = 6.0
	// FloorFlatRatio is how much slower per particle than the fit before
	// it the tail of a series falls when it has flattened on its floor: at
	// most a fifth as fast.
	FloorFlatRatio = 0.2
)

// RateTest is the claim-2 test of one MMD² series: the two straight lines
// fitted to the mean over splits of log MMD² at each N above the series'
// numerical floor, and whether the series is linear (geometric) by the
// rule.
type RateTest struct {
	// Geometric is log MMD² = a + b·N (a linear rate r = −b per particle).
	Geometric report.Fit
	// Power is log MMD² = a + c·log N (MMD² ∝ N^c, the O(1/N) family of
	// rates a kernel-herding or Monte Carlo estimate has for c = −1).
	Power report.Fit
	// Decades is how far the geometric line falls over the N fitted,
	// −b·(N_max − N_min)/ln 10.
	Decades float64
	// Linear is the rule's outcome: at least MinRatePoints points, b < 0,
	// the geometric fit has the smaller residual sum of squares (the larger
	// R², both fits being to the same points with two parameters), and
	// Decades ≥ MinDecades.
	Linear bool
	// TailFloor is set when the series sits on a numerical floor found
	// from its own tail (tailFloor): FloorN is the first N within a decade
	// of it and FloorLevel its MMD² (the mean of the tail's log MMD²); the
	// fits stop at FloorN.
	TailFloor          bool
	FloorN, FloorLevel float64
}

// tailFloor finds a numerical floor from a series' own tail: the tail
// level F is the mean log MMD² of the last quarter of the points (at least
// three); it is a floor when it lies at least FloorMinDecades below the
// series' largest value and the series, from the first point within a
// decade of F (index k), falls at most FloorFlatRatio as fast per particle
// as the least-squares line through the points up to k, with at least
// MinRatePoints points before and three after. A series that falls fast
// and then flattens there is linear up to its floor: the test then fits
// the points up to k.
func tailFloor(x, y []float64) (k int, level float64, ok bool) {
	n := len(x)
	nt := max(3, n/4)
	if n < MinRatePoints+nt {
		return 0, 0, false
	}
	f, _ := report.MeanSD(y[n-nt:])
	top := math.Inf(-1)
	for _, v := range y {
		top = math.Max(top, v)
	}
	if (top-f)/math.Ln10 < FloorMinDecades {
		return 0, 0, false
	}
	k = -1
	for i, v := range y {
		if v <= f+math.Ln10 {
			k = i
			break
		}
	}
	if k+1 < MinRatePoints || n-k < 3 {
		return 0, 0, false
	}
	head, tail := report.FitLine(x[:k+1], y[:k+1]), report.FitLine(x[k:], y[k:])
	if !(head.Slope < 0) || !report.Finite(tail.Slope) || tail.Slope < FloorFlatRatio*head.Slope {
		return 0, 0, false
	}
	return k, f, true
}

// zeroFloorPoints returns the (N, log MMD²) points of a series' mean log
// MMD² above its rounding floor: N ≥ 1, finite, at least report.ZeroFloor times
// the series' largest value, and before the first N at which the series
// reaches that floor (past it, the values are rounding noise, whatever
// their size).
func zeroFloorPoints(n, logm []float64) (x, y []float64) {
	top := math.Inf(-1)
	for i := range logm {
		if report.Finite(logm[i]) && n[i] >= 1 {
			top = math.Max(top, logm[i])
		}
	}
	floor := top + math.Log(report.ZeroFloor)
	for i := range logm {
		if n[i] < 1 {
			continue
		}
		if !report.Finite(logm[i]) || logm[i] < floor {
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
// Over the points above the numerical floor (report.ZeroFloor of the largest
// value, and the floor tailFloor finds from the series' tail) it fits
//
//	geometric: log MMD² = a + b·N
//	power law: log MMD² = a + c·log N
//
// by least squares. The series is linear when b < 0, the geometric fit's
// R² exceeds the power law's, and the geometric line falls at least
// MinDecades decades over the N fitted.
func TestRate(s *report.Series) RateTest {
	m, _ := s.LogMeanSD()
	return rateTest(s.X, m)
}

func rateTest(n, logm []float64) RateTest {
	x, y := zeroFloorPoints(n, logm)
	k, level, floored := tailFloor(x, y)
	if floored {
		x, y = x[:k+1], y[:k+1]
	}
	lx := make([]float64, len(x))
	for i := range x {
		lx[i] = math.Log(x[i])
	}
	t := RateTest{Geometric: report.FitLine(x, y), Power: report.FitLine(lx, y), Decades: math.NaN(), FloorN: math.NaN(), FloorLevel: math.NaN()}
	if floored {
		t.TailFloor, t.FloorN, t.FloorLevel = true, x[k], math.Exp(level)
	}
	g := t.Geometric
	if g.N < MinRatePoints || !report.Finite(g.Slope) || !report.Finite(t.Power.R2) {
		return t
	}
	t.Decades = -g.Slope * (g.XMax - g.XMin) / math.Ln10
	t.Linear = g.Slope < 0 && g.R2 > t.Power.R2 && t.Decades >= MinDecades
	return t
}
