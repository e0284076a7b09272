package sampler_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Every method is a Sampler: the same loop runs them all on one posterior,
// here N((1, 1), I) given as a plain function, from one start point.
func ExampleSampler() {
	post := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = 1-x[0], 1-x[1]
		return -0.5 * ((x[0]-1)*(x[0]-1) + (x[1]-1)*(x[1]-1))
	}}
	x0 := []float64{0, 0}
	methods := []struct {
		name string
		s    sampler.Sampler
	}{
		{"mmdfw", mmdfw.Settings{N: 50}},
		{"svgd", svgd.Settings{N: 50, StepSize: 0.1}},
		{"sp", sp.Settings{N: 50}},
		{"sgld", sgld.Settings{}},
		{"hmc", hmc.Settings{}},
	}
	for _, m := range methods {
		set, err := m.s.Run(context.Background(), post, particle.Start{X0: x0}, rand.NewPCG(1, 2), particle.Discard)
		if err != nil {
			fmt.Println(m.name, err)
			continue
		}
		mean := set.Mean(nil)
		fmt.Printf("%-5s %4d particles, mean within 0.2 of (1, 1): %v\n", m.name, set.Len(),
			abs(mean[0]-1) < 0.2 && abs(mean[1]-1) < 0.2)
	}
	// Output:
	// mmdfw   50 particles, mean within 0.2 of (1, 1): true
	// svgd    50 particles, mean within 0.2 of (1, 1): true
	// sp      50 particles, mean within 0.2 of (1, 1): true
	// sgld  1860 particles, mean within 0.2 of (1, 1): true
	// hmc   4000 particles, mean within 0.2 of (1, 1): true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
