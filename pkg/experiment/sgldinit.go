package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// laplaceFit fetches the cell's MAP x̂, fits the Laplace approximation
// N(x̂, (−∇²log p(x̂))⁻¹) there and wraps the recorder so that the MAP's
// and the fit's seconds and gradient evaluations are charged to the
// method: the start of SVGD's and SGLD's init = "laplace".
func laplaceFit(ctx context.Context, env *harness.Env, p *harness.Problem, rec particle.Recorder) (*laplace.Approx, particle.Recorder, map[string]any, *MAP, error) {
	m, rec, err := startMAP(ctx, env, p, rec, false)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	start := time.Now()
	l, err := laplace.Fit(ctx, p.Target, m.X, laplace.FitSettings{})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("fit of the Laplace approximation at the MAP: %w", err)
	}
	sec := time.Since(start).Seconds()
	rec = chargeRecorder{rec: rec, seconds: m.Seconds + sec, grads: m.GradEvals + l.GradEvals}
	info := map[string]any{"laplace": map[string]any{
		"seconds": sec, "grad_evals": l.GradEvals, "flipped": l.Flipped, "floored": l.Floored,
	}}
	return l, rec, info, m, nil
}

// laplaceChains returns t with its prior draws replaced by draws of the
// Laplace fit l: SGLD started without a point (a zero particle.Start)
// starts each chain at a draw of the target's target.PriorSampler from
// the chain's own random stream, so that on the returned target every
// chain starts at its own draw x̂ + Lz, z ~ N(0, I), of N(x̂, LLᵀ), and a
// redrawn start (one outside the support) is another such draw. The
// target's density, scores and minibatch scores (target.Stochastic) are
// t's; SGLD reads no other interface of its target.
func laplaceChains(t target.Target, l *laplace.Approx) target.Target {
	lt := laplaceDraws{Target: t, l: l}
	if st, ok := t.(target.Stochastic); ok {
		return laplaceDrawsStochastic{laplaceDraws: lt, st: st}
	}
	return lt
}

// laplaceDraws is a target whose prior draws are draws of a Laplace fit.
type laplaceDraws struct {
	target.Target
	l *laplace.Approx
}

// SamplePrior writes x̂ + Lz, z ~ N(0, I) from rng, into dst.
func (t laplaceDraws) SamplePrior(rng *rand.Rand, dst []float64) {
	z := make([]float64, len(dst))
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	t.l.Noise(dst, 1, z)
	for j, v := range t.l.X {
		dst[j] += v
	}
}

// laplaceDrawsStochastic is laplaceDraws of a target.Stochastic target.
type laplaceDrawsStochastic struct {
	laplaceDraws
	st target.Stochastic
}

// NData returns the wrapped target's number of datapoints.
func (t laplaceDrawsStochastic) NData() int { return t.st.NData() }

// MinibatchLogProbGrad is the wrapped target's minibatch estimate.
func (t laplaceDrawsStochastic) MinibatchLogProbGrad(x, grad []float64, batch []int) float64 {
	return t.st.MinibatchLogProbGrad(x, grad, batch)
}
