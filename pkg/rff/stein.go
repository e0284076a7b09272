package rff

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// SteinField summarises weighted particles and their cached scores in
// feature space, so that the weighted Stein direction of the kernel
// k_D(x, y) = φ(x)ᵀφ(y),
//
//	Σᵢ wᵢ [k_D(xᵢ, x) sᵢ + ∇_{xᵢ}k_D(xᵢ, x)] = M φ(x) − √(2/D) Ωᵀ(φ(x) ⊙ σ),
//
// costs O(D·d) per point whatever the number of particles. It holds
// scratch: use one SteinField per goroutine.
type SteinField struct {
	f    *Features
	m    []float64 // d×D, Σᵢ wᵢ sᵢ φ(xᵢ)ᵀ
	sig  []float64 // D, Σᵢ wᵢ sin(ωⱼᵀxᵢ + bⱼ)
	mean []float64 // D, Σᵢ wᵢ φ(xᵢ)
	phi  []float64 // D scratch
	prod []float64 // D scratch
	z    []float64 // n×D scratch of Reset
	self float64   // ‖φ(x)‖² of the last Direction
}

// NewSteinField returns an empty field (every direction zero) for f.
func NewSteinField(f *Features) *SteinField {
	D, d := f.omega.Dims()
	return &SteinField{
		f:    f,
		m:    make([]float64, d*D),
		sig:  make([]float64, D),
		mean: make([]float64, D),
		phi:  make([]float64, D),
		prod: make([]float64, D),
	}
}

// Reserve sizes the field's scratch for up to n particles, so that Reset
// with at most n rows allocates nothing; Reset grows it otherwise.
func (s *SteinField) Reserve(n int) {
	D, _ := s.f.omega.Dims()
	if cap(s.z) < n*D {
		s.z = make([]float64, n*D)
	}
}

// Reset summarises the particles in the rows of X (n×d), their scores in
// the rows of S (n×d) and their weights w (length n). It costs two matrix
// products, O(n·D·d), and allocates nothing once Reserve has sized it for
// n particles.
func (s *SteinField) Reset(X, S *mat.Dense, w []float64) {
	n, d := X.Dims()
	D, dd := s.f.omega.Dims()
	if d != dd || len(w) != n {
		panic("rff: dimension mismatch")
	}
	if r, c := S.Dims(); r != n || c != d {
		panic("rff: dimension mismatch")
	}
	s.Reserve(n)
	z := blas64.General{Rows: n, Cols: D, Stride: D, Data: s.z[:n*D]}
	gemmNT(X.RawMatrix(), s.f.omega.RawMatrix(), z)
	for j := range s.sig {
		s.sig[j] = 0
		s.mean[j] = 0
	}
	for i := 0; i < n; i++ {
		row := z.Data[i*D : i*D+D]
		wi := w[i]
		for j, v := range row {
			a := v + s.f.b[j]
			sn, cs := math.Sincos(a)
			s.sig[j] += wi * sn
			p := wi * s.f.scale * cs // wᵢ φⱼ(xᵢ)
			s.mean[j] += p
			row[j] = p
		}
	}
	// M = Sᵀ diag(w) Φ.
	gemmTN(S.RawMatrix(), z, blas64.General{Rows: d, Cols: D, Stride: D, Data: s.m})
}

// Direction writes the weighted Stein direction at x into dst (length d)
// and returns Σᵢ wᵢ k_D(xᵢ, x), the particle term of MMD-FW's LMO
// objective. It costs O(D·d) and allocates nothing. It also keeps
// k_D(x, x) = ‖φ(x)‖² for SelfKernel.
func (s *SteinField) Direction(dst, x []float64) float64 {
	D, d := s.f.omega.Dims()
	if len(x) != d || len(dst) != d {
		panic("rff: dimension mismatch")
	}
	// The arguments ωⱼᵀx of all features at once (a vectorised product),
	// then φⱼ(x) = scale·cos(ωⱼᵀx + bⱼ).
	blas64.Gemv(blas.NoTrans, 1, s.f.omega.RawMatrix(), blas64.Vector{N: d, Inc: 1, Data: x},
		0, blas64.Vector{N: D, Inc: 1, Data: s.phi})
	var val, self float64
	for j := 0; j < D; j++ {
		p := s.f.scale * math.Cos(s.phi[j]+s.f.b[j])
		s.phi[j] = p
		s.prod[j] = -s.f.scale * p * s.sig[j]
		val += s.mean[j] * p
		self += p * p
	}
	s.self = self
	out := blas64.Vector{N: d, Inc: 1, Data: dst}
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: d, Cols: D, Stride: D, Data: s.m},
		blas64.Vector{N: D, Inc: 1, Data: s.phi}, 0, out)
	blas64.Gemv(blas.Trans, 1, s.f.omega.RawMatrix(), blas64.Vector{N: D, Inc: 1, Data: s.prod}, 1, out)
	return val
}

// SelfKernel returns k_D(x, x) = ‖φ(x)‖² for the x of the last Direction
// call, from the features Direction computed (0 before any call).
func (s *SteinField) SelfKernel() float64 { return s.self }
