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

// A posterior whose coordinates differ by 10³ in scale: in the whitened
// coordinates z = L⁻¹(x − x̂) of its Laplace fit it is N(0, I), so that one
// kernel bandwidth, one step and one start spread suit every coordinate.
// This is what the particle methods' default coordinates are.
func ExampleFitAtMAP() {
	g, err := target.NewGaussian([]float64{0.02, 30}, mat.NewSymDense(2, []float64{1e-4, 0.05, 0.05, 100}))
	if err != nil {
		fmt.Println(err)
		return
	}
	sc, err := laplace.FitAtMAP(context.Background(), g, []float64{0, 0}, laplace.MAPSettings{}, laplace.FitSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("MAP (%.2f, %.1f), marginal sds (%.3f, %.1f)\n", sc.MAP.X[0], sc.MAP.X[1], sc.Approx.SD[0], sc.Approx.SD[1])
	wt := sc.Whitening.Target(g)
	z, grad := []float64{1, -2}, make([]float64, 2)
	wt.LogProbGrad(z, grad)
	fmt.Printf("whitened score at z = (1, −2): (%.3f, %.3f)\n", grad[0], grad[1])
	x := make([]float64, 2)
	sc.Whitening.ToX(x, []float64{1, 0})
	fmt.Printf("z = (1, 0) is x = (%.2f, %.1f)\n", x[0], x[1])
	fmt.Println("bandwidth in whitened units:", fmt.Sprintf("%.2f", laplace.WhitenedBandwidth(2)))
	// Output:
	// MAP (0.02, 30.0), marginal sds (0.010, 10.0)
	// whitened score at z = (1, −2): (-1.000, 2.000)
	// z = (1, 0) is x = (0.03, 35.0)
	// bandwidth in whitened units: 1.18
}

// A method's first step in whitened coordinates: the MAP search from the
// start point X0 (nil: a prior draw, else the origin), then the Laplace
// fit there. A start that is not a finite point of the target's dimension
// is refused before any evaluation, naming the method.
func ExampleFitFromStart() {
	g, err := target.NewGaussian([]float64{1, -2}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	post := target.Func{D: 2, F: g.LogProbGrad} // no prior: the search starts at the origin
	sc, err := laplace.FitFromStart(context.Background(), post, "mine", nil, nil, laplace.MAPSettings{}, laplace.FitSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("MAP (%.3f, %.3f), marginal sds (%.3f, %.3f)\n", sc.MAP.X[0], sc.MAP.X[1], sc.Approx.SD[0], sc.Approx.SD[1])
	_, err = laplace.FitFromStart(context.Background(), post, "mine", []float64{1}, nil, laplace.MAPSettings{}, laplace.FitSettings{})
	fmt.Println(err)
	// Output:
	// MAP (1.000, -2.000), marginal sds (1.000, 1.414)
	// mine: X0 has length 1, target dimension is 2
}
