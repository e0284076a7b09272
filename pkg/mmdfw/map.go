package mmdfw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// findMAP moves x to a (near) maximiser of log p by gonum's L-BFGS on
// −log p and returns the per-datapoint gradient evaluations it spent. With
// Settings.MAPBatch every evaluated point gets one fresh minibatch, shared
// by its value and gradient so that L-BFGS sees a consistent pair.
func findMAP(ctx context.Context, t target.Target, x []float64, s *Settings, rng *rand.Rand) (int64, error) {
	d := len(x)
	var evals int64
	st, stoch := t.(target.Stochastic)
	var batch []int
	if stoch && s.MAPBatch > 0 && s.MAPBatch < st.NData() {
		batch = make([]int, s.MAPBatch)
	}
	nd := int64(target.NData(t))
	lastX := make([]float64, d)
	lastG := make([]float64, d)
	lastF := math.NaN()
	eval := func(x []float64) {
		if !math.IsNaN(lastF) && slices.Equal(x, lastX) {
			return
		}
		copy(lastX, x)
		var lp float64
		if batch != nil {
			for i := range batch {
				batch[i] = rng.IntN(st.NData())
			}
			lp = st.MinibatchLogProbGrad(x, lastG, batch)
			evals += int64(len(batch))
		} else {
			lp = t.LogProbGrad(x, lastG)
			evals += nd
		}
		lastF = -lp
		for j := range lastG {
			lastG[j] = -lastG[j]
		}
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			eval(x)
			return lastF
		},
		Grad: func(grad, x []float64) {
			eval(x)
			copy(grad, lastG)
		},
	}
	set := &optimize.Settings{
		MajorIterations:   s.MAPIterations,
		GradientThreshold: s.MAPGradTol,
		Recorder:          ctxRecorder{ctx},
	}
	res, err := optimize.Minimize(p, x, set, &optimize.LBFGS{})
	if e := ctx.Err(); e != nil {
		return evals, e
	}
	if res == nil {
		return evals, fmt.Errorf("mmdfw: MAP search: %w", err)
	}
	// A line-search failure near the optimum (round-off, or minibatch
	// noise) still leaves the best point found, which is all the first
	// particle needs; only a non-finite point is an error.
	for _, v := range res.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return evals, fmt.Errorf("mmdfw: MAP search ended at a non-finite point (%v)", err)
		}
	}
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return evals, fmt.Errorf("mmdfw: MAP search ended with −log p = %v (%v)", res.F, err)
	}
	copy(x, res.X)
	return evals, nil
}

// ctxRecorder stops L-BFGS when the context is done.
type ctxRecorder struct{ ctx context.Context }

func (c ctxRecorder) Init() error { return nil }

func (c ctxRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	return c.ctx.Err()
}
