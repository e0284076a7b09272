package mmdfw_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestStepAllocates: past its first particles a Step allocates nothing:
// the particles, scores, Gram and Stein kernel rows, weights, the MMD²
// trace and the views of the snapshots are kept in the state, sized for N
// particles. Checked with the zero Settings (whitened, Stein weights),
// with BQ on an exact embedding, with equal weights in the bandwidth's
// scales and with random features (whose Stein field is sized for N).
func TestStepAllocates(t *testing.T) {
	g, err := target.NewGaussian([]float64{0.5, -1}, mat.NewSymDense(2, []float64{2, 0.3, 0.3, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	post := target.Func{D: 2, F: g.LogProbGrad}
	for _, c := range []struct {
		name string
		tg   target.Target
		in   mmdfw.Inputs
		s    mmdfw.Settings
	}{
		{"zero", post, mmdfw.Inputs{}, mmdfw.Settings{N: 200, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}},
		{"bq-exact", g, mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}, mmdfw.Settings{N: 200, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}, Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}}},
		{"equal-bandwidth", g, mmdfw.Inputs{}, mmdfw.Settings{N: 200, Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleBandwidth}, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}},
		{"rff", post, mmdfw.Inputs{}, mmdfw.Settings{N: 200, KernelSpec: mmdfw.KernelSpec{Kernel: mmdfw.RFFKernel}, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}},
	} {
		ctx := context.Background()
		c.s.Inputs = c.in
		st, err := mmdfw.Init(ctx, c.tg, particle.Start{X0: []float64{0, 0}}, c.s, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if err := mmdfw.Step(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		if n := race.AllocsPerRun(t, 50, func() {
			if err := mmdfw.Step(ctx, st); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: Step allocates %v times per particle", c.name, n)
		}
		if !race.Enabled && st.Particles < 70 { // under -race AllocsPerRun calls Step once
			t.Errorf("%s: %d particles after the steps", c.name, st.Particles)
		}
	}
}
