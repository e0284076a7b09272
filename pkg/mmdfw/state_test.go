package mmdfw_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestStepLoopIsRun: Run is the loop over Init and Step:
// the same particles and weights bit for bit, the same diagnostics and
// costs, on the zero Settings (ScaleTarget, Stein weights, StopKSD), BQ
// with the exact embedding of a Gaussian, equal weights in the median
// bandwidth's scales, and BQ from a pool drawn by a PoolSampler.
func TestStepLoopIsRun(t *testing.T) {
	g, err := target.NewGaussian([]float64{0.5, -1}, mat.NewSymDense(2, []float64{2, 0.3, 0.3, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	post := target.Func{D: 2, F: g.LogProbGrad}
	pool := mmdfw.PoolSamplerFunc(func(ctx context.Context, tg target.Target, size int, src rand.Source) (*mat.Dense, int64, error) {
		x := mat.NewDense(size, 2, nil)
		g.SampleRows(rand.New(src), x)
		return x, 0, nil
	})
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		tg    target.Target
		start particle.Start
		in    mmdfw.Inputs
		s     mmdfw.Settings
	}{
		{"zero", post, particle.Start{X0: []float64{0, 0}}, mmdfw.Inputs{}, mmdfw.Settings{}},
		{"bq-exact", g, particle.Start{}, mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}, mmdfw.Settings{N: 15, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}, Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}}},
		{"equal-bandwidth", g, particle.Start{}, mmdfw.Inputs{}, mmdfw.Settings{N: 12, Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleBandwidth}, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}},
		{"bq-pool", post, particle.Start{X0: []float64{0, 0}}, mmdfw.Inputs{PoolSampler: pool}, mmdfw.Settings{N: 10, Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}, KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool, PoolSize: 200}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var last particle.Snapshot
			rec := particle.RecorderFunc(func(s particle.Snapshot) error { last = s; return nil })
			c.s.Inputs = c.in
			mmdfwRes, err := mmdfw.Run(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2), rec)
			want, _ := mmdfwRes.Detail.(*mmdfw.Result)
			if err != nil {
				t.Fatal(err)
			}
			st, err := mmdfw.Init(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2))
			if err != nil {
				t.Fatal(err)
			}
			n := c.s.N
			if n == 0 {
				n = mmdfw.DefaultCeiling
			}
			for st.Particles < n && !st.Settled {
				if err := mmdfw.Step(ctx, st); err != nil {
					t.Fatal(err)
				}
			}
			res, err := st.Result()
			got := res.Detail.(*mmdfw.Result)
			if err != nil {
				t.Fatal(err)
			}
			if !testutil.SameBits(got.Set.X, want.Set.X) || !testutil.SameFloats(got.Set.W, want.Set.W) {
				t.Errorf("the hand loop's particles or weights differ from Run's")
			}
			var set particle.Set
			st.Set(&set)
			if !testutil.SameBits(set.X, want.Set.X) || !testutil.SameFloats(set.W, want.Set.W) {
				t.Errorf("Set differs from Run's particles or weights")
			}
			if g, w := fmt.Sprint(got.Set.Diag), fmt.Sprint(want.Set.Diag); g != w {
				t.Errorf("diagnostics:\n got %s\nwant %s", g, w)
			}
			if got.GradEvals != want.GradEvals || got.Bandwidth != want.Bandwidth || !testutil.SameFloats(got.MMD2, want.MMD2) {
				t.Errorf("result: %d gradient evaluations, bandwidth %v; Run's %d and %v",
					got.GradEvals, got.Bandwidth, want.GradEvals, want.Bandwidth)
			}
			if st.GradEvals != last.GradEvals || st.Particles != last.Step {
				t.Errorf("state after %d particles with %d gradient evaluations, the last snapshot %d and %d",
					st.Particles, st.GradEvals, last.Step, last.GradEvals)
			}
			t.Logf("%d particles, settled %v, flags %v", st.Particles, st.Settled, got.Set.Diag.Flags)
		})
	}
}

// TestStepPastCeiling: a Step past Settings.N is an error, and the state
// keeps its particles.
func TestStepPastCeiling(t *testing.T) {
	g, err := target.NewGaussian([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := mmdfw.Init(ctx, g, particle.Start{}, mmdfw.Settings{Inputs: mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}, N: 3, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}}, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	for st.Particles < 3 {
		if err := mmdfw.Step(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := mmdfw.Step(ctx, st); err == nil || st.Particles != 3 {
		t.Errorf("Step past N: error %v, %d particles", err, st.Particles)
	}
}
