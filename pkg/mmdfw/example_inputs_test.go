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

// What a run is given beside its settings: here the closed-form embedding
// of a Gaussian target (Inputs.Embed), which gives the run z exactly, so
// that its zero settings weigh the particles by Bayesian quadrature and
// trace the exact MMD² (Result.MMD2, ½‖μ̂ − μ_p‖²) particle by particle.
// The zero Inputs asks for nothing: that is what Settings.Run, the
// sampler.Sampler, passes.
func ExampleInputs() {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.3, 0.3, 0.5}))
	if err != nil {
		fmt.Println(err)
		return
	}
	in := mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}
	mmdfwRes, err := mmdfw.Run(context.Background(), g, particle.Start{}, mmdfw.Settings{Inputs: in, N: 30}, rand.NewPCG(1, 2), nil)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d particles, an MMD² value per particle: %v\n", res.Set.Len(), len(res.MMD2) == 30)
	fmt.Println("MMD² at 30 particles below a tenth of that at 1:", res.MMD2[29] < res.MMD2[0]/10)
	// Output:
	// 30 particles, an MMD² value per particle: true
	// MMD² at 30 particles below a tenth of that at 1: true
}
