package rff

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Features is a random Fourier feature map of the RBF kernel of bandwidth
// h. It is immutable after New and safe for concurrent use.
type Features struct {
	omega *mat.Dense // D×d, row j is ωⱼ
	b     []float64  // D phases
	h     float64
	scale float64 // √(2/D)
}

// New draws D features for d-dimensional inputs and the RBF kernel of
// bandwidth h: every entry of Ω from N(0, h⁻²), every phase from U[0, 2π].
func New(rng *rand.Rand, d, D int, h float64) *Features {
	if d <= 0 || D <= 0 {
		panic("rff: non-positive dimension")
	}
	if !(h > 0) {
		panic("rff: bandwidth must be positive")
	}
	f := &Features{
		omega: mat.NewDense(D, d, nil),
		b:     make([]float64, D),
		h:     h,
		scale: math.Sqrt(2 / float64(D)),
	}
	raw := f.omega.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64() / h
	}
	for j := range f.b {
		f.b[j] = 2 * math.Pi * rng.Float64()
	}
	return f
}

// Dim returns the input dimension d.
func (f *Features) Dim() int { _, d := f.omega.Dims(); return d }

// Len returns the number of features D.
func (f *Features) Len() int { return len(f.b) }

// H returns the bandwidth of the approximated RBF kernel.
func (f *Features) H() float64 { return f.h }

// Omega returns the D×d frequency matrix (row j is ωⱼ). It must not be
// modified.
func (f *Features) Omega() *mat.Dense { return f.omega }

// Phase returns the D phases bⱼ. They must not be modified.
func (f *Features) Phase() []float64 { return f.b }

// arg returns ωⱼᵀx + bⱼ.
func (f *Features) arg(j int, x []float64) float64 {
	s := f.b[j]
	for i, v := range f.omega.RawRowView(j) {
		s += v * x[i]
	}
	return s
}

func (f *Features) checkX(x []float64) {
	if _, d := f.omega.Dims(); len(x) != d {
		panic("rff: dimension mismatch")
	}
}

// Map writes φ(x) into dst (length D; nil allocates) and returns it.
func (f *Features) Map(dst, x []float64) []float64 {
	f.checkX(x)
	if dst == nil {
		dst = make([]float64, len(f.b))
	}
	if len(dst) != len(f.b) {
		panic("rff: dimension mismatch")
	}
	for j := range dst {
		dst[j] = f.scale * math.Cos(f.arg(j, x))
	}
	return dst
}

// MapRows writes φ(xᵢ) into row i of dst (n×D) for every row of X (n×d),
// through one matrix product X Ωᵀ.
func (f *Features) MapRows(dst, X *mat.Dense) {
	n, d := X.Dims()
	D, dd := f.omega.Dims()
	if d != dd {
		panic("rff: dimension mismatch")
	}
	if r, c := dst.Dims(); r != n || c != D {
		panic("rff: dimension mismatch")
	}
	gemmNT(X.RawMatrix(), f.omega.RawMatrix(), dst.RawMatrix())
	for i := 0; i < n; i++ {
		row := dst.RawRowView(i)
		for j, v := range row {
			row[j] = f.scale * math.Cos(v+f.b[j])
		}
	}
}

// GradFeature writes ∇ₓφⱼ(x) = −√(2/D) sin(ωⱼᵀx + bⱼ) ωⱼ into dst
// (length d) and returns φⱼ(x).
func (f *Features) GradFeature(dst, x []float64, j int) float64 {
	f.checkX(x)
	if len(dst) != len(x) {
		panic("rff: dimension mismatch")
	}
	a := f.arg(j, x)
	c := -f.scale * math.Sin(a)
	for i, v := range f.omega.RawRowView(j) {
		dst[i] = c * v
	}
	return f.scale * math.Cos(a)
}

// Jacobian writes the D×d Jacobian of φ at x into dst: row j is ∇ₓφⱼ(x).
func (f *Features) Jacobian(dst *mat.Dense, x []float64) {
	D, d := f.omega.Dims()
	if r, c := dst.Dims(); r != D || c != d {
		panic("rff: dimension mismatch")
	}
	for j := 0; j < D; j++ {
		f.GradFeature(dst.RawRowView(j), x, j)
	}
}

// Eval returns the random-feature kernel k_D(x, y) = φ(x)ᵀφ(y). It costs
// O(D·d) and allocates nothing.
func (f *Features) Eval(x, y []float64) float64 {
	f.checkX(x)
	f.checkX(y)
	var s float64
	for j := range f.b {
		s += math.Cos(f.arg(j, x)) * math.Cos(f.arg(j, y))
	}
	return f.scale * f.scale * s
}

// GradX writes ∇ₓk_D(x, y) = −(2/D) Σⱼ cos(ωⱼᵀy + bⱼ) sin(ωⱼᵀx + bⱼ) ωⱼ
// into dst and returns k_D(x, y). It allocates nothing.
func (f *Features) GradX(dst, x, y []float64) float64 {
	f.checkX(x)
	f.checkX(y)
	if len(dst) != len(x) {
		panic("rff: dimension mismatch")
	}
	for i := range dst {
		dst[i] = 0
	}
	c2 := f.scale * f.scale
	var s float64
	for j := range f.b {
		ax, cy := f.arg(j, x), math.Cos(f.arg(j, y))
		s += math.Cos(ax) * cy
		c := -c2 * cy * math.Sin(ax)
		for i, v := range f.omega.RawRowView(j) {
			dst[i] += c * v
		}
	}
	return c2 * s
}
