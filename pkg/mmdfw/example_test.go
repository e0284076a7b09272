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

// Fifty weighted particles for a correlated Gaussian, with BQ weights from
// its closed-form kernel embedding; the recorder sees the exact MMD² fall.
func ExampleRun() {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}))
	if err != nil {
		fmt.Println(err)
		return
	}
	emb := g.RBFEmbedding(1)
	var first, last float64
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		m := emb.MMD2(s.X, s.W)
		if s.Step == 1 {
			first = m
		}
		last = m
		return nil
	})
	s := mmdfw.Settings{N: 50, Bandwidth: 1, Embed: mmdfw.GaussianEmbedding(g)}
	set, err := mmdfw.Run(context.Background(), g, s, rand.NewPCG(1, 2), rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := set.Mean(nil)
	fmt.Printf("particles: %d\n", set.Len())
	fmt.Printf("weighted mean: (%.1f, %.1f)\n", m[0], m[1])
	fmt.Printf("MMD² fell by more than 100×: %v\n", last < first/100)
	// Output:
	// particles: 50
	// weighted mean: (1.0, -1.0)
	// MMD² fell by more than 100×: true
}

// The MAP point of a Gaussian posterior is its mean; the search reports
// what it cost, to be charged to whatever starts there.
func ExampleFindMAP() {
	g, err := target.NewGaussian([]float64{1, -2}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := mmdfw.FindMAP(context.Background(), g, []float64{0, 0}, mmdfw.MAPSettings{})
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
// Gaussian itself: its marginal scales are what ScaleLaplace measures the
// candidates' noise and the LMO steps in.
func ExampleFitLaplace() {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{4, 0.5, 0.5, 0.25}))
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := mmdfw.FitLaplace(context.Background(), g, g.Mean(), mmdfw.LaplaceSettings{})
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
