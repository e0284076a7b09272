package sp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestRefineCap: gonum's Nelder–Mead, run through the refiner on the first
// objective of a d = 5 logistic regression, spends exactly the evaluation
// cap when it is too small to converge (every evaluation one score call,
// none refused by the guard), never lowers the best value, and improves
// on the start once the initial simplex (d evaluations) has been built.
// With the default cap it converges before the cap, at the mode, where
// f₁ = k₀(x, x)/2 = −βd = 2.5 exactly in value.
func TestRefineCap(t *testing.T) {
	const d = 5
	lr := fixedPriorLogistic(rand.New(rand.NewPCG(2, 3)), 50, d)
	x0 := []float64{1, -1, 0.5, 2, -0.3}
	for _, limit := range []int{1, 2, 3, 7, 50, 200 * d} {
		o := newObjective(lr, kernel.IMQ{}, 1)
		o.beginStep()
		f0 := o.eval(x0)
		r := newRefiner(o)
		if err := r.run(context.Background(), x0, f0, 0.1, limit); err != nil {
			t.Fatal(err)
		}
		used := int(o.calls) - 1
		switch {
		case r.refused != 0:
			t.Errorf("cap %d: %d evaluations beyond the cap asked for", limit, r.refused)
		case limit < 200*d && used != limit:
			t.Errorf("cap %d: %d score calls, want exactly the cap", limit, used)
		case limit == 200*d && used >= limit:
			t.Errorf("cap %d: %d score calls, want convergence before the cap", limit, used)
		case o.bestF > f0:
			t.Errorf("cap %d: best %v above the start %v", limit, o.bestF, f0)
		case limit > d && !(o.bestF < f0):
			t.Errorf("cap %d: best %v does not improve on the start %v", limit, o.bestF, f0)
		}
		if limit == 200*d && math.Abs(o.bestF-2.5) > 1e-3 {
			t.Errorf("converged to %v, want the mode's 2.5 within the tolerance 10⁻³", o.bestF)
		}
		t.Logf("cap %d: %d evaluations, f %.6g → %.6g", limit, used, f0, o.bestF)
	}

	// The guard: beyond the cap the objective is not scored.
	o := newObjective(lr, kernel.IMQ{}, 1)
	r := newRefiner(o)
	if f := r.eval(x0); !math.IsInf(f, 1) || o.calls != 0 || r.refused != 1 || o.nonFinite {
		t.Errorf("evaluation beyond the cap: %v with %d score calls, %d refused", f, o.calls, r.refused)
	}

	// A cancelled context stops the refinement with its error: before it
	// starts, or right after the evaluation during which it was cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.beginStep()
	f0 := o.eval(x0)
	if err := r.run(ctx, x0, f0, 0.1, 100); !errors.Is(err, context.Canceled) || o.calls != 1 {
		t.Errorf("cancelled before: error %v after %d score calls, want 1", err, o.calls)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var calls int
	cancelling := target.Func{D: d, F: func(x, g []float64) float64 {
		if calls++; calls == 10 {
			cancel()
		}
		return lr.LogProbGrad(x, g)
	}}
	o = newObjective(cancelling, kernel.IMQ{}, 1)
	r = newRefiner(o)
	o.beginStep()
	f0 = o.eval(x0)
	if err := r.run(ctx, x0, f0, 0.1, 100); !errors.Is(err, context.Canceled) || o.calls != 10 {
		t.Errorf("cancelled during: error %v after %d score calls, want 10", err, o.calls)
	}
}
