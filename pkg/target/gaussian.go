package target

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Gaussian is the exact target N(m, Σ). Its kernel mean embeddings are
// known in closed form (see RBFEmbedding and RFFEmbedding), which makes MMD²
// exact: the ground truth for tests and for the linear-convergence check,
// free of any reference-sampler noise.
//
// A Gaussian is immutable and safe for concurrent use.
type Gaussian struct {
	d    int
	mean []float64
	cov  *mat.SymDense
	// l is the lower Cholesky factor of Σ (d×d, row major).
	l []float64
	// prec is Σ⁻¹ (d×d, row major).
	prec []float64
	// logNorm is −½ log det(2πΣ).
	logNorm float64
}

// NewGaussian returns N(mean, cov). It returns an error when cov is not
// symmetric positive definite.
func NewGaussian(mean []float64, cov mat.Symmetric) (*Gaussian, error) {
	d := len(mean)
	if cov.SymmetricDim() != d {
		panic("target: dimension mismatch")
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(cov); !ok {
		return nil, errors.New("target: Gaussian covariance is not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	g := &Gaussian{
		d:    d,
		mean: append([]float64(nil), mean...),
		cov:  mat.NewSymDense(d, nil),
		l:    make([]float64, d*d),
		prec: make([]float64, d*d),
	}
	g.cov.CopySym(cov)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			g.l[i*d+j] = L.At(i, j)
		}
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("target: Gaussian covariance: %w", err)
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.prec[i*d+j] = inv.At(i, j)
		}
	}
	g.logNorm = -0.5 * (float64(d)*math.Log(2*math.Pi) + ch.LogDet())
	return g, nil
}

// Dim returns d.
func (g *Gaussian) Dim() int { return g.d }

// Mean returns a copy of m.
func (g *Gaussian) Mean() []float64 { return append([]float64(nil), g.mean...) }

// Cov returns a copy of Σ.
func (g *Gaussian) Cov() *mat.SymDense {
	c := mat.NewSymDense(g.d, nil)
	c.CopySym(g.cov)
	return c
}

// LogProbGrad returns the normalised log density
// −½ (x−m)ᵀΣ⁻¹(x−m) − ½ log det(2πΣ) and writes the score −Σ⁻¹(x−m) into
// grad. It allocates nothing.
func (g *Gaussian) LogProbGrad(x, grad []float64) float64 {
	d := g.d
	if len(x) != d || len(grad) != d {
		panic("target: dimension mismatch")
	}
	var q float64
	for i := 0; i < d; i++ {
		row := g.prec[i*d : i*d+d]
		var s float64
		for j, p := range row {
			s += p * (x[j] - g.mean[j])
		}
		grad[i] = -s
		q += (x[i] - g.mean[i]) * s
	}
	return -0.5*q + g.logNorm
}

// Sample writes an exact draw m + L z, z ∼ N(0, I), into dst (length d). It
// allocates nothing.
func (g *Gaussian) Sample(rng *rand.Rand, dst []float64) {
	d := g.d
	if len(dst) != d {
		panic("target: dimension mismatch")
	}
	for i := range dst {
		dst[i] = rng.NormFloat64()
	}
	// dst ← L dst in place, bottom row first: row i reads only z₀..zᵢ.
	for i := d - 1; i >= 0; i-- {
		var s float64
		for j, v := range g.l[i*d : i*d+i+1] {
			s += v * dst[j]
		}
		dst[i] = s + g.mean[i]
	}
}

// SamplePrior writes an exact draw from the Gaussian itself, so that a
// method initialised "from the prior" starts from the target.
func (g *Gaussian) SamplePrior(rng *rand.Rand, dst []float64) { g.Sample(rng, dst) }

// SampleRows fills every row of dst (n×d) with an exact draw.
func (g *Gaussian) SampleRows(rng *rand.Rand, dst *mat.Dense) {
	n, d := dst.Dims()
	if d != g.d {
		panic("target: dimension mismatch")
	}
	for i := 0; i < n; i++ {
		g.Sample(rng, dst.RawRowView(i))
	}
}

