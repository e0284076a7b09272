package sampler_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// BenchmarkStep times one step of each method's State through the
// sampler.State contract on N(0, diag(1, 4)), making a new State (off the
// clock) when one is Done: an SVGD update of 50 particles, an SGLD
// iteration of 4 chains, an HMC warm-up transition of 2 chains, a Stein
// Point and an MMD-FW particle (both of at most 60).
func BenchmarkStep(b *testing.B) {
	tg := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0], g[1] = -x[0], -x[1]/4
		return -x[0]*x[0]/2 - x[1]*x[1]/8
	}}
	start := particle.Start{X0: []float64{0.5, 0.5}}
	for _, c := range []struct {
		name string
		init func(ctx context.Context) (sampler.State, error)
	}{
		{"svgd", func(ctx context.Context) (sampler.State, error) {
			return svgd.Init(ctx, tg, start, svgd.Settings{N: 50, Iterations: 1 << 30, Frame: sampler.Frame{Stop: svgd.StopFixed}}, rand.NewPCG(1, 2))
		}},
		{"sgld", func(ctx context.Context) (sampler.State, error) {
			return sgld.Init(ctx, tg, start, sgld.Settings{Iterations: 1 << 30, Chains: 4, Frame: sampler.Frame{Workers: 1, Stop: sgld.StopFixed}}, rand.NewPCG(1, 2))
		}},
		{"hmc", func(ctx context.Context) (sampler.State, error) {
			return hmc.Init(ctx, tg, start, hmc.Settings{Chains: 2, Warmup: 1 << 30, DrawsPerChain: 10}, rand.NewPCG(1, 2))
		}},
		{"sp", func(ctx context.Context) (sampler.State, error) {
			return sp.Init(ctx, tg, start, sp.Settings{N: 60, Frame: sampler.Frame{Stop: sp.StopFixed}, Candidates: 20, NelderMeadEvals: 50}, rand.NewPCG(1, 2))
		}},
		{"mmdfw", func(ctx context.Context) (sampler.State, error) {
			return mmdfw.Init(ctx, tg, start, mmdfw.Settings{N: 60, Frame: sampler.Frame{Stop: mmdfw.StopFixed}, Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven}, KernelSpec: mmdfw.KernelSpec{Bandwidth: 0.8}, LMO: mmdfw.LMO{LMOSteps: 20}}, rand.NewPCG(1, 2))
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			st, err := c.init(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if st.Done() {
					b.StopTimer()
					st.Close()
					if st, err = c.init(ctx); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if err := st.Step(ctx); err != nil {
					b.Fatal(err)
				}
			}
			st.Close()
		})
	}
}
