package mmdfw

import (
	"cmp"
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// SGLDPool returns the PoolSampler that ZPool uses by default: 4 SGLD
// chains (pkg/sgld in the target's own coordinates, sgld.WhitenNone, with
// its start, polynomial step sizes and minibatch there) of exactly
// iterations each (sgld.StopFixed), half of them burn-in, keeping the last ⌈size/4⌉ draws of
// each chain after thinning by max(1, ⌊(T − ⌊T/2⌋)/⌈size/4⌉⌋), T =
// iterations. With the defaults (2000 iterations, size 1000) that is 400
// draws, fewer than size: a chain gives at most (T − ⌊T/2⌋)/thin draws. The
// chains are seeded from two draws of the run's random stream.
func SGLDPool(iterations int) PoolSampler {
	if iterations <= 0 {
		iterations = DefaultPoolIterations
	}
	return PoolSamplerFunc(func(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
		rng := rand.New(src)
		var grads int64
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { grads = s.GradEvals; return nil })
		keep := (size + 3) / 4
		thin := max(1, (iterations-iterations/2)/keep)
		set, err := sgld.Run(ctx, t, sgld.Settings{Iterations: iterations, Chains: 4, Keep: keep, Thin: thin,
			Whiten: sgld.WhitenNone, Stop: sgld.StopFixed, NoDiagnostics: true},
			rand.NewPCG(rng.Uint64(), rng.Uint64()), rec)
		if err != nil {
			return nil, grads, err
		}
		return set.X, grads, nil
	})
}

// HMCPool returns a PoolSampler that draws the pool by HMC (pkg/hmc): an
// independent pilot run of s (its zero fields take hmc's defaults; Draws,
// when zero, is ⌈size/Chains⌉ per chain, so the pool has at least size
// draws), seeded from two draws of the run's random stream. Its gradient
// evaluations are charged like SGLDPool's. A pilot that hmc flags
// (R̂ or ESS beyond its thresholds) still serves: the pool only estimates
// zᵢ = μ_p(xᵢ), and the run's diagnostics keep its cost.
func HMCPool(s hmc.Settings) PoolSampler {
	return PoolSamplerFunc(func(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
		rng := rand.New(src)
		hs := s
		if hs.Draws == 0 {
			chains := cmp.Or(hs.Chains, hmc.DefaultChains)
			hs.Draws = (size + chains - 1) / chains
		}
		res, err := hmc.Run(ctx, t, hs, rand.NewPCG(rng.Uint64(), rng.Uint64()), nil)
		if err != nil {
			var grads int64
			if res != nil {
				grads = res.GradEvals
			}
			return nil, grads, err
		}
		return res.Set.X, res.GradEvals, nil
	})
}
