package report

import (
	"math"
	"slices"
	"sort"
)

// MeanSD returns the mean and the sample standard deviation (divisor n−1)
// of x. The deviation of a single value is 0: with one split there is no
// spread to show. Both are NaN for an empty x.
func MeanSD(x []float64) (mean, sd float64) {
	n := len(x)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	if n == 1 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(n-1))
}

// Fit is a least-squares straight line y = Intercept + Slope·x.
type Fit struct {
	Intercept, Slope float64
	// R2 is the coefficient of determination 1 − SS_res/SS_tot (1 when
	// the y values are all equal and fitted exactly).
	R2 float64
	// N is the number of points fitted.
	N int
	// XMin and XMax span the x of the points fitted (NaN when there is
	// none): a caller that drops points before fitting, as RateFit and
	// SeriesRate do, measures the line's fall over this range, not over
	// the x it was given.
	XMin, XMax float64
}

// FitLine fits y = a + b·x by ordinary least squares. It needs at least two
// distinct x; otherwise the fit is NaN.
func FitLine(x, y []float64) Fit {
	if len(x) != len(y) {
		panic("report: FitLine length mismatch")
	}
	n := len(x)
	f := Fit{Intercept: math.NaN(), Slope: math.NaN(), R2: math.NaN(), N: n, XMin: math.NaN(), XMax: math.NaN()}
	if n > 0 {
		f.XMin, f.XMax = slices.Min(x), slices.Max(x)
	}
	if n < 2 {
		return f
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return f
	}
	f.Slope = sxy / sxx
	f.Intercept = my - f.Slope*mx
	var ssr float64
	for i := range x {
		r := y[i] - f.Intercept - f.Slope*x[i]
		ssr += r * r
	}
	if syy == 0 {
		f.R2 = 1
		if ssr > 0 {
			f.R2 = 0
		}
	} else {
		f.R2 = 1 - ssr/syy
	}
	return f
}

// ZeroFloor is the MMD², relative to the largest of its series, below which
// a value is numerically zero: MMD² = wᵀKw − 2wᵀz + ∫∫kpp loses about
// 1e-16 of its terms' size to cancellation, so values under 1e-12 of the
// series' start are rounding noise, not convergence (a random-feature run
// whose particles span its D-dimensional feature space reaches them).
// Rate fits leave such points out, as they leave out non-positive ones.
const ZeroFloor = 1e-12

// RateFit fits log MMD² = a − r·N over the points with a positive, finite
// MMD² at least ZeroFloor times the largest: the straight line of a linearly (geometrically) converging method
// in a plot of log MMD² against N. Its rate is r = −Slope per particle.
func RateFit(n, mmd2 []float64) Fit {
	top := 0.0
	for _, v := range mmd2 {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			top = math.Max(top, v)
		}
	}
	var x, y []float64
	for i := range n {
		if mmd2[i] > 0 && mmd2[i] >= ZeroFloor*top && !math.IsInf(mmd2[i], 0) && !math.IsNaN(mmd2[i]) {
			x = append(x, n[i])
			y = append(y, math.Log(mmd2[i]))
		}
	}
	return FitLine(x, y)
}

// interp returns the linear interpolant of the points (x, y), x increasing,
// at t; NaN outside [x₀, x_last]. Repeated x keep the later y.
func interp(x, y []float64, t float64) float64 {
	n := len(x)
	if n == 0 || t < x[0] || t > x[n-1] {
		return math.NaN()
	}
	i := sort.Search(n, func(i int) bool { return x[i] >= t })
	if x[i] == t {
		// The last of equal x.
		for i+1 < n && x[i+1] == t {
			i++
		}
		return y[i]
	}
	x0, x1, y0, y1 := x[i-1], x[i], y[i-1], y[i]
	return y0 + (y1-y0)*(t-x0)/(x1-x0)
}

// grid returns n points from lo to hi, log-spaced when logScale.
func grid(lo, hi float64, n int, logScale bool) []float64 {
	if n < 2 || hi <= lo {
		return []float64{lo}
	}
	g := make([]float64, n)
	for i := range g {
		f := float64(i) / float64(n-1)
		if logScale {
			g[i] = math.Exp(math.Log(lo) + f*(math.Log(hi)-math.Log(lo)))
		} else {
			g[i] = lo + f*(hi-lo)
		}
	}
	g[0], g[n-1] = lo, hi
	return g
}
