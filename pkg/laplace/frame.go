package laplace

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// Frame is where a whitened run computes its diagnostics: the target in
// its own coordinates x = W.ToX(z), so that they read the same whatever
// the coordinates of the run (an R̂, a KSD² or a spread in x, not in z).
// A nil *Frame is the run's own coordinates.
type Frame struct {
	// Target is the log density in the coordinates x.
	Target target.Target
	// W maps the run's coordinates z to x.
	W *Whitening
}

// In returns the target and the points z of a run, rt its target, in the
// coordinates of f: f.Target and x = W.ToX(z) (a new matrix), or rt and z
// themselves for a nil f.
func (f *Frame) In(rt target.Target, z *mat.Dense) (target.Target, *mat.Dense) {
	if f == nil {
		return rt, z
	}
	return f.Target, f.W.RowsToX(nil, z)
}
