package metric_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
)

// Stan's summary columns for four chains of independent standard normal
// draws: the effective sample sizes are close to the 4000 draws and the
// Monte Carlo error of the mean close to 1/√4000 ≈ 0.016.
func ExampleTailESS() {
	rng := rand.New(rand.NewPCG(1, 2))
	chains := make([]*mat.Dense, 4)
	for c := range chains {
		chains[c] = mat.NewDense(1000, 1, nil)
		for i := 0; i < 1000; i++ {
			chains[c].Set(i, 0, rng.NormFloat64())
		}
	}
	bulk := metric.BulkESS(chains, nil)[0]
	tail := metric.TailESS(chains, nil)[0]
	mcse := metric.MCSE(chains, nil)[0]
	fmt.Printf("bulk ESS within 15%% of 4000: %v\n", bulk > 3400 && bulk < 4600)
	fmt.Printf("tail ESS within 15%% of 4000: %v\n", tail > 3400 && tail < 4600)
	fmt.Printf("MCSE of the mean: %.3f\n", mcse)
	// Output:
	// bulk ESS within 15% of 4000: true
	// tail ESS within 15% of 4000: true
	// MCSE of the mean: 0.016
}
