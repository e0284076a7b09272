package sampler_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

var (
	_ sampler.Sampler = mmdfw.Settings{}
	_ sampler.Sampler = svgd.Settings{}
	_ sampler.Sampler = sp.Settings{}
	_ sampler.Sampler = sgld.Settings{}
	_ sampler.Sampler = hmc.Settings{}
)

// Every method of the module passes the conformance suite.
func TestConformance(t *testing.T) {
	for name, m := range map[string]samplertest.Method{
		"mmdfw": {
			Zero: mmdfw.Settings{},
			Small: func(_ int) sampler.Sampler {
				return mmdfw.Settings{N: 12, LMOSteps: 20, Start: mmdfw.StartGiven, Bandwidth: 0.8}
			},
		},
		"svgd": {
			Zero: svgd.Settings{},
			Small: func(w int) sampler.Sampler {
				return svgd.Settings{N: 20, Iterations: 60, Step: 0.05, RecordEvery: 10, Workers: w}
			},
			MaxCallsAfterCancel: 20, // the particles of one iteration
		},
		"sp": {
			Zero: sp.Settings{},
			Small: func(_ int) sampler.Sampler {
				return sp.Settings{N: 8, Candidates: 10, NelderMeadEvals: 40}
			},
		},
		"sgld": {
			Zero: sgld.Settings{},
			Small: func(w int) sampler.Sampler {
				return sgld.Settings{Iterations: 2000, Chains: 4, Workers: w, RecordEvery: 200}
			},
			MaxCallsAfterCancel: 4, // one per chain
		},
		"hmc": {
			Zero: hmc.Settings{},
			Small: func(_ int) sampler.Sampler {
				return hmc.Settings{Chains: 2, Warmup: 100, Draws: 60, RecordEvery: 20}
			},
			MaxCallsAfterCancel: 2 * hmc.DefaultMaxSteps, // a transition per chain
			Rejects:             true,
		},
	} {
		t.Run(name, func(t *testing.T) { samplertest.Test(t, m) })
	}
}
