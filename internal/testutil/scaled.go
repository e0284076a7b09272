package testutil

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Gauss5 is the 5-dimensional Gaussian with means (1, −1, 2, 0, 0.5),
// variances (1, 4, 0.25, 1, 9) and correlations 0.5^|i−j|, on which the
// methods' zero-value Settings are checked.
func Gauss5(tb testing.TB) *target.Gaussian {
	tb.Helper()
	return correlated(tb, []float64{1, -1, 2, 0, 0.5}, []float64{1, 2, 0.5, 1, 3}, func(i, j int) float64 {
		return math.Pow(0.5, math.Abs(float64(i-j)))
	})
}

// BadlyScaled is a 4-dimensional Gaussian whose standard deviations,
// 0.01, 0.1, 1 and 10, span three orders of magnitude, with correlation
// 0.6 between the first two coordinates and −0.5 between the last two,
// and means (0.02, −0.3, 1, 20).
func BadlyScaled(tb testing.TB) *target.Gaussian {
	tb.Helper()
	return correlated(tb, []float64{0.02, -0.3, 1, 20}, []float64{0.01, 0.1, 1, 10}, func(i, j int) float64 {
		switch {
		case i+j == 1:
			return 0.6
		case i+j == 5:
			return -0.5
		}
		return 0
	})
}

func correlated(tb testing.TB, m, sd []float64, rho func(i, j int) float64) *target.Gaussian {
	d := len(m)
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			r := 1.0
			if i != j {
				r = rho(i, j)
			}
			cov.SetSym(i, j, r*sd[i]*sd[j])
		}
	}
	g, err := target.NewGaussian(m, cov)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// AsFunc returns g as a plain target.Func, without the prior sampler and
// everything else the type offers: a user's own posterior.
func AsFunc(g *target.Gaussian) target.Func {
	return target.Func{D: g.Dim(), F: g.LogProbGrad}
}

// Moments returns the largest |weighted mean − mean| over the coordinates
// in units of the target's standard deviation, and the smallest and
// largest ratio of a coordinate's weighted variance to the target's.
func Moments(set particle.Set, g *target.Gaussian) (dMean, vLo, vHi float64) {
	m := g.Mean()
	cov := g.Cov()
	mean := set.Mean(nil)
	vLo, vHi = math.Inf(1), math.Inf(-1)
	for j := range m {
		var v float64
		for i := 0; i < set.Len(); i++ {
			dx := set.X.At(i, j) - mean[j]
			v += set.W[i] * dx * dx
		}
		sd := math.Sqrt(cov.At(j, j))
		dMean = math.Max(dMean, math.Abs(mean[j]-m[j])/sd)
		r := v / (sd * sd)
		vLo, vHi = math.Min(vLo, r), math.Max(vHi, r)
	}
	return dMean, vLo, vHi
}

// CheckMoments reports as an error of tb, prefixed by name, a weighted
// mean farther than meanTol standard deviations from the target's in any
// coordinate, or a variance ratio outside [lo, hi], and logs the figures.
func CheckMoments(tb testing.TB, name string, set particle.Set, g *target.Gaussian, meanTol, lo, hi float64) {
	tb.Helper()
	dm, vlo, vhi := Moments(set, g)
	tb.Logf("%s: %d particles, max |Δmean|/sd %.3f (tolerance %.3f), variance ratios [%.3f, %.3f] (band [%g, %g])",
		name, set.Len(), dm, meanTol, vlo, vhi, lo, hi)
	if dm > meanTol || vlo < lo || vhi > hi {
		tb.Errorf("%s: max |Δmean|/sd %.3f (tolerance %.3f), variance ratios [%.3f, %.3f] outside [%g, %g]",
			name, dm, meanTol, vlo, vhi, lo, hi)
	}
}
