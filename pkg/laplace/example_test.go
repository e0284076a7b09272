package laplace_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The MAP point of a Gaussian posterior is its mean; the search reports
// what it cost, to be charged to whatever starts there.
func ExampleFindMAP() {
	g, err := target.NewGaussian([]float64{1, -2}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := laplace.FindMAP(context.Background(), g, []float64{0, 0}, laplace.MAPSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("MAP: (%.4f, %.4f)\n", res.X[0], res.X[1])
	fmt.Println("status:", res.Status)
	fmt.Println("charged:", res.GradEvals > 0)
	// Output:
	// MAP: (1.0000, -2.0000)
	// status: gradient tolerance
	// charged: true
}

// The Laplace approximation of a correlated Gaussian at its mode is the
// Gaussian itself: its marginal scales are what MMD-FW's ScaleLaplace
// measures the candidates' noise and the LMO steps in.
func ExampleFit() {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{4, 0.5, 0.5, 0.25}))
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := laplace.Fit(context.Background(), g, g.Mean(), laplace.FitSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("marginal sds: (%.3f, %.3f)\n", l.SD[0], l.SD[1])
	fmt.Printf("gradient evaluations: %d\n", l.GradEvals)
	// Output:
	// marginal sds: (2.000, 0.500)
	// gradient evaluations: 4
}
