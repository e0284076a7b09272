package particle_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// A start is an argument of every method's Run, apart from its Settings:
// the zero value is the method's default start, X0 a point to start
// around, Particles a whole starting set, which a method that starts from
// a point refuses.
func ExampleStart() {
	var start particle.Start // each method's default start
	fmt.Println(start.NoParticles("sgld"))
	start = particle.Start{X0: []float64{0, 0}} // around the origin
	fmt.Println(start.NoParticles("sgld"))
	start = particle.Start{Particles: mat.NewDense(3, 2, nil)} // three particles in two dimensions
	fmt.Println(start.NoParticles("sgld"))
	// Output:
	// <nil>
	// <nil>
	// sgld: a starting set (Start.Particles, 3×2) is not supported: the method starts from a point (Start.X0)
}
