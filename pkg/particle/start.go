package particle

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Start is where a run begins: an argument of every method's Run and Init
// (and of sampler.Sampler's Run) beside its Settings, which hold only what
// can be tuned and written to a file. It is what the run is given, not how
// it runs.
//
// The zero value means each method's documented default start (typically
// a prior draw, else the origin, from which a method that runs in the
// whitened coordinates of a Laplace fit searches the MAP). The methods read
// a Start as follows:
//
//   - X0 is a point of the target's space (length Dim) around which the
//     method draws its start, at its Settings' InitScale (init_scale or
//     jitter) where it has one: SVGD's initial particles and the SGLD and
//     HMC chains start at X0 + InitScale·z, z ~ N(0, I); Stein Points' first
//     candidates are X0 and perturbations of it; MMD-FW's first particle
//     is X0 (mmdfw.FirstGiven) or found from it (FirstMAP, FirstTrained). With
//     the whitened coordinates of a Laplace fit, X0 is where the search
//     for the MAP starts, and the start is drawn around the MAP in the
//     fit's scales instead (MMD-FW's StartGiven keeps X0 as its first
//     particle).
//   - Particles is a whole starting set, one particle per row (n×Dim): SVGD
//     moves exactly these particles (n replaces Settings.N); MMD-FW takes
//     them as its SVGD particles, its first particle and candidates
//     (InitSVGD) and the draws of its median heuristic. Stein Points, SGLD
//     and HMC have no use for a set and return an error naming themselves
//     when it is not nil.
//
// A run copies what it reads and never modifies X0 or Particles.
type Start struct {
	// X0 is the point the start is drawn around; nil means the method's
	// default.
	X0 []float64
	// Particles is a whole starting set, one particle per row; nil means
	// none.
	Particles *mat.Dense
}

// NoParticles returns an error naming method when s has Particles, for a
// method that starts from a point only; nil otherwise.
func (s Start) NoParticles(method string) error {
	if s.Particles != nil {
		r, c := s.Particles.Dims()
		return fmt.Errorf("%s: a starting set (Start.Particles, %d×%d) is not supported: the method starts from a point (Start.X0)", method, r, c)
	}
	return nil
}