// RBFEmbedding is the kernel mean embedding of a Gaussian N(m, Σ) under the
// RBF kernel k(x, y) = exp(−‖x − y‖²/(2h²)):
//
//	μ_p(x) = det(I + Σ/h²)^(−1/2) exp(−½ (x−m)ᵀ(Σ + h²I)⁻¹(x−m))
//	∇μ_p(x) = −μ_p(x) (Σ + h²I)⁻¹(x − m)
//	‖μ_p‖² = ∫∫ k p p = det(I + 2Σ/h²)^(−1/2)
//
// It factorises Σ + h²I once; every evaluation then costs O(d²) and
// allocates nothing. It is immutable and safe for concurrent use.
type RBFEmbedding struct {
	g *Gaussian
	h float64
	// a is (Σ + h²I)⁻¹, row major.
	a      []float64
	scale  float64
	normSq float64
}

// RBFEmbedding returns the embedding of g under the RBF kernel of bandwidth
// h.
func (g *Gaussian) RBFEmbedding(h float64) *RBFEmbedding {
	if !(h > 0) {
		panic("target: bandwidth must be positive")
	}
	d := g.d
	h2 := h * h
	shifted := func(c float64) *mat.Cholesky {
		s := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				s.SetSym(i, j, c*g.cov.At(i, j))
			}
			s.SetSym(i, i, s.At(i, i)+h2)
		}
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			panic("target: Σ + h²I is not positive definite")
		}
		return &ch
	}
	// det(I + cΣ/h²) = det(cΣ + h²I) / h^(2d).
	logH := float64(d) * math.Log(h2)
	ch1 := shifted(1)
	ch2 := shifted(2)
	e := &RBFEmbedding{
		g:      g,
		h:      h,
		a:      make([]float64, d*d),
		scale:  math.Exp(-0.5 * (ch1.LogDet() - logH)),
		normSq: math.Exp(-0.5 * (ch2.LogDet() - logH)),
	}
	var inv mat.SymDense
	if err := ch1.InverseTo(&inv); err != nil {
		panic(fmt.Sprintf("target: Σ + h²I: %v", err))
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			e.a[i*d+j] = inv.At(i, j)
		}
	}
	return e
}

// H returns the bandwidth.
func (e *RBFEmbedding) H() float64 { return e.h }

// NormSq returns ∫∫ k(x, y) p(x) p(y) dx dy = det(I + 2Σ/h²)^(−1/2).
func (e *RBFEmbedding) NormSq() float64 { return e.normSq }

// Value returns μ_p(x) = ∫ k(x, y) p(y) dy.
func (e *RBFEmbedding) Value(x []float64) float64 {
	if len(x) != e.g.d {
		panic("target: dimension mismatch")
	}
	return e.scale * math.Exp(-0.5*e.quad(nil, x))
}

// Grad writes ∇μ_p(x) into dst and returns μ_p(x).
func (e *RBFEmbedding) Grad(dst, x []float64) float64 {
	if len(x) != e.g.d || len(dst) != e.g.d {
		panic("target: dimension mismatch")
	}
	mu := e.scale * math.Exp(-0.5*e.quad(dst, x))
	for i := range dst {
		dst[i] *= -mu
	}
	return mu
}

// quad returns (x − m)ᵀA(x − m) with A = (Σ + h²I)⁻¹ and, when dst is not
// nil, writes A(x − m) into dst.
func (e *RBFEmbedding) quad(dst, x []float64) float64 {
	d, m := e.g.d, e.g.mean
	var q float64
	for i := 0; i < d; i++ {
		row := e.a[i*d : i*d+d]
		var s float64
		for j, v := range row {
			s += v * (x[j] - m[j])
		}
		if dst != nil {
			dst[i] = s
		}
		q += (x[i] - m[i]) * s
	}
	return q
}

// MMD2 returns the exact squared MMD between the weighted particles (rows of
// X, weights w) and the Gaussian,
//
//	Σᵢⱼ wᵢwⱼ k(xᵢ, xⱼ) − 2 Σᵢ wᵢ μ_p(xᵢ) + ∫∫ k p p,
//
// that is ‖μ̂ − μ_p‖²_H without the ½ of the paper's objective. A nil w
// means equal weights 1/n. The particle Gram is one symmetric rank-k
// product; the call allocates its n×n scratch.
func (e *RBFEmbedding) MMD2(X *mat.Dense, w []float64) float64 {
	n, d := X.Dims()
	if d != e.g.d {
		panic("target: dimension mismatch")
	}
	w = weights(w, n)
	g := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
	blas64.Syrk(blas.NoTrans, 1, X.RawMatrix(), 0, g)
	a := 1 / (2 * e.h * e.h)
	var kk, cross float64
	for i := 0; i < n; i++ {
		nii := g.Data[i*n+i]
		kk += w[i] * w[i]
		var s float64
		for j := i + 1; j < n; j++ {
			r2 := nii + g.Data[j*n+j] - 2*g.Data[i*n+j]
			if r2 < 0 {
				r2 = 0
			}
			s += w[j] * math.Exp(-a*r2)
		}
		kk += 2 * w[i] * s
		cross += w[i] * e.Value(X.RawRowView(i))
	}
	return kk - 2*cross + e.normSq
}

