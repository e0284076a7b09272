package target_test

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// A posterior from a per-row log-likelihood and a prior: the mean μ of
// unit-variance Gaussian observations under a N(0, 10²) prior. The
// minibatch form rescales the batch's rows by N/|B|.
func ExampleNewPosterior() {
	data := []float64{1.2, 0.8, 1.5, 0.9, 1.1, 1.3}
	row := func(i int, x, grad []float64) float64 {
		r := data[i] - x[0]
		grad[0] += r // ∂/∂μ of −½(dᵢ − μ)²
		return -0.5 * r * r
	}
	prior := target.Prior{LogProbGrad: func(x, grad []float64) float64 {
		grad[0] -= x[0] / 100
		return -0.5 * x[0] * x[0] / 100
	}}
	post := target.NewPosterior(1, len(data), row, prior)

	g := make([]float64, 1)
	lp := post.LogProbGrad([]float64{1}, g)
	fmt.Printf("full:      log p = %.4f, score = %.4f\n", lp, g[0])
	lp = post.MinibatchLogProbGrad([]float64{1}, g, []int{0, 2})
	fmt.Printf("minibatch: log p = %.4f, score = %.4f (rows 0 and 2, × %d/2)\n", lp, g[0], post.NData())
	// Output:
	// full:      log p = -0.2250, score = 0.7900
	// minibatch: log p = -0.4400, score = 2.0900 (rows 0 and 2, × 6/2)
}
