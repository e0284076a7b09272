package main

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Ensemble is a method of one's own: N independent MAP points with equal
// weights,
//
//	q = (1/N) Σᵢ δ(x − x̂ᵢ),  x̂ᵢ = argmax log p found by L-BFGS from x⁰ᵢ,
//
// the starts x⁰ᵢ drawn from the prior when the target has one
// (target.PriorSampler) and from N(X0, Scale²I) otherwise, X0 the point of
// the run's particle.Start. It reports a snapshot after each point. The
// zero value (with a start point or a prior) is 10 points, full-data L-BFGS
// of at most 1000 iterations, Scale 1.
type Ensemble struct {
	// N is the number of points (10 when 0); a cell sets its particle count.
	N int `toml:"-" json:"-"`
	// Iterations bounds the L-BFGS iterations of each point (1000 when 0).
	Iterations int `toml:"iterations" json:"iterations,omitempty"`
	// Batch is the minibatch size of the gradients (0: full data).
	Batch int `toml:"batch" json:"batch,omitempty"`
	// Scale is the spread of the starts around the start point X0 (1 when
	// 0).
	Scale float64 `toml:"scale" json:"scale,omitempty"`
}

// Validate refuses negative settings.
func (e Ensemble) Validate() error {
	return setting.NonNegative("iterations", e.Iterations, "batch", e.Batch, "scale", e.Scale)
}

// Run finds the N points one after the other. The starts, then one
// minibatch stream per point, are drawn from src before any search. start's
// X0 centres the starts of a target without a prior; a starting set
// (start.Particles) is an error.
func (e Ensemble) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	if err := e.Validate(); err != nil {
		return particle.Set{}, err
	}
	if err := start.NoParticles("ensemble"); err != nil {
		return particle.Set{}, err
	}
	n, d := cmp.Or(e.N, 10), t.Dim()
	rng := rand.New(src)
	X := mat.NewDense(n, d, nil)
	streams := make([]rand.Source, n)
	prior, hasPrior := t.(target.PriorSampler)
	for i := range n {
		row := X.RawRowView(i)
		switch {
		case hasPrior:
			prior.SamplePrior(rng, row)
		case len(start.X0) == d:
			for j := range row {
				row[j] = start.X0[j] + cmp.Or(e.Scale, 1)*rng.NormFloat64()
			}
		default:
			return particle.Set{}, fmt.Errorf("ensemble: target without a prior needs X0 of length %d", d)
		}
	}
	for i := range streams {
		streams[i] = rand.NewPCG(rng.Uint64(), rng.Uint64())
	}
	var sw particle.Stopwatch
	sw.Start()
	var grads int64
	var cur particle.Set
	for i := range n {
		m, err := laplace.FindMAP(ctx, t, X.RawRowView(i), laplace.MAPSettings{
			Iterations: e.Iterations, Batch: e.Batch, Src: streams[i]})
		if err == nil {
			err = particle.CheckFinite("ensemble", i+1, m.X)
		}
		if err != nil {
			k := max(i, 1) // the points so far, or the first start
			return particle.Set{X: mat.DenseCopyOf(X.Slice(0, k, 0, d)), W: particle.Equal(k)}, fmt.Errorf("ensemble: point %d: %w", i+1, err)
		}
		copy(X.RawRowView(i), m.X)
		grads += m.GradEvals
		cur = particle.Set{X: X.Slice(0, i+1, 0, d).(*mat.Dense), W: particle.Equal(i + 1)}
		stop, err := particle.Report(rec, &sw, particle.Snapshot{Step: i + 1, X: cur.X, W: cur.W, GradEvals: grads})
		if err != nil {
			return cur.Clone(), fmt.Errorf("ensemble: %w", err)
		}
		if stop {
			break
		}
	}
	return cur.Clone(), nil
}
