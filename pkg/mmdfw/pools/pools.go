// Package pools adapts the samplers of this module to the seams of
// pkg/mmdfw, which imports no other method: SGLD and HMC draw the sample
// pool of ZPool (mmdfw.Inputs.PoolSampler), SVGD the particles of the
// SVGD→MMD-FW start (Inputs.SVGD), and a short SGLD run the draws around
// the first particle from which a target without a prior takes its
// median-heuristic bandwidth (Inputs.LocalSampler).
//
// Fill gives an mmdfw.Inputs the adapters that the package's zero value
// used before they moved here, so that a run reads as it did.
package pools

import (
	"cmp"
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// SGLD returns a PoolSampler of 4 SGLD chains (pkg/sgld in the target's
// own coordinates, sgld.WhitenNone, with its start, polynomial step sizes
// and minibatch there) of exactly iterations each (sgld.StopFixed; zero
// or less means mmdfw.DefaultPoolIterations), half of them burn-in,
// keeping the last ⌈size/4⌉ draws of each chain after thinning by
// max(1, ⌊(T − ⌊T/2⌋)/⌈size/4⌉⌋), T = iterations. With the defaults (2000
// iterations, size 1000) that is 400 draws, fewer than size: a chain
// gives at most (T − ⌊T/2⌋)/thin draws. The chains are seeded from two
// draws of the run's random stream.
func SGLD(iterations int) mmdfw.PoolSampler {
	if iterations <= 0 {
		iterations = mmdfw.DefaultPoolIterations
	}
	return mmdfw.PoolSamplerFunc(func(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
		rng := rand.New(src)
		var grads int64
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { grads = s.GradEvals; return nil })
		keep := (size + 3) / 4
		thin := max(1, (iterations-iterations/2)/keep)
		set, err := sampler.Set(sgld.Run(ctx, t, particle.Start{}, sgld.Settings{Iterations: iterations, Chains: 4, Keep: keep, Thin: thin,
			Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed, NoDiagnostics: true}},
			rand.NewPCG(rng.Uint64(), rng.Uint64()), rec))
		if err != nil {
			return nil, grads, err
		}
		return set.X, grads, nil
	})
}

// HMC returns a PoolSampler that draws the pool by HMC (pkg/hmc): an
// independent pilot run of s from start (the zero Start: hmc's default
// start; its zero fields take hmc's defaults; Draws,
// when zero, is ⌈size/Chains⌉ per chain, so the pool has at least size
// draws), seeded from two draws of the run's random stream. Its gradient
// evaluations are charged like SGLD's. A pilot that hmc flags (R̂ or ESS
// beyond its thresholds) still serves: the pool only estimates
// zᵢ = μ_p(xᵢ), and the run's diagnostics keep its cost.
func HMC(start particle.Start, s hmc.Settings) mmdfw.PoolSampler {
	return mmdfw.PoolSamplerFunc(func(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
		rng := rand.New(src)
		hs := s
		if hs.DrawsPerChain == 0 {
			chains := cmp.Or(hs.Chains, hmc.DefaultChains)
			hs.DrawsPerChain = (size + chains - 1) / chains
		}
		hmcRes, err := hmc.Run(ctx, t, start, hs, rand.NewPCG(rng.Uint64(), rng.Uint64()), nil)
		res, _ := hmcRes.Detail.(*hmc.Result)
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

// SVGD returns the sampler of the SVGD→MMD-FW start (Inputs.SVGD): a
// run of svgd.Run with s from start (s.N, when zero and start has no
// Particles, is the size the run asks for, its N), without its diagnostics, seeded from two
// draws of the run's random stream; its gradient evaluations are those of
// its last snapshot.
func SVGD(start particle.Start, s svgd.Settings) mmdfw.PoolSampler {
	return mmdfw.PoolSamplerFunc(func(ctx context.Context, t target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
		rng := rand.New(src)
		ss := s
		if ss.N == 0 && start.Particles == nil {
			ss.N = size
		}
		ss.NoDiagnostics = true // evaluations the run's clock would count
		var last int64
		rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
			last = sn.GradEvals
			return nil
		})
		set, err := sampler.Set(svgd.Run(ctx, t, start, ss, rand.NewPCG(rng.Uint64(), rng.Uint64()), rec))
		if err != nil {
			return nil, last, err
		}
		return set.X, last, nil
	})
}

// SGLDLocal returns the LocalSampler of a target without a prior: size
// draws of a short SGLD run around x, 4 chains of 20·⌈size/4⌉ iterations
// (sgld.StopFixed) in the coordinates of the Laplace fit at the MAP found
// from x (sgld's default, which keeps its step stable whatever the
// target's scales), started at draws of that fit, the second half
// thinned by 10, seeded from two draws of the run's random stream.
func SGLDLocal() mmdfw.LocalSampler {
	return mmdfw.LocalSamplerFunc(func(ctx context.Context, t target.Target, x []float64, size int, src rand.Source) (*mat.Dense, int64, error) {
		rng := rand.New(src)
		keep := (size + 3) / 4
		var grads int64
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { grads = s.GradEvals; return nil })
		set, err := sampler.Set(sgld.Run(ctx, t, particle.Start{X0: x}, sgld.Settings{Iterations: 20 * keep, Chains: 4, Keep: keep, Frame: sampler.Frame{Stop: sgld.StopFixed, NoDiagnostics: true}},
			rand.NewPCG(rng.Uint64(), rng.Uint64()), rec))
		if err != nil {
			return nil, grads, err
		}
		return set.X, grads, nil
	})
}

// Fill sets the samplers that in leaves nil, for a run with settings s,
// to those mmdfw's zero value used before they moved here:
// SGLD(s.PoolIterations) as the PoolSampler of an explicit ZPool without a
// Pool, and SGLDLocal as the LocalSampler. A ZAuto run is left without a
// PoolSampler, which would otherwise make it ZPool.
func Fill(s mmdfw.Settings, in *mmdfw.Inputs) {
	if s.Z == mmdfw.ZPool && in.Pool == nil && in.PoolSampler == nil {
		in.PoolSampler = SGLD(s.PoolIterations)
	}
	if in.LocalSampler == nil {
		in.LocalSampler = SGLDLocal()
	}
}
