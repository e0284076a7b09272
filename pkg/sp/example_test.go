package sp_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Stein Points for a standard normal in two dimensions, known only through
// its score.
func Example() {
	normal := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = -x[0], -x[1]
		return -0.5 * (x[0]*x[0] + x[1]*x[1])
	}}
	spRes, err := sp.Run(context.Background(), normal, particle.Start{X0: []float64{0, 0}},
		sp.Settings{N: 30}, rand.NewPCG(1, 2), nil)
	set := spRes.Set
	cost, _ := spRes.Detail.(sp.Cost)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("points:", set.Len())
	fmt.Printf("first point: %.1f\n", set.X.RawRowView(0))
	fmt.Printf("KSD² falls: %v\n", cost.KSD2(30) < cost.KSD2(10)/2)
	fmt.Println("score calls add up:", cost.ScoreCalls == sum(cost.Candidates)+sum(cost.Refine))
	// Output:
	// points: 30
	// first point: [0.0 0.0]
	// KSD² falls: true
	// score calls add up: true
}

func sum(v []int) int64 {
	var s int64
	for _, x := range v {
		s += int64(x)
	}
	return s
}

// NoRefinement, NoBox and NoPriorDraws turn the Nelder–Mead refinement,
// the search box and the prior candidates off; other negative values are
// refused, naming the field.
func ExampleSettings_Validate() {
	fmt.Println(sp.Settings{NelderMeadEvals: sp.NoRefinement, Box: sp.NoBox, PriorFraction: sp.NoPriorDraws}.Validate())
	fmt.Println(sp.Settings{Box: -0.5}.Validate())
	// Output:
	// <nil>
	// box = -0.5: must not be negative (NoBox, -1, searches without a box)
}

// The zero Settings on a posterior whose coordinates differ by 10³ in
// scale, given only where to start looking for its mode: the points are
// placed in the whitened coordinates of the Laplace fit at the MAP, until
// their KSD² is that of 1000 independent draws.
func Example_zeroValue() {
	g, err := target.NewGaussian([]float64{0.02, 30}, mat.NewSymDense(2, []float64{1e-4, 0.05, 0.05, 100}))
	if err != nil {
		fmt.Println(err)
		return
	}
	post := target.Func{D: 2, F: g.LogProbGrad}
	set, err := sp.Settings{}.Run(context.Background(), post, particle.Start{X0: []float64{0, 0}}, rand.NewPCG(1, 2), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := set.Mean(nil)
	fmt.Printf("%d points, mean (%.3f, %.1f), flagged: %v\n", set.Len(), m[0], m[1], set.Diag.Flagged())
	// Output:
	// 55 points, mean (0.020, 30.0), flagged: false
}

// A loop of Step driven from outside: Stein Points for a standard normal
// in two dimensions, ten points at a time, until the KSD² of the points
// falls below 0.01, a criterion of the caller's own.
func ExampleStep() {
	normal := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = -x[0], -x[1]
		return -0.5 * (x[0]*x[0] + x[1]*x[1])
	}}
	ctx := context.Background()
	st, err := sp.Init(ctx, normal, particle.Start{X0: []float64{0, 0}}, sp.Settings{Frame: sampler.Frame{Whiten: sp.WhitenNone, Stop: sp.StopFixed}, N: 200}, rand.NewPCG(1, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	for st.Points < 200 && (st.Points == 0 || st.KSD2 >= 0.01) {
		for k := 0; k < 10; k++ {
			if err := sp.Step(ctx, st); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	fmt.Printf("%d points, KSD² %.3f, %d score calls\n", st.Points, st.KSD2, st.Cost().ScoreCalls)
	// Output:
	// 50 points, KSD² 0.008, 4292 score calls
}