// RFFEmbedding is the exact mean embedding of a Gaussian in the feature
// space of random Fourier features φ(x) = √(2/D) cos(Ωx + b):
//
//	E[φ(x)]ⱼ = √(2/D) exp(−½ ωⱼᵀΣωⱼ) cos(ωⱼᵀm + bⱼ),
//
// from E[cos(ωᵀx + b)] = Re E[e^{i(ωᵀx+b)}] with the Gaussian characteristic
// function. The frequencies arrive as a plain matrix so that this package
// does not depend on package rff.
type RFFEmbedding struct {
	omega *mat.Dense
	b     []float64
	mu    []float64
}

// RFFEmbedding returns the embedding of g for the D×d frequency matrix omega
// (row j is ωⱼ) and phases b (length D). omega and b are kept, not copied.
func (g *Gaussian) RFFEmbedding(omega *mat.Dense, b []float64) *RFFEmbedding {
	D, d := omega.Dims()
	if d != g.d || len(b) != D {
		panic("target: dimension mismatch")
	}
	e := &RFFEmbedding{omega: omega, b: b, mu: make([]float64, D)}
	c := math.Sqrt(2 / float64(D))
	cov := g.cov.RawSymmetric()
	for j := 0; j < D; j++ {
		om := omega.RawRowView(j)
		var q, dot float64
		for r := 0; r < d; r++ {
			row := cov.Data[r*cov.Stride : r*cov.Stride+d]
			// The upper triangle of Σ is authoritative; read (r, s) with
			// s ≥ r and double the off-diagonal.
			var s float64
			for cI := r + 1; cI < d; cI++ {
				s += row[cI] * om[cI]
			}
			q += om[r] * (row[r]*om[r] + 2*s)
			dot += om[r] * g.mean[r]
		}
		e.mu[j] = c * math.Exp(-0.5*q) * math.Cos(dot+b[j])
	}
	return e
}

// Mean returns the embedding vector E[φ(x)] (length D); it must not be
// modified.
func (e *RFFEmbedding) Mean() []float64 { return e.mu }

// NormSq returns ‖E[φ(x)]‖², the ∫∫ k p p of the random-feature kernel.
func (e *RFFEmbedding) NormSq() float64 {
	var s float64
	for _, v := range e.mu {
		s += v * v
	}
	return s
}

// MMD2 returns the exact squared MMD, under the random-feature kernel
// k(x, y) = φ(x)ᵀφ(y), between the weighted particles (rows of X, weights w;
// nil means 1/n) and the Gaussian: ‖Σᵢ wᵢ φ(xᵢ) − E[φ(x)]‖², without the ½
// of the paper's objective. It allocates its n×D feature scratch.
func (e *RFFEmbedding) MMD2(X *mat.Dense, w []float64) float64 {
	n, d := X.Dims()
	D, dd := e.omega.Dims()
	if d != dd {
		panic("target: dimension mismatch")
	}
	w = weights(w, n)
	phi := mat.NewDense(n, D, nil)
	phi.Mul(X, e.omega.T())
	c := math.Sqrt(2 / float64(D))
	diff := make([]float64, D)
	copy(diff, e.mu)
	for i := 0; i < n; i++ {
		for j, v := range phi.RawRowView(i) {
			diff[j] -= w[i] * c * math.Cos(v+e.b[j])
		}
	}
	var s float64
	for _, v := range diff {
		s += v * v
	}
	return s
}

// weights returns w, or equal weights 1/n when w is nil.
func weights(w []float64, n int) []float64 {
	if w == nil {
		w = make([]float64, n)
		for i := range w {
			w[i] = 1 / float64(n)
		}
	}
	if len(w) != n {
		panic("target: weights length mismatch")
	}
	return w
}
