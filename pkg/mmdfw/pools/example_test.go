package pools_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// BQ weights need z = μ_p(xᵢ); without a closed form an independent HMC
// pilot can estimate it. The pilot's gradient evaluations are charged to
// the run.
func ExampleHMC() {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := mmdfw.Settings{
		N:          20,
		KernelSpec: mmdfw.KernelSpec{Bandwidth: 1, Z: mmdfw.ZPool, PoolSize: 400},
		Weighting:  mmdfw.Weighting{Weights: mmdfw.BQ},
	}
	sStart, sIn := particle.Start{}, mmdfw.Inputs{PoolSampler: pools.HMC(particle.Start{}, hmc.Settings{Warmup: 200})}
	s.Inputs = sIn
	mmdfwRes, err := mmdfw.Run(context.Background(), g, sStart, s, rand.NewPCG(1, 2), nil)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	emb := g.RBFEmbedding(1)
	first := emb.MMD2(res.Set.X.Slice(0, 1, 0, 2).(*mat.Dense), []float64{1})
	last := emb.MMD2(res.Set.X, res.Set.W)
	fmt.Printf("particles: %d\n", res.Set.Len())
	fmt.Printf("pilot charged: %v\n", res.PoolGradEvals > 0 && res.GradEvals > res.PoolGradEvals)
	fmt.Printf("exact MMD² fell by more than 10× from the first particle: %v\n", last < first/10)
	// Output:
	// particles: 20
	// pilot charged: true
	// exact MMD² fell by more than 10× from the first particle: true
}
