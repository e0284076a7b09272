package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/laplace"
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

// mapIterations bounds the L-BFGS iterations of a MAP fit, mapGradTol is
// its relative gradient tolerance, and mapVersion names the fit: the three
// are part of the artefact's key, so a change to any recomputes the MAP.
const (
	mapIterations = 2000
	mapGradTol    = 1e-6
	mapVersion    = "1"
)

// fitMAP maximises log p from the origin with laplace.FindMAP (gonum's
// L-BFGS) and full-data gradients, stopping when ‖∇log p‖∞ <
// 1e-6·max(1, |log p|), when −log p has not improved by 1e-12·|log p| in 10
// iterations, when the line search fails near the optimum, or after
// mapIterations.
//
// A positive newtonTol also stops it at a Newton decrement below newtonTol
// posterior sd (laplace.MAPSettings.NewtonTol) on a target with an exact
// Hessian.
func fitMAP(ctx context.Context, t target.Target, newtonTol float64) (*MAP, error) {
	start := time.Now()
	r, err := laplace.FindMAP(ctx, t, make([]float64, t.Dim()),
		laplace.MAPSettings{Iterations: mapIterations, GradTol: mapGradTol, NewtonTol: newtonTol})
	if err != nil {
		return nil, fmt.Errorf("MAP: %w", err)
	}
	return &MAP{
		X: r.X, LogProb: r.LogProb, GradNorm: r.GradNorm, Iterations: r.Iterations,
		Status: r.Status, Seconds: time.Since(start).Seconds(), GradEvals: r.GradEvals,
	}, nil
}

// mapOf returns the MAP of the cell's dataset split, computed once per
// results directory. The seconds it charges are those of the cell that
// computed it, under that cell's thread budget.
func mapOf(ctx context.Context, env *harness.Env, d *Info, t target.Target) (*MAP, error) {
	return mapOfNewton(ctx, env, d, t, 0)
}

// mapOfNewton is mapOf with the Newton-decrement stop of fitMAP; a
// positive newtonTol is part of the artefact's key, so that the stopped
// and the converged MAP are computed and cached apart.
func mapOfNewton(ctx context.Context, env *harness.Env, d *Info, t target.Target, newtonTol float64) (*MAP, error) {
	key := fmt.Sprintf("map/%s/s%d/%s-%s-v%s-it%d-tol%g", d.Name, env.Cell.Split, d.Key,
		harness.CodeVersion, mapVersion, mapIterations, mapGradTol)
	if newtonTol > 0 {
		key += fmt.Sprintf("-newton%g", newtonTol)
	}
	b, err := env.Artefact(ctx, key, func(ctx context.Context) ([]byte, error) {
		m, err := fitMAP(ctx, t, newtonTol)
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

// Unwrap returns the recorder c charges: a run looks through it for the
// cell's checkpoints (sampler.UnwrapRecorder).
func (c chargeRecorder) Unwrap() particle.Recorder { return c.rec }
