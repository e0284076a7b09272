package sampler_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The five methods through one loop: each Init gives a sampler.State, and
// Drive steps it to Done with a snapshot at each of the method's record
// points (every particle of MMD-FW and Stein Points; the start, every
// RecordEvery updates and the last of SVGD; every RecordEvery iterations of
// SGLD's and HMC's chains once they keep draws).
func ExampleDrive() {
	t := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0], g[1] = -x[0], -x[1]
		return -(x[0]*x[0] + x[1]*x[1]) / 2
	}}
	ctx := context.Background()
	start := particle.Start{X0: []float64{0.5, 0.5}}
	inits := []struct {
		name string
		init func(src rand.Source) (sampler.State, error)
	}{
		{"mmdfw", func(src rand.Source) (sampler.State, error) {
			return mmdfw.Init(ctx, t, start, mmdfw.Settings{N: 12, LMO: mmdfw.LMO{LMOSteps: 20}, Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven}, KernelSpec: mmdfw.KernelSpec{Bandwidth: 0.8}}, src)
		}},
		{"svgd", func(src rand.Source) (sampler.State, error) {
			return svgd.Init(ctx, t, start, svgd.Settings{N: 20, Iterations: 60, StepSize: 0.05}, src)
		}},
		{"sp", func(src rand.Source) (sampler.State, error) {
			return sp.Init(ctx, t, start, sp.Settings{N: 8, Candidates: 10, NelderMeadEvals: 40}, src)
		}},
		{"sgld", func(src rand.Source) (sampler.State, error) {
			return sgld.Init(ctx, t, start, sgld.Settings{Iterations: 400, Chains: 2, Frame: sampler.Frame{Stop: sgld.StopFixed}}, src)
		}},
		{"hmc", func(src rand.Source) (sampler.State, error) {
			return hmc.Init(ctx, t, start, hmc.Settings{Chains: 2, Warmup: 100, DrawsPerChain: 60}, src)
		}},
	}
	for _, m := range inits {
		st, err := m.init(rand.NewPCG(1, 2))
		if err != nil {
			fmt.Println(m.name, err)
			continue
		}
		snapshots := 0
		rec := particle.RecorderFunc(func(particle.Snapshot) error { snapshots++; return nil })
		res, err := sampler.Drive(ctx, st, rec)
		st.Close()
		fmt.Printf("%-5s done %v, %3d particles, %3d snapshots, detail %T, error %v\n",
			m.name, st.Done(), res.Set.Len(), snapshots, res.Detail, err)
	}
	// Output:
	// mmdfw done true,  12 particles,  12 snapshots, detail *mmdfw.Result, error <nil>
	// svgd  done true,  20 particles,   2 snapshots, detail <nil>, error <nil>
	// sp    done true,   8 particles,   8 snapshots, detail sp.Cost, error <nil>
	// sgld  done true,  40 particles,   2 snapshots, detail <nil>, error <nil>
	// hmc   done true, 120 particles,   1 snapshots, detail *hmc.Result, error <nil>
}
