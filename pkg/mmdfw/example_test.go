package mmdfw_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
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
	s := mmdfw.Settings{N: 50, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}}
	sStart, sIn := particle.Start{}, mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}
	s.Inputs = sIn
	set, err := sampler.Set(mmdfw.Run(context.Background(), g, sStart, s, rand.NewPCG(1, 2), rec))
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

// Settings refuse negative values instead of replacing them: the error
// names the field by its experiment-file key (N is an arm's particles).
func ExampleSettings_Validate() {
	err := mmdfw.Settings{N: -5}.Validate()
	fmt.Println(err)
	e, _ := setting.As(err)
	fmt.Println(e.Field)
	// Output:
	// particles = -5: must not be negative
	// particles
}

// A loop of Step driven from outside: MMD-FW with BQ weights on a
// Gaussian whose embedding is known, ten particles at a time, until the
// weighted mean moves by less than 0.01 over ten particles, a criterion of
// the caller's own.
func ExampleStep() {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	st, err := mmdfw.Init(ctx, g, particle.Start{}, mmdfw.Settings{Inputs: mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}, N: 200, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}, Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}},
		rand.NewPCG(1, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	var set particle.Set
	st.Set(&set)
	prev := set.Mean(nil)
	for st.Particles+10 <= 200 {
		for k := 0; k < 10; k++ {
			if err := mmdfw.Step(ctx, st); err != nil {
				fmt.Println(err)
				return
			}
		}
		st.Set(&set)
		m := set.Mean(nil)
		change := math.Hypot(m[0]-prev[0], m[1]-prev[1])
		prev = m
		if change < 0.01 {
			break
		}
	}
	fmt.Printf("stopped at %d particles, weighted mean (%.2f, %.2f)\n", st.Particles, prev[0], prev[1])
	// Output:
	// stopped at 51 particles, weighted mean (1.01, -0.99)
}
