package mmdfw_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Stein weights solved after every particle by pairwise Frank-Wolfe to a
// certified relative gap of 10⁻⁸; the result says how the solves went (a
// solve stopped by the iteration ceiling would also raise a "weights" flag
// in the set's diagnostics).
func ExampleWeightSolver() {
	g, err := target.NewGaussian([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := mmdfw.Settings{N: 40, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}, Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, WeightSolver: mmdfw.SolverPairwise, WeightTol: 1e-8}}
	mmdfwRes, err := mmdfw.Run(context.Background(), g, particle.Start{}, s, rand.NewPCG(1, 2), nil)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	ws := res.WeightSolve
	fmt.Printf("one solve per added particle: %v\n", ws.Solves == res.Set.Len()-1)
	fmt.Printf("not converged: %d\n", ws.NotConverged)
	fmt.Printf("relative gap within 1e-8: %v\n", ws.WorstGap <= 1e-8)
	// Output:
	// one solve per added particle: true
	// not converged: 0
	// relative gap within 1e-8: true
}
