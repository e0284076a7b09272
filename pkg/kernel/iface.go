package kernel

// Kernel is what a method needs from a kernel at single points: its value
// and its gradient in the first argument. RBF, IMQ and the random-feature
// kernel of package rff implement it. Hot loops use the concrete types.
type Kernel interface {
	// Eval returns k(x, y).
	Eval(x, y []float64) float64
	// GradX writes ∇ₓk(x, y) into dst and returns k(x, y).
	GradX(dst, x, y []float64) float64
}

// Radial is a kernel k(x, y) = f(‖x − y‖²), a function of the squared
// distance alone. Cross-kernel matrices, Stein kernels and the MMD² metric
// need only the profile f and its derivatives.
type Radial interface {
	Kernel
	// FromSqDist returns f(r²).
	FromSqDist(r2 float64) float64
	// Profile returns f(r²), f′(r²) and f″(r²), derivatives with respect
	// to r².
	Profile(r2 float64) (f, df, d2f float64)
}

var (
	_ Radial = RBF{}
	_ Radial = IMQ{}
)
