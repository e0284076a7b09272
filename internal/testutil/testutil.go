package testutil

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// FDStep is the step h of CentralDiff.
const FDStep = 1e-6

// FDTol is the largest relative error CheckGrad accepts.
const FDTol = 1e-5

// RandVec returns d independent N(0, scale²) draws.
func RandVec(rng *rand.Rand, d int, scale float64) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

// RandDense returns an n×d matrix of independent N(0, 1) entries, drawn row
// by row.
func RandDense(rng *rand.Rand, n, d int) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row := m.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
	}
	return m
}

// Gaussian returns N(m, Σ) in d dimensions with m ∼ N(0, I) and
// Σ = 0.3 AAᵀ + 0.5 I for a d×d matrix A of N(0, 1) entries (A drawn first).
func Gaussian(tb testing.TB, rng *rand.Rand, d int) *target.Gaussian {
	tb.Helper()
	a := RandDense(rng, d, d)
	var cov mat.SymDense
	cov.SymOuterK(0.3, a)
	for i := 0; i < d; i++ {
		cov.SetSym(i, i, cov.At(i, i)+0.5)
	}
	g, err := target.NewGaussian(RandVec(rng, d, 1), &cov)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// LogisticData returns n rows of p−1 features uniform on [0, 1] followed by
// a bias column of ones, and labels ±1 drawn from the logistic model at
// coefficients w ∼ N(0, I) (w drawn first, then each row's features and its
// label). model.NewLogistic(X, y) is then a posterior of dimension p+1.
func LogisticData(rng *rand.Rand, n, p int) (*mat.Dense, []float64) {
	X := mat.NewDense(n, p, nil)
	w := RandVec(rng, p, 1)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		var a float64
		for j := 0; j < p-1; j++ {
			row[j] = rng.Float64()
			a += w[j] * row[j]
		}
		row[p-1] = 1
		a += w[p-1]
		y[i] = 1
		if rng.Float64() > 1/(1+math.Exp(-a)) {
			y[i] = -1
		}
	}
	return X, y
}

// MeanSE returns the mean of v and its Monte Carlo standard error.
func MeanSE(v []float64) (mean, se float64) {
	var s, s2 float64
	for _, x := range v {
		s += x
		s2 += x * x
	}
	n := float64(len(v))
	mean = s / n
	return mean, math.Sqrt(math.Max(s2/n-mean*mean, 0) / n)
}

// CentralDiff returns the central difference of f in coordinate j of v with
// step FDStep. It leaves v unchanged.
func CentralDiff(f func([]float64) float64, v []float64, j int) float64 {
	p := append([]float64(nil), v...)
	m := append([]float64(nil), v...)
	p[j] += FDStep
	m[j] -= FDStep
	return (f(p) - f(m)) / (2 * FDStep)
}

// RelErr is |got − want| / max(|want|, floor).
func RelErr(got, want, floor float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), floor)
}

// CheckGrad reports, as errors of tb prefixed by name, every coordinate j in
// which grad, the claimed gradient of f at x, differs from CentralDiff by a
// relative error RelErr(fd, grad[j], 1e−8) above FDTol. It returns whether
// all coordinates passed.
func CheckGrad(tb testing.TB, name string, f func([]float64) float64, x, grad []float64) bool {
	tb.Helper()
	if len(grad) != len(x) {
		panic("testutil: gradient length does not match x")
	}
	ok := true
	for j := range x {
		fd := CentralDiff(f, x, j)
		if e := RelErr(fd, grad[j], 1e-8); e > FDTol {
			tb.Errorf("%s: ∂f/∂x%d = %v, central difference %v (relative error %.2g)", name, j, grad[j], fd, e)
			ok = false
		}
	}
	return ok
}

// SameBits reports whether a and b have the same shape and hold the same
// float64 bit patterns element by element: a comparison of two particle
// sets bit for bit (a NaN equals a NaN of the same bits, 0 and −0 differ).
func SameBits(a, b *mat.Dense) bool {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	if ra.Rows != rb.Rows || ra.Cols != rb.Cols {
		return false
	}
	for i := 0; i < ra.Rows; i++ {
		if !SameFloats(ra.Data[i*ra.Stride:i*ra.Stride+ra.Cols], rb.Data[i*rb.Stride:i*rb.Stride+rb.Cols]) {
			return false
		}
	}
	return true
}

// SameFloats reports whether a and b have the same length and hold the
// same float64 bit patterns.
func SameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// GaussianAndPosterior returns N((1, −1), [[1, .5], [.5, 2]]) and the
// posterior of a 2-d Gaussian mean under a N(0, I) prior given six fixed
// datapoints (a target.Stochastic): the two targets of the resume tests.
func GaussianAndPosterior(tb testing.TB) (*target.Gaussian, target.Target) {
	tb.Helper()
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		tb.Fatal(err)
	}
	ys := []float64{0.3, -0.2, 1.1, 0.8, -0.5, 0.1, 0.6, 0.9, -1.2, 0.4, 0.2, 0.7}
	post := target.NewPosterior(2, len(ys)/2, func(i int, x, grad []float64) float64 {
		var lp float64
		for j := 0; j < 2; j++ {
			r := ys[2*i+j] - x[j]
			lp -= r * r / 2
			grad[j] += r
		}
		return lp
	}, target.Prior{LogProbGrad: func(x, grad []float64) float64 {
		grad[0] -= x[0]
		grad[1] -= x[1]
		return -(x[0]*x[0] + x[1]*x[1]) / 2
	}})
	return g, post
}
