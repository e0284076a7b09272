package model_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
)

// The exact Hessian gives the Laplace precision −∇²log p at a point
// without finite differences.
func ExampleLogistic_LogProbHessian() {
	X := mat.NewDense(4, 2, []float64{
		0.1, 1,
		0.4, 1,
		0.6, 1,
		0.9, 1,
	})
	m := model.NewLogistic(X, []float64{-1, -1, 1, 1})
	var H mat.SymDense // an empty destination is sized by the call
	m.LogProbHessian(&H, []float64{4, -2, 0})
	fmt.Printf("%.4f\n", mat.Formatted(&H))
	// Output:
	// ⎡ -1.2395   -0.3800   -4.0000⎤
	// ⎢ -0.3800   -1.7600    2.0000⎥
	// ⎣ -4.0000    2.0000  -10.0100⎦
}
