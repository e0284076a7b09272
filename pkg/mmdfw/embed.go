package mmdfw

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// Embedder is the kernel mean embedding μ_p of the target for the kernel of
// the run. BQ weights and the line search need zᵢ = μ_p(xᵢ); the self
// integral completes MMD².
type Embedder interface {
	// Embedding returns μ_p(x) = ∫ k(x, y) p(y) dy.
	Embedding(x []float64) float64
	// SelfIntegral returns ∫∫ k(x, y) p(x) p(y) dx dy.
	SelfIntegral() float64
}

// GradEmbedder is an Embedder that also knows ∇μ_p. With it the LMO can
// follow the exact gradient of F_n (Direction Exact), the setting where the
// paper's linear rate can be checked free of the Stein approximation.
type GradEmbedder interface {
	Embedder
	// EmbeddingGrad writes ∇μ_p(x) into dst and returns μ_p(x).
	EmbeddingGrad(dst, x []float64) float64
}

// ZSource selects the estimator of zᵢ = μ_p(xᵢ) for BQ and line search.
//
// There is deliberately no estimator from the particles themselves: with
// z = K v for any weights v, the BQ weights K⁻¹z are v again (see doc.go).
//
// The empty text is ZAuto.
type ZSource string

const (
	// ZAuto uses Exact when Inputs.Embed is set, Pool when a pool or a
	// pool sampler is set, and no z otherwise.
	ZAuto ZSource = ""
	// ZExact uses the closed-form embedding of Inputs.Embed.
	ZExact ZSource = "exact"
	// ZPool estimates μ_p(x) by (1/S) Σₛ k(x, yₛ) over a separate sample
	// pool y₁..y_S (Inputs.Pool, or drawn by Inputs.PoolSampler and
	// charged to the run).
	ZPool ZSource = "pool"
)

// PoolSampler draws size points from a target: the sample pool of ZPool
// (Inputs.PoolSampler) or the SVGD particles of the SVGD→MMD-FW start
// (Inputs.SVGD). The run calls it once, charges its time to the run's
// clock and its returned gradient evaluations (per-datapoint units) to
// the run's count. src is the run's own stream, which
// the sampler may draw from or split. Package pkg/mmdfw/pools adapts
// SGLD, HMC and SVGD.
type PoolSampler interface {
	SamplePool(ctx context.Context, t target.Target, size int, src rand.Source) (pool *mat.Dense, gradEvals int64, err error)
}

// PoolSamplerFunc adapts a function to a PoolSampler.
type PoolSamplerFunc func(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error)

// SamplePool calls f.
func (f PoolSamplerFunc) SamplePool(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
	return f(ctx, t, size, src)
}

// LocalSampler draws size points of a target around x, the first
// particle (Inputs.LocalSampler): the initial set of the median
// heuristic on a target without a prior. The run charges its gradient
// evaluations as a PoolSampler's; src is the run's own stream.
type LocalSampler interface {
	SampleAround(ctx context.Context, t target.Target, x []float64, size int, src rand.Source) (draws *mat.Dense, gradEvals int64, err error)
}

// LocalSamplerFunc adapts a function to a LocalSampler.
type LocalSamplerFunc func(ctx context.Context, t target.Target, x []float64, size int, src rand.Source) (*mat.Dense, int64, error)

// SampleAround calls f.
func (f LocalSamplerFunc) SampleAround(ctx context.Context, t target.Target, x []float64, size int, src rand.Source) (*mat.Dense, int64, error) {
	return f(ctx, t, x, size, src)
}

// PoolEmbedder is the Monte Carlo embedding of a sample pool: μ_p(x) ≈
// (1/S) Σₛ k(x, yₛ) and ∫∫ k p p ≈ (1/S²) Σₛₜ k(yₛ, yₜ) (the V-statistic,
// so that the estimated MMD² is a squared norm and never negative).
type PoolEmbedder struct {
	k    Kernel
	pool *mat.Dense
	self float64
}

// NewPoolEmbedder returns the embedding of the rows of pool for k. It costs
// S² kernel evaluations once.
func NewPoolEmbedder(k Kernel, pool *mat.Dense) *PoolEmbedder {
	S, _ := pool.Dims()
	var s float64
	for i := 0; i < S; i++ {
		xi := pool.RawRowView(i)
		s += k.Eval(xi, xi)
		for j := i + 1; j < S; j++ {
			s += 2 * k.Eval(xi, pool.RawRowView(j))
		}
	}
	return &PoolEmbedder{k: k, pool: pool, self: s / float64(S*S)}
}

// Embedding returns (1/S) Σₛ k(x, yₛ).
func (e *PoolEmbedder) Embedding(x []float64) float64 {
	S, _ := e.pool.Dims()
	var s float64
	for i := 0; i < S; i++ {
		s += e.k.Eval(x, e.pool.RawRowView(i))
	}
	return s / float64(S)
}

// SelfIntegral returns (1/S²) Σₛₜ k(yₛ, yₜ).
func (e *PoolEmbedder) SelfIntegral() float64 { return e.self }
