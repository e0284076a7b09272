package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/dense"
)

// SteinDirection writes the weighted Stein direction
//
//	φ(x) = Σᵢ wᵢ [k(xᵢ, x) sᵢ + ∇_{xᵢ}k(xᵢ, x)]
//
// of the particles in the rows of X (n×d), with cached scores in the rows
// of S (n×d) and weights w (length n), into dst (length d), and returns
// Σᵢ wᵢ k(xᵢ, x). With wᵢ = 1/n it is the SVGD update; for MMD-FW it is the
// estimate of −∇F(x) of the linear minimisation oracle, F(x) =
// Σᵢ wᵢ k(x, xᵢ) − μ_p(x), and the returned sum is the first term of F.
// It costs O(n·d) (for the RBF kernel through pkg/dense's distance
// and update kernels; rows of zero weight are not read) and allocates
// nothing. X and S may be views of larger matrices.
func (k RBF) SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64) float64 {
	n := checkDirection(dst, x, X, S, w)
	for j := range dst {
		dst[j] = 0
	}
	a := 1 / (2 * k.H * k.H)
	inv := 1 / (k.H * k.H)
	var sum float64
	for i := 0; i < n; i++ {
		if w[i] == 0 {
			// wᵢ·k = +0 adds nothing to the sum or the direction, so the
			// row is not read (most Stein weights are 0).
			continue
		}
		xi := X.RawRowView(i)
		xi = xi[:len(x)]
		kv := math.Exp(-a * dense.SqDist(xi, x))
		wk := w[i] * kv
		sum += wk
		if wk == 0 {
			continue
		}
		// ∇_{xᵢ}k(xᵢ, x) = −(xᵢ − x) k / h².
		si := S.RawRowView(i)
		si = si[:len(x)]
		dense.SteinAxpy(dst, x, xi, si, wk, wk*inv)
	}
	return sum
}

// SteinDirection writes the weighted Stein direction of the IMQ kernel; see
// RBF.SteinDirection. Here ∇_{xᵢ}k(xᵢ, x) = 2β(c² + r²)^(β−1) (xᵢ − x).
func (k IMQ) SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64) float64 {
	n := checkDirection(dst, x, X, S, w)
	for j := range dst {
		dst[j] = 0
	}
	var sum float64
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		xi = xi[:len(x)]
		var r2 float64
		for j, v := range x {
			u := xi[j] - v
			r2 += u * u
		}
		f, df, _ := k.Profile(r2)
		wk := w[i] * f
		sum += wk
		si := S.RawRowView(i)
		si = si[:len(x)]
		c := 2 * w[i] * df
		for j, v := range x {
			dst[j] += wk*si[j] + c*(xi[j]-v)
		}
	}
	return sum
}

func checkDirection(dst, x []float64, X, S *mat.Dense, w []float64) int {
	n, d := X.Dims()
	if r, c := S.Dims(); r != n || c != d {
		panic("kernel: dimension mismatch")
	}
	if len(x) != d || len(dst) != d || len(w) != n {
		panic("kernel: dimension mismatch")
	}
	return n
}
