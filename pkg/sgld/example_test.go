package sgld_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Sample N(2, 0.5²) with the zero Settings: 4 chains in the coordinates
// of the Laplace fit at the MAP, their step adapted during a burn-in of
// 1000 iterations, run until R̂ < 1.01 and the bulk ESS reaches 400; the
// set is the second half of every chain's draws, thinned by 10.
func ExampleRun() {
	const mu, sd = 2.0, 0.5
	gauss := target.Func{D: 1, F: func(x, grad []float64) float64 {
		r := (x[0] - mu) / sd
		grad[0] = -r / sd
		return -r * r / 2
	}}
	set, err := sampler.Set(sgld.Run(context.Background(), gauss, particle.Start{}, sgld.Settings{}, rand.NewPCG(1, 2), nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	var m, v float64
	for i := range set.Len() {
		m += set.W[i] * set.X.At(i, 0)
	}
	for i := range set.Len() {
		r := set.X.At(i, 0) - m
		v += set.W[i] * r * r
	}
	fmt.Printf("%d particles, mean %.1f, sd %.1f\n", set.Len(), m, math.Sqrt(v))
	fmt.Printf("%.0f iterations per chain, flagged: %v\n", set.Diag.Values["iterations"], set.Diag.Flagged())
	// Output:
	// 1860 particles, mean 2.0, sd 0.5
	// 10300 iterations per chain, flagged: false
}

// A constant step size in the target's own coordinates, for a fixed number
// of iterations: the chain's stationary law is then N(2, 0.5²)
// widened by the discretisation, here by a factor 1/√(1 − ε/(4·0.5²)) ≈ 1.03
// at ε = 0.03.
func ExampleRun_constantSchedule() {
	const mu, sd = 2.0, 0.5
	gauss := target.Func{D: 1, F: func(x, grad []float64) float64 {
		r := (x[0] - mu) / sd
		grad[0] = -r / sd
		return -r * r / 2
	}}
	s := sgld.Settings{Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed}, Schedule: sgld.ScheduleConstant, A: 0.03, Iterations: 40000}
	set, err := sampler.Set(sgld.Run(context.Background(), gauss, particle.Start{}, s, rand.NewPCG(1, 2), nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	var m, v float64
	for i := range set.Len() {
		m += set.W[i] * set.X.At(i, 0)
	}
	for i := range set.Len() {
		r := set.X.At(i, 0) - m
		v += set.W[i] * r * r
	}
	fmt.Printf("%d particles, mean %.1f, sd %.2f\n", set.Len(), m, math.Sqrt(v))
	// Output:
	// 8000 particles, mean 2.0, sd 0.51
}

// NoBurnIn and NoInitScale are the named "none" of their fields; any other
// negative value is refused, naming the field.
func ExampleSettings_Validate() {
	fmt.Println(sgld.Settings{BurnIn: sgld.NoBurnIn, InitScale: sgld.NoInitScale}.Validate())
	fmt.Println(sgld.Settings{BurnIn: -5}.Validate())
	// Output:
	// <nil>
	// burn_in = -5: must not be negative (NoBurnIn, -1, discards nothing)
}

// A loop of Steps driven from outside: 4 chains on N(2, 0.5²) in the
// target's coordinates, a constant step, 100 iterations at a time until
// the mean of the kept draws moves by less than 0.002 over 100 iterations,
// a criterion of the caller's own.
func ExampleSteps() {
	gauss := target.Func{D: 1, F: func(x, grad []float64) float64 {
		r := (x[0] - 2) / 0.5
		grad[0] = -r / 0.5
		return -r * r / 2
	}}
	ctx := context.Background()
	st, err := sgld.Init(ctx, gauss, particle.Start{X0: []float64{0}}, sgld.Settings{
		Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed}, Schedule: sgld.ScheduleConstant, A: 0.05, Iterations: 100000, BurnIn: 500,
	}, rand.NewPCG(1, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	mean := func() float64 {
		x := st.Draws(nil)
		if x == nil {
			return math.NaN()
		}
		var m float64
		for i := 0; i < st.Len(); i++ {
			m += x.At(i, 0) / float64(st.Len())
		}
		return m
	}
	prev := mean()
	for st.Iteration < 100000 {
		if err := sgld.Steps(ctx, st, 100); err != nil {
			fmt.Println(err)
			return
		}
		m := mean()
		if math.Abs(m-prev) < 0.002 {
			prev = m
			break
		}
		prev = m
	}
	fmt.Printf("stopped after %d iterations per chain, %d draws, mean %.1f\n", st.Iteration, st.Len(), prev)
	// Output:
	// stopped after 2200 iterations per chain, 680 draws, mean 2.0
}
