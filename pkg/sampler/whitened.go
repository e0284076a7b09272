package sampler

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// Whitened is what the State of a run in the coordinates of the target's
// Laplace fit (Frame.Whiten = WhitenLaplace) keeps of them: the map W
// from the run's coordinates z to the target's x (nil for a run in x), the
// gradient evaluations of the MAP search and the fit (Evals in all,
// MAPEvals of the search), and the buffer of its snapshots' rows. SVGD,
// SGLD and Stein Points keep one; its methods are the steps their runs
// share.
type Whitened struct {
	W               *laplace.Whitening
	Evals, MAPEvals int64
	buf             []float64
}

// Fit returns the Whitened of the fit sc.
func Fit(sc laplace.Scaled) Whitened {
	return Whitened{W: sc.Whitening, Evals: sc.GradEvals, MAPEvals: sc.MAP.GradEvals}
}

// Rows returns the rows z of a snapshot in x, in a buffer reused from one
// call to the next (z itself for a run in x).
func (w *Whitened) Rows(z *mat.Dense) *mat.Dense { return w.W.Snapshot(&w.buf, z) }

// Cost is the bill of a run that has spent evals gradient evaluations in
// all, the fit's parts named.
func (w *Whitened) Cost(evals int64) Cost {
	return Cost{GradEvals: evals, MAP: Part{GradEvals: w.MAPEvals}, Laplace: Part{GradEvals: w.Evals - w.MAPEvals}}
}

// End returns set, a run's set in its own coordinates, and err as the
// method's Run returns them: for a run in z, nothing on an error other
// than ctx's cancellation, else the set mapped to x with the fit's
// gradient evaluations recorded ("scale_grad_evals") and, when err is nil,
// the *particle.FlaggedError of strict (the caller's Strict: the run's own
// set in z is not judged).
func (w *Whitened) End(ctx context.Context, method string, set particle.Set, err error, strict bool) (particle.Set, error) {
	if w.W == nil {
		return set, err
	}
	if err != nil && ctx.Err() == nil {
		return particle.Set{}, err
	}
	if set.X != nil {
		set.X = w.W.RowsToX(nil, set.X)
		set.Diag.Set("scale_grad_evals", float64(w.Evals))
	}
	if err == nil {
		err = particle.Strict(method, set, strict)
	}
	return set, err
}
