// Command readme is the example of README.md ("MMD-FW on your own
// posterior"), kept here so that it compiles and runs as a test.
package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func main() {
	// The banana p(a, b) ∝ exp(−a²/2 − (b − a²)²/2): E[a] = 0, E[b] = E[a²] = 1.
	banana := target.Func{D: 2, F: func(x, grad []float64) float64 {
		a, b := x[0], x[1]
		r := b - a*a
		grad[0], grad[1] = -a+2*a*r, -r
		return -0.5*a*a - 0.5*r*r
	}}
	// The zero Settings, run from a start point: the first particle is the
	// MAP found from X0, and the Laplace fit there sets the run's scales (the
	// kernel, the candidates' noise, the steps). Particles are added until
	// their KSD² is that of 1000 independent draws, at most 400; a run that
	// reaches that ceiling first says so in set.Diag.
	var s mmdfw.Settings
	start := particle.Start{X0: []float64{0, 0}}
	set, err := s.Run(context.Background(), banana, start, rand.NewPCG(1, 2), particle.Discard)
	if err != nil {
		log.Fatal(err)
	}
	mean := set.Mean(nil) // Σᵢ wᵢ xᵢ
	fmt.Printf("%d particles, mean (%.2f, %.2f), flagged: %v\n", set.Len(), mean[0], mean[1], set.Diag.Flagged())
}
