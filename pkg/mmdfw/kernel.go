package mmdfw

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// Kernel is what MMD-FW needs from a kernel at single points: its value and
// its gradient in the first argument. The BQ Gram matrix, the line search
// and the LMO direction are built from these two alone; kernel.RBF and the
// random-feature kernel implement it.
type Kernel interface {
	// Eval returns k(x, y).
	Eval(x, y []float64) float64
	// GradX writes ∇ₓk(x, y) into dst and returns k(x, y).
	GradX(dst, x, y []float64) float64
}

// RandomFeatures is a finite-dimensional kernel k(x, y) = φ(x)ᵀφ(y) with
// φⱼ(x) = √(2/D) cos(ωⱼᵀx + bⱼ), the random Fourier features of an RBF
// kernel. A closed-form embedding of the target in feature space needs the
// frequencies and phases, hence this interface.
type RandomFeatures interface {
	Kernel
	// Frequencies returns Ω (D×d, row j is ωⱼ) and the phases b (length D).
	// They must not be modified.
	Frequencies() (omega *mat.Dense, b []float64)
}

// KernelKind selects the kernel of a run.
type KernelKind int

const (
	// RBFKernel is k(x, y) = exp(−‖x − y‖²/(2h²)) (the default).
	RBFKernel KernelKind = iota
	// RFFKernel is the random-Fourier-feature approximation of RBFKernel
	// with Settings.Features features: a D-dimensional RKHS, where the
	// Frank-Wolfe rate is linear.
	RFFKernel
)

// rffKernel is φ(x)ᵀφ(y) with φⱼ(x) = √(2/D) cos(ωⱼᵀx + bⱼ),
// ωⱼ ∼ N(0, h⁻²I), bⱼ ∼ U[0, 2π].
type rffKernel struct {
	omega *mat.Dense
	b     []float64
	h     float64
}

func newRFF(d, D int, h float64, rng *rand.Rand) *rffKernel {
	om := mat.NewDense(D, d, nil)
	raw := om.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64() / h
	}
	b := make([]float64, D)
	for j := range b {
		b[j] = 2 * math.Pi * rng.Float64()
	}
	return &rffKernel{omega: om, b: b, h: h}
}

func (k *rffKernel) Frequencies() (*mat.Dense, []float64) { return k.omega, k.b }

func (k *rffKernel) Eval(x, y []float64) float64 {
	D, d := k.omega.Dims()
	if len(x) != d || len(y) != d {
		panic("mmdfw: dimension mismatch")
	}
	var s float64
	for j := 0; j < D; j++ {
		w := k.omega.RawRowView(j)
		s += math.Cos(dot(w, x)+k.b[j]) * math.Cos(dot(w, y)+k.b[j])
	}
	return 2 * s / float64(D)
}

func (k *rffKernel) GradX(dst, x, y []float64) float64 {
	D, d := k.omega.Dims()
	if len(x) != d || len(y) != d || len(dst) != d {
		panic("mmdfw: dimension mismatch")
	}
	for i := range dst {
		dst[i] = 0
	}
	c := 2 / float64(D)
	var s float64
	for j := 0; j < D; j++ {
		w := k.omega.RawRowView(j)
		sx, cx := math.Sincos(dot(w, x) + k.b[j])
		cy := math.Cos(dot(w, y) + k.b[j])
		s += cx * cy
		f := -c * sx * cy
		for i, v := range w {
			dst[i] += f * v
		}
	}
	return c * s
}

var (
	_ Kernel         = kernel.RBF{}
	_ RandomFeatures = (*rffKernel)(nil)
)

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// medianBandwidth returns h = the median pairwise distance between the rows
// of X (the distinct pairs), or 0 when there are fewer than two rows or all
// rows coincide.
func medianBandwidth(X *mat.Dense) float64 {
	n, _ := X.Dims()
	if n < 2 {
		return 0
	}
	sq := mat.NewDense(n, n, nil)
	kernel.SqDists(sq, X, make([]float64, n))
	m := kernel.MedianSq(sq, false, make([]float64, n*(n-1)/2))
	return math.Sqrt(m)
}

// features writes φ(x) into phi and, when sn is not nil, sin(ωⱼᵀx + bⱼ)
// into sn.
func (k *rffKernel) features(phi, sn, x []float64) {
	D, _ := k.omega.Dims()
	c := math.Sqrt(2 / float64(D))
	for j := 0; j < D; j++ {
		s, cs := math.Sincos(dot(k.omega.RawRowView(j), x) + k.b[j])
		phi[j] = c * cs
		if sn != nil {
			sn[j] = s
		}
	}
}

// gradDot writes Σⱼ aⱼ ∇φⱼ(x) = −√(2/D) Σⱼ aⱼ sin(ωⱼᵀx + bⱼ) ωⱼ into dst,
// given sn = sin(ωᵀx + b).
func (k *rffKernel) gradDot(dst, a, sn []float64) {
	D, _ := k.omega.Dims()
	c := -math.Sqrt(2 / float64(D))
	for i := range dst {
		dst[i] = 0
	}
	for j := 0; j < D; j++ {
		f := c * a[j] * sn[j]
		for i, v := range k.omega.RawRowView(j) {
			dst[i] += f * v
		}
	}
}
