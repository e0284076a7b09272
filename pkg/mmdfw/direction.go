package mmdfw

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// Direction selects how the Approx-LMO estimates −∇F_n(x), the descent
// direction of F_n(x) = Σᵢ wᵢ k(x, xᵢ) − μ_p(x); the empty text is
// DirectionAuto.
type Direction string

const (
	// DirectionAuto is Self (chosen by measurement, see docs/DECISIONS.md).
	DirectionAuto Direction = ""
	// Frozen is the weighted Stein direction over the frozen particles
	// alone, Σᵢ wᵢ [k(xᵢ, x) s(xᵢ) + ∇_{xᵢ}k(xᵢ, x)], from cached scores: no
	// score evaluation inside the LMO.
	Frozen Direction = "frozen"
	// Self lets the candidate join the empirical measure with weight
	// 1/(n+1), the old weights scaled by n/(n+1): the Frozen direction times
	// n/(n+1) plus k(x, x) s(x)/(n+1), the candidate's own SVGD term (its
	// self-repulsion vanishes for a translation-invariant kernel). One score
	// evaluation per LMO step (Settings.Batch makes it a minibatch score).
	Self Direction = "self"
	// Exact is ∇μ_p(x) − Σᵢ wᵢ ∇ₓk(x, xᵢ) with the closed-form ∇μ_p of a
	// GradEmbedder: the exact gradient, for checking the method where the
	// theory is exact (Gaussian targets).
	Exact Direction = "exact"
)

// SteinDirection writes into dst the weighted Stein direction of the frozen
// particles at x,
//
//	Σᵢ wᵢ [k(xᵢ, x) s(xᵢ) + ∇_{xᵢ}k(xᵢ, x)],
//
// where xᵢ and s(xᵢ) = ∇log p(xᵢ) are the first len(w) rows of X and S: the
// SVGD direction with weights wᵢ in place of 1/n. X and S may have more
// rows than w (views of them are taken). For kernel.RBF and
// kernel.IMQ it is their SteinDirection (O(n·d), no allocation); any other
// kernel goes through GradX with tmp (length d, nil allocates) as scratch.
func SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64, k Kernel, tmp []float64) {
	n := len(w)
	rx, d := X.Dims()
	rs, ds := S.Dims()
	if len(x) != d || len(dst) != d || ds != d || rx < n || rs < n {
		panic("mmdfw: dimension mismatch")
	}
	if rx > n {
		X = X.Slice(0, n, 0, d).(*mat.Dense)
	}
	if rs > n {
		S = S.Slice(0, n, 0, d).(*mat.Dense)
	}
	switch k := k.(type) {
	case kernel.RBF:
		k.SteinDirection(dst, x, X, S, w)
		return
	case kernel.IMQ:
		k.SteinDirection(dst, x, X, S, w)
		return
	}
	for j := range dst {
		dst[j] = 0
	}
	if tmp == nil {
		tmp = make([]float64, d)
	}
	for i, wi := range w {
		xi := X.RawRowView(i)
		kv := k.GradX(tmp, xi, x)
		c := wi * kv
		for j, s := range S.RawRowView(i) {
			dst[j] += c*s + wi*tmp[j]
		}
	}
}
