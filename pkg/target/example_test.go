package target_test

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// A user's own posterior is a Func: here a standard normal in two
// dimensions.
func ExampleFunc() {
	t := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = -x[0], -x[1]
		return -0.5 * (x[0]*x[0] + x[1]*x[1])
	}}
	g := make([]float64, t.Dim())
	lp := t.LogProbGrad([]float64{1, -2}, g)
	fmt.Println(lp, g, target.NData(t))
	// Output: -2.5 [-1 2] 1
}
