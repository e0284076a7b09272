package mmdfw

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// Direction selects how the Approx-LMO estimates −∇F_n(x), the descent
// direction of F_n(x) = Σᵢ wᵢ k(x, xᵢ) − μ_p(x).
type Direction int

const (
	// DirectionAuto is Self (chosen by measurement, see docs/DECISIONS.md).
	DirectionAuto Direction = iota
	// Frozen is the weighted Stein direction over the frozen particles
	// alone, Σᵢ wᵢ [k(xᵢ, x) s(xᵢ) + ∇_{xᵢ}k(xᵢ, x)], from cached scores: no
	// score evaluation inside the LMO.
	Frozen
	// Self lets the candidate join the empirical measure with weight
	// 1/(n+1), the old weights scaled by n/(n+1): the Frozen direction times
	// n/(n+1) plus k(x, x) s(x)/(n+1), the candidate's own SVGD term (its
	// self-repulsion vanishes for a translation-invariant kernel). One score
	// evaluation per LMO step (Settings.Batch makes it a minibatch score).
	Self
	// Exact is ∇μ_p(x) − Σᵢ wᵢ ∇ₓk(x, xᵢ) with the closed-form ∇μ_p of a
	// GradEmbedder: the exact gradient, for checking the method where the
	// theory is exact (Gaussian targets).
	Exact
)

// SteinDirection writes into dst the weighted Stein direction of the frozen
// particles at x,
//
//	Σᵢ wᵢ [k(xᵢ, x) s(xᵢ) − ∇ₓk(x, xᵢ)],
//
// where xᵢ and s(xᵢ) = ∇log p(xᵢ) are the first len(w) rows of X and S. For
// a translation-invariant kernel −∇ₓk(x, xᵢ) = ∇_{xᵢ}k(xᵢ, x) and this is
// the SVGD direction with weights wᵢ in place of 1/n. It costs O(n·d) and
// allocates nothing for kernel.RBF; other kernels use tmp (length d, nil
// allocates).
func SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64, k Kernel, tmp []float64) {
	n := len(w)
	rx, d := X.Dims()
	rs, ds := S.Dims()
	if len(x) != d || len(dst) != d || ds != d || rx < n || rs < n {
		panic("mmdfw: dimension mismatch")
	}
	for j := range dst {
		dst[j] = 0
	}
	if r, ok := k.(kernel.RBF); ok {
		rbfDirection(dst, x, X, S, w, r.H)
		return
	}
	if tmp == nil {
		tmp = make([]float64, d)
	}
	for i, wi := range w {
		kv := k.GradX(tmp, x, X.RawRowView(i))
		c := wi * kv
		for j, s := range S.RawRowView(i) {
			dst[j] += c*s - wi*tmp[j]
		}
	}
}

// rbfDirection adds Σᵢ wᵢ k(xᵢ, x) [s(xᵢ) + (x − xᵢ)/h²] to dst.
func rbfDirection(dst, x []float64, X, S *mat.Dense, w []float64, h float64) {
	inv := 1 / (h * h)
	half := -0.5 * inv
	xr := X.RawMatrix()
	sr := S.RawMatrix()
	d := len(x)
	for i, wi := range w {
		xi := xr.Data[i*xr.Stride : i*xr.Stride+d]
		si := sr.Data[i*sr.Stride : i*sr.Stride+d]
		var r2 float64
		for j, v := range xi {
			t := x[j] - v
			r2 += t * t
		}
		c := wi * math.Exp(half*r2)
		ci := c * inv
		for j, v := range xi {
			dst[j] += c*si[j] + ci*(x[j]-v)
		}
	}
}
