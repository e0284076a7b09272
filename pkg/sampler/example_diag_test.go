package sampler_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Every result says how far to trust it in Set.Diag. Here Stein Points,
// started on the right mode of 0.3·N(−2, 0.5²) + 0.7·N(3, 1), never find
// the left one: the set looks like a fine sample of N(3, 1), and only the
// diagnostics say that a region as probable as the set's own lies outside
// it. With Strict, the flag becomes an error beside the set.
func ExampleSampler_diagnostics() {
	post := target.Func{D: 1, F: func(x, g []float64) float64 {
		a := math.Log(0.3/0.5) - 2*(x[0]+2)*(x[0]+2)
		b := math.Log(0.7) - 0.5*(x[0]-3)*(x[0]-3)
		m := math.Max(a, b)
		lp := m + math.Log(math.Exp(a-m)+math.Exp(b-m))
		g[0] = -4*math.Exp(a-lp)*(x[0]+2) - math.Exp(b-lp)*(x[0]-3)
		return lp
	}}
	set, err := sp.Settings{}.Run(context.Background(), post, particle.Start{X0: []float64{3}}, rand.NewPCG(1, 2), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean %.1f (the target's is 1.5)\n", set.Mean(nil)[0])
	_, ksd := set.Diag.Values["ksd2"]
	v, spread := set.Diag.Values["stein_spread"]
	fmt.Println("KSD² and spread ratio recorded:", ksd, spread)
	fmt.Printf("Kish ESS equals the number of points: %v; spread ratio within 0.2 of 1: %v\n",
		math.Abs(set.Diag.Values["kish_ess"]-float64(set.Len())) < 1e-6, math.Abs(v-1) < 0.2)
	for _, f := range set.Diag.Flags {
		fmt.Println("flag:", f.Code)
	}

	_, err = sp.Settings{Frame: sampler.Frame{Strict: true}}.Run(context.Background(), post, particle.Start{X0: []float64{3}}, rand.NewPCG(1, 2), nil)
	var fe *particle.FlaggedError
	fmt.Println("strict:", errors.Is(err, particle.ErrFlagged), errors.As(err, &fe) && fe.Method == "sp")
	// Output:
	// mean 3.0 (the target's is 1.5)
	// KSD² and spread ratio recorded: true true
	// Kish ESS equals the number of points: true; spread ratio within 0.2 of 1: true
	// flag: mode
	// strict: true true
}
