package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"
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
// It costs O(n·d) and allocates nothing. X and S may be views of larger
// matrices.
func (k RBF) SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64) float64 {
	n := checkDirection(dst, x, X, S, w)
	for j := range dst {
		dst[j] = 0
	}
	a := 1 / (2 * k.H * k.H)
	inv := 1 / (k.H * k.H)
	var sum float64
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		xi = xi[:len(x)]
		kv := math.Exp(-a * sqDist4(xi, x))
		wk := w[i] * kv
		sum += wk
		if wk == 0 {
			continue
		}
		// ∇_{xᵢ}k(xᵢ, x) = −(xᵢ − x) k / h².
		si := S.RawRowView(i)
		si = si[:len(x)]
		steinAccumulate(dst, x, xi, si, wk, wk*inv)
	}
	return sum
}

// sqDist4 returns ‖a − b‖² (len(a) = len(b)) with four accumulators, one per
// residue of the index mod 4, added as (s₀ + s₁) + (s₂ + s₃): four
// independent add chains instead of one, which the out-of-order core
// overlaps.
func sqDist4(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		u0, u1, u2, u3 := a[j]-b[j], a[j+1]-b[j+1], a[j+2]-b[j+2], a[j+3]-b[j+3]
		s0 += u0 * u0
		s1 += u1 * u1
		s2 += u2 * u2
		s3 += u3 * u3
	}
	for ; j < len(a); j++ {
		u := a[j] - b[j]
		s0 += u * u
	}
	return (s0 + s1) + (s2 + s3)
}

// steinAccumulate adds wk·sᵢ + c·(x − xᵢ) to dst, four coordinates per step.
func steinAccumulate(dst, x, xi, si []float64, wk, c float64) {
	n := len(dst)
	x, xi, si = x[:n], xi[:n], si[:n]
	j := 0
	for ; j+4 <= n; j += 4 {
		d0 := dst[j] + (wk*si[j] + c*(x[j]-xi[j]))
		d1 := dst[j+1] + (wk*si[j+1] + c*(x[j+1]-xi[j+1]))
		d2 := dst[j+2] + (wk*si[j+2] + c*(x[j+2]-xi[j+2]))
		d3 := dst[j+3] + (wk*si[j+3] + c*(x[j+3]-xi[j+3]))
		dst[j], dst[j+1], dst[j+2], dst[j+3] = d0, d1, d2, d3
	}
	for ; j < n; j++ {
		dst[j] += wk*si[j] + c*(x[j]-xi[j])
	}
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
