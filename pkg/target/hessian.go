package target

import "gonum.org/v1/gonum/mat"

// Hessian is a target that offers the exact second derivatives of its log
// density, for a Laplace approximation N(x̂, (−∇²log p(x̂))⁻¹) at a mode
// without the 2d gradients of finite differences.
//
// model.Logistic implements it.
type Hessian interface {
	Target
	// LogProbHessian writes ∇²log p(x), the Hessian of the log density of
	// LogProbGrad, into dst. An empty dst is resized to Dim×Dim; otherwise
	// its dimension must be Dim. x is not modified. Implementations must be
	// safe for concurrent use.
	LogProbHessian(dst *mat.SymDense, x []float64)
}
