package logpdf

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MultiNormalCholesky returns the log density of the multivariate normal
// N(μ, LLᵀ) at x, L the lower-triangular Cholesky factor of the covariance
// (Stan's multi_normal_cholesky(μ, L)), and writes its gradients into the
// caller's dx, dmu and dL:
//
//	r = x − μ,  z = L⁻¹r,  w = L⁻ᵀz = (LLᵀ)⁻¹r,
//	log p = −½zᵀz − Σᵢ log Lᵢᵢ − (n/2) log 2π,
//	∂/∂x = −w,  ∂/∂μ = w,  ∂/∂L = tril(wzᵀ) − diag(1/Lᵢᵢ),
//
// the last with respect to the entries on and below the diagonal (those
// above it are not parameters and are left alone). It agrees with gonum's
// distmv.Normal of covariance LLᵀ. The factor of a covariance Σ is
// mat.Cholesky's: chol.Factorize(Σ), then chol.LTo(L).
//
// Each of dx, dmu (length n) and dL (n×n lower, or empty and then sized)
// may be nil, and the gradient is then not formed. work is scratch of
// length at least 2n; when it is nil the call allocates it, otherwise the
// call allocates nothing. MultiNormalCholesky panics if L is not lower
// triangular, a length or size does not match, or a diagonal entry of L is
// not positive and finite.
func MultiNormalCholesky(dx, dmu []float64, dL *mat.TriDense, x, mu []float64, L *mat.TriDense, work []float64) float64 {
	n, kind := L.Triangle()
	if kind != mat.Lower {
		panic("logpdf: MultiNormalCholesky: L is not lower triangular")
	}
	if len(x) != n || len(mu) != n {
		panic(fmt.Sprintf("logpdf: MultiNormalCholesky: len(x) = %d, len(mu) = %d, want %d", len(x), len(mu), n))
	}
	if (dx != nil && len(dx) != n) || (dmu != nil && len(dmu) != n) {
		panic(fmt.Sprintf("logpdf: MultiNormalCholesky: len(dx) = %d, len(dmu) = %d, want %d", len(dx), len(dmu), n))
	}
	if work == nil {
		work = make([]float64, 2*n)
	}
	if len(work) < 2*n {
		panic(fmt.Sprintf("logpdf: MultiNormalCholesky: len(work) = %d, want at least %d", len(work), 2*n))
	}
	t := L.RawTriangular()
	var logDet float64
	for i := 0; i < n; i++ {
		d := t.Data[i*t.Stride+i]
		if !(d > 0) || math.IsInf(d, 1) {
			panic(fmt.Sprintf("logpdf: MultiNormalCholesky: L[%d,%d] = %v, want a positive finite number", i, i, d))
		}
		logDet += math.Log(d)
	}
	z, w := work[:n:n], work[n:2*n:2*n]
	for i := range z {
		z[i] = x[i] - mu[i]
	}
	blas64.Trsv(blas.NoTrans, t, blas64.Vector{N: n, Inc: 1, Data: z})
	var q float64
	for _, v := range z {
		q += v * v
	}
	lp := -0.5*q - logDet - float64(n)*halfLog2Pi
	if dx == nil && dmu == nil && dL == nil {
		return lp
	}
	copy(w, z)
	blas64.Trsv(blas.Trans, t, blas64.Vector{N: n, Inc: 1, Data: w})
	for i, v := range w {
		if dx != nil {
			dx[i] = -v
		}
		if dmu != nil {
			dmu[i] = v
		}
	}
	if dL != nil {
		if dL.IsEmpty() {
			dL.ReuseAsTri(n, mat.Lower)
		}
		if m, k := dL.Triangle(); m != n || k != mat.Lower {
			panic(fmt.Sprintf("logpdf: MultiNormalCholesky: dL is %d×%d %s, want %d×%d lower", m, m, triName(k), n, n))
		}
		g := dL.RawTriangular()
		for i := 0; i < n; i++ {
			row := g.Data[i*g.Stride : i*g.Stride+i+1]
			for j := range row {
				row[j] = w[i] * z[j]
			}
			row[i] -= 1 / t.Data[i*t.Stride+i]
		}
	}
	return lp
}

func triName(k mat.TriKind) string {
	if k == mat.Lower {
		return "lower"
	}
	return "upper"
}
