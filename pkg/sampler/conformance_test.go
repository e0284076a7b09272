package sampler_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

var (
	_ sampler.Sampler = mmdfw.Settings{}
	_ sampler.Sampler = svgd.Settings{}
	_ sampler.Sampler = sp.Settings{}
	_ sampler.Sampler = sgld.Settings{}
	_ sampler.Sampler = hmc.Settings{}
)

// Every method of the module passes the conformance suite, its State
// driven by sampler.Drive included.
func TestConformance(t *testing.T) {
	for name, m := range map[string]samplertest.Method{
		"mmdfw": {
			Zero: mmdfw.Settings{},
			Small: func(_ int) sampler.Sampler {
				return mmdfw.Settings{N: 12, LMO: mmdfw.LMO{LMOSteps: 20}, Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven}, KernelSpec: mmdfw.KernelSpec{Bandwidth: 0.8}}
			},
			Init: func(ctx context.Context, t target.Target, start particle.Start, src rand.Source) (sampler.State, error) {
				return mmdfw.Init(ctx, t, start, mmdfw.Settings{N: 12, LMO: mmdfw.LMO{LMOSteps: 20}, Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven}, KernelSpec: mmdfw.KernelSpec{Bandwidth: 0.8}}, src)
			},
		},
		"svgd": {
			Zero: svgd.Settings{},
			Small: func(w int) sampler.Sampler {
				return svgd.Settings{N: 20, Iterations: 60, StepSize: 0.05, RecordEvery: 10, Frame: sampler.Frame{Workers: w}}
			},
			Init: func(ctx context.Context, t target.Target, start particle.Start, src rand.Source) (sampler.State, error) {
				return svgd.Init(ctx, t, start, svgd.Settings{N: 20, Iterations: 60, StepSize: 0.05, RecordEvery: 10, Frame: sampler.Frame{Workers: 1}}, src)
			},
			MaxCallsAfterCancel: 20, // the particles of one iteration
		},
		"sp": {
			Zero: sp.Settings{},
			Small: func(_ int) sampler.Sampler {
				return sp.Settings{N: 8, Candidates: 10, NelderMeadEvals: 40}
			},
			Init: func(ctx context.Context, t target.Target, start particle.Start, src rand.Source) (sampler.State, error) {
				return sp.Init(ctx, t, start, sp.Settings{N: 8, Candidates: 10, NelderMeadEvals: 40}, src)
			},
		},
		"sgld": {
			Zero: sgld.Settings{},
			Small: func(w int) sampler.Sampler {
				return sgld.Settings{Iterations: 2000, Chains: 4, Frame: sampler.Frame{Workers: w}, RecordEvery: 200}
			},
			Init: func(ctx context.Context, t target.Target, start particle.Start, src rand.Source) (sampler.State, error) {
				return sgld.Init(ctx, t, start, sgld.Settings{Iterations: 2000, Chains: 4, Frame: sampler.Frame{Workers: 1}, RecordEvery: 200}, src)
			},
			MaxCallsAfterCancel: 4, // one per chain
		},
		"hmc": {
			Zero: hmc.Settings{},
			Small: func(_ int) sampler.Sampler {
				return hmc.Settings{Chains: 2, Warmup: 100, DrawsPerChain: 60, RecordEvery: 20}
			},
			Init: func(ctx context.Context, t target.Target, start particle.Start, src rand.Source) (sampler.State, error) {
				return hmc.Init(ctx, t, start, hmc.Settings{Chains: 2, Warmup: 100, DrawsPerChain: 60, RecordEvery: 20}, src)
			},
			MaxCallsAfterCancel: 2 * hmc.DefaultMaxSteps, // a transition per chain
			Rejects:             true,
		},
	} {
		t.Run(name, func(t *testing.T) { samplertest.Test(t, m) })
	}
}
