package mmdfw

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/rff"
)

// Kernel is what MMD-FW needs from a kernel at single points: its value and
// its gradient in the first argument (the method set of kernel.Kernel). The
// BQ Gram matrix, the line search and the LMO direction are built from
// these two alone; kernel.RBF and *rff.Features implement it, and the run
// takes faster paths for both.
type Kernel interface {
	// Eval returns k(x, y).
	Eval(x, y []float64) float64
	// GradX writes ∇ₓk(x, y) into dst and returns k(x, y).
	GradX(dst, x, y []float64) float64
}

// KernelKind selects the kernel of a run; the empty text is RBFKernel.
type KernelKind string

const (
	// RBFKernel is k(x, y) = exp(−‖x − y‖²/(2h²)) (the default).
	RBFKernel KernelKind = "rbf"
	// RFFKernel is the random-Fourier-feature approximation of RBFKernel
	// with Settings.Features features: a D-dimensional RKHS, where the
	// Frank-Wolfe rate is linear.
	RFFKernel KernelKind = "rff"
)

var (
	_ Kernel = kernel.RBF{}
	_ Kernel = (*rff.Features)(nil)
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
func medianBandwidth(X *mat.Dense) float64 { return kernel.MedianDistance(X, 0) }
