package sampler_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// stepSVGD is README's "Stepping a method yourself", word for word: a
// State stepped to its own stopping rule, then its result.
func stepSVGD(ctx context.Context, t target.Target, start particle.Start, s svgd.Settings, src rand.Source) error {
	st, err := svgd.Init(ctx, t, start, s, src) // mmdfw.Init, sp.Init, sgld.Init, hmc.Init
	if err != nil {
		return err
	}
	defer st.Close()
	for !st.Done() { // the method's stopping rule or its ceiling
		// One update, particle, point, iteration or transition.
		if err := st.Step(ctx); err != nil {
			return err
		}
	}
	res, err := st.Result() // sampler.Result: res.Set (with Set.Diag), res.Cost, res.Detail
	if err != nil {
		return err
	}
	fmt.Printf("%d particles after %d gradient evaluations\n", res.Set.Len(), res.Cost.GradEvals)
	return nil
}

// A method stepped by hand: SVGD to its iteration count.
func Example_step() {
	t := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0], g[1] = -x[0], -x[1]
		return -(x[0]*x[0] + x[1]*x[1]) / 2
	}}
	s := svgd.Settings{N: 10, Iterations: 30, StepSize: 0.05}
	if err := stepSVGD(context.Background(), t, particle.Start{X0: []float64{0.5, 0.5}}, s, rand.NewPCG(1, 2)); err != nil {
		fmt.Println(err)
	}
	// Output: 10 particles after 307 gradient evaluations
}
