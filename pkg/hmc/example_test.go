package hmc_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A reference sample of N((1, −2), diag(1, 4)), with its diagnostics.
func ExampleRun() {
	t := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0] = -(x[0] - 1)
		grad[1] = -(x[1] + 2) / 4
		return -0.5*(x[0]-1)*(x[0]-1) - (x[1]+2)*(x[1]+2)/8
	}}
	res, err := hmc.Run(context.Background(), t, hmc.Settings{}, rand.NewPCG(1, 2), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := res.Set.Mean(nil)
	fmt.Printf("draws: %d\n", res.Set.Len())
	fmt.Printf("mean: (%.1f, %.1f)\n", m[0], m[1])
	fmt.Printf("inverse mass of chain 0: (%.0f, %.0f)\n", res.Diagnostics[0].InvMass[0], res.Diagnostics[0].InvMass[1])
	fmt.Printf("R̂ < 1.01: %v, ESS > 400: %v, flagged: %v\n", res.MaxRhat < 1.01, res.MinESS > 400, res.Flagged)
	// Output:
	// draws: 4000
	// mean: (1.0, -2.0)
	// inverse mass of chain 0: (1, 4)
	// R̂ < 1.01: true, ESS > 400: true, flagged: false
}
