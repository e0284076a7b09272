package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// MAP is a (near) maximum a posteriori point with what it cost, stored as an
// artefact so that every cell of a dataset split shares one computation.
type MAP struct {
	X          []float64 `json:"x"`
	LogProb    float64   `json:"log_prob"`
	GradNorm   float64   `json:"grad_inf_norm"`
	Iterations int       `json:"iterations"`
	Status     string    `json:"status"`
	// Seconds and GradEvals are the cost of the L-BFGS run; a method that
	// starts from the MAP is charged them (see chargeRecorder).
	Seconds   float64 `json:"seconds"`
	GradEvals int64   `json:"grad_evals"`
}

// mapIterations bounds the L-BFGS iterations of a MAP fit.
const mapIterations = 2000

// fitMAP maximises log p from the origin by L-BFGS (memory 10, two-loop
// recursion, backtracking Armijo line search) with full-data gradients,
// stopping when ‖∇log p‖∞ < 1e-6·max(1, |log p|), when a step gains less
// than 1e-12·max(1, |log p|), or after mapIterations. (gonum/optimize would
// pull in a module the build does not carry.)
func fitMAP(ctx context.Context, t target.Target) (*MAP, error) {
	const mem = 10
	d := t.Dim()
	start := time.Now()
	x := make([]float64, d)
	g := make([]float64, d)
	calls := int64(0)
	f := func(x, g []float64) float64 {
		calls++
		lp := t.LogProbGrad(x, g)
		for i := range g {
			g[i] = -g[i]
		}
		return -lp
	}
	fx := f(x, g)
	var sHist, yHist [][]float64
	var rho []float64
	dir := make([]float64, d)
	xn := make([]float64, d)
	gn := make([]float64, d)
	alpha := make([]float64, mem)
	status := "iteration limit"
	it := 0
	for ; it < mapIterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if floats.Norm(g, math.Inf(1)) < 1e-6*math.Max(1, math.Abs(fx)) {
			status = "gradient tolerance"
			break
		}
		// Two-loop recursion: dir = −H g.
		copy(dir, g)
		for i := len(sHist) - 1; i >= 0; i-- {
			alpha[i] = rho[i] * floats.Dot(sHist[i], dir)
			floats.AddScaled(dir, -alpha[i], yHist[i])
		}
		if k := len(sHist); k > 0 {
			floats.Scale(floats.Dot(sHist[k-1], yHist[k-1])/floats.Dot(yHist[k-1], yHist[k-1]), dir)
		} else {
			floats.Scale(1/math.Max(1, floats.Norm(g, 2)), dir)
		}
		for i := range sHist {
			b := rho[i] * floats.Dot(yHist[i], dir)
			floats.AddScaled(dir, alpha[i]-b, sHist[i])
		}
		floats.Scale(-1, dir)
		slope := floats.Dot(g, dir)
		if !(slope < 0) {
			// Not a descent direction: restart from steepest descent.
			sHist, yHist, rho = sHist[:0], yHist[:0], rho[:0]
			copy(dir, g)
			floats.Scale(-1/math.Max(1, floats.Norm(g, 2)), dir)
			slope = floats.Dot(g, dir)
		}
		step := 1.0
		var fn float64
		for {
			floats.AddScaledTo(xn, x, step, dir)
			fn = f(xn, gn)
			if fn <= fx+1e-4*step*slope && !math.IsNaN(fn) {
				break
			}
			step /= 2
			if step < 1e-20 {
				status = "line search failed"
				it = mapIterations
				break
			}
		}
		if status == "line search failed" {
			break
		}
		s := make([]float64, d)
		y := make([]float64, d)
		floats.SubTo(s, xn, x)
		floats.SubTo(y, gn, g)
		if sy := floats.Dot(s, y); sy > 1e-12*floats.Dot(y, y) {
			if len(sHist) == mem {
				sHist, yHist, rho = sHist[1:], yHist[1:], rho[1:]
			}
			sHist, yHist, rho = append(sHist, s), append(yHist, y), append(rho, 1/sy)
		}
		gain := fx - fn
		copy(x, xn)
		copy(g, gn)
		fx = fn
		if gain < 1e-12*math.Max(1, math.Abs(fx)) {
			status = "function tolerance"
			break
		}
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("MAP: non-finite point (%s)", status)
		}
	}
	return &MAP{
		X: x, LogProb: -fx, GradNorm: floats.Norm(g, math.Inf(1)), Iterations: it,
		Status: status, Seconds: time.Since(start).Seconds(), GradEvals: calls * int64(target.NData(t)),
	}, nil
}

// mapOf returns the MAP of the cell's dataset split, computed once per
// results directory.
func mapOf(ctx context.Context, env *harness.Env, d *Data, t target.Target) (*MAP, error) {
	key := fmt.Sprintf("map/%s/s%d/%s", d.Name, env.Cell.Split, d.Key)
	b, err := env.Artefact(ctx, key, func(ctx context.Context) ([]byte, error) {
		m, err := fitMAP(ctx, t)
		if err != nil {
			return nil, err
		}
		return json.Marshal(m)
	})
	if err != nil {
		return nil, err
	}
	var m MAP
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("MAP artefact %s: %w", key, err)
	}
	if len(m.X) != t.Dim() {
		return nil, fmt.Errorf("MAP artefact %s: length %d, want %d", key, len(m.X), t.Dim())
	}
	return &m, nil
}

// chargeRecorder adds a cost paid before the method started (a shared MAP
// fit) to every snapshot, so that curves against time and gradient
// evaluations include it although it was computed once.
type chargeRecorder struct {
	rec     particle.Recorder
	seconds float64
	grads   int64
}

func (c chargeRecorder) Record(s particle.Snapshot) error {
	s.Seconds += c.seconds
	s.GradEvals += c.grads
	return c.rec.Record(s)
}
