package particle

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// sumWeights returns Σᵢ wᵢ, panicking on a set whose weights do not match its
// particles or do not sum to a positive value.
func (s Set) sumWeights() float64 {
	if s.X == nil {
		panic("particle: empty set")
	}
	n, _ := s.X.Dims()
	if len(s.W) != n {
		panic("particle: dimension mismatch")
	}
	var sw float64
	for _, w := range s.W {
		sw += w
	}
	if !(sw > 0) || math.IsInf(sw, 0) {
		panic("particle: weights must sum to a positive finite value")
	}
	return sw
}

// Cov writes the weighted covariance of the particles into dst and returns
// it. With W = Σᵢ wᵢ and the normalised mean μ = Σᵢ wᵢ xᵢ / W,
//
//	Σ = Σᵢ wᵢ (xᵢ − μ)(xᵢ − μ)ᵀ / W,
//
// the covariance of the measure Σᵢ (wᵢ/W) δ(x − xᵢ) (the plug-in form, with
// no small-sample correction: the weights are a measure, not frequencies).
// When the weights sum to one, μ is Mean's result. A nil or empty dst is
// allocated with the right size; otherwise dst must be d×d, else Cov panics.
// Negative weights (some weight rules allow them) are used as they are, and
// the result may then not be positive semi-definite. Cov panics when the
// weights do not sum to a positive value. It allocates only dst and a
// d-vector.
func (s Set) Cov(dst *mat.SymDense) *mat.SymDense {
	sw := s.sumWeights()
	n, d := s.X.Dims()
	if dst == nil {
		dst = mat.NewSymDense(d, nil)
	} else if dst.IsEmpty() {
		dst.ReuseAsSym(d)
	} else if dst.SymmetricDim() != d {
		panic("particle: dimension mismatch")
	}
	mu := s.Mean(make([]float64, d))
	for j := range mu {
		mu[j] /= sw
	}
	raw := dst.RawSymmetric()
	for a := 0; a < d; a++ {
		row := raw.Data[a*raw.Stride : a*raw.Stride+d]
		for b := a; b < d; b++ {
			row[b] = 0
		}
	}
	for i := 0; i < n; i++ {
		w := s.W[i] / sw
		x := s.X.RawRowView(i)
		for a := 0; a < d; a++ {
			ca := w * (x[a] - mu[a])
			row := raw.Data[a*raw.Stride : a*raw.Stride+d]
			for b := a; b < d; b++ {
				row[b] += ca * (x[b] - mu[b])
			}
		}
	}
	return dst
}

// Quantiles writes into dst the weighted quantiles of coordinate j at the
// probabilities p (each in [0, 1]) and returns dst (allocated when nil; else
// it must have len(p) elements). The quantile at p is the left-continuous
// inverse of the weighted empirical distribution function
//
//	F(t) = Σ_{i: xᵢⱼ ≤ t} wᵢ / Σᵢ wᵢ,   Q(p) = min{xᵢⱼ : F(xᵢⱼ) ≥ p},
//
// so that with equal weights it is the empirical quantile of gonum's
// stat.Empirical, and Q(0) is the smallest value. Particles of zero weight
// never become quantiles, except Q(0) of a set whose smallest values carry
// no weight: Q(0) is the smallest value of positive weight. Quantiles panics on a negative
// weight (the weighted distribution function is then not monotone), on a
// probability outside [0, 1] and when the weights do not sum to a positive
// value. It sorts a copy of the column: it allocates O(n).
func (s Set) Quantiles(dst []float64, j int, p []float64) []float64 {
	sw := s.sumWeights()
	n, d := s.X.Dims()
	if j < 0 || j >= d {
		panic("particle: coordinate out of range")
	}
	if dst == nil {
		dst = make([]float64, len(p))
	}
	if len(dst) != len(p) {
		panic("particle: dimension mismatch")
	}
	idx := make([]int, 0, n)
	for i, w := range s.W {
		if w < 0 {
			panic("particle: negative weight")
		}
		if w > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.X.At(idx[a], j) < s.X.At(idx[b], j) })
	for k, q := range p {
		if !(q >= 0 && q <= 1) {
			panic("particle: probability out of range [0, 1]")
		}
		var cum float64
		dst[k] = s.X.At(idx[len(idx)-1], j)
		for _, i := range idx {
			cum += s.W[i]
			if cum/sw >= q {
				dst[k] = s.X.At(i, j)
				break
			}
		}
	}
	return dst
}

// ESS returns Kish's effective sample size of the weights,
//
//	ESS = (Σᵢ wᵢ)² / Σᵢ wᵢ²,
//
// n for equal weights and 1 when one particle carries all the weight. It
// does not depend on the scale of the weights. It returns 0 for a set
// without particles or whose weights are all zero.
func (s Set) ESS() float64 {
	var sw, sw2 float64
	for _, w := range s.W {
		sw += w
		sw2 += w * w
	}
	if sw2 == 0 {
		return 0
	}
	return sw * sw / sw2
}
