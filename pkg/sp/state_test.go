package sp_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestStepLoopIsRun: Run is the loop over Init and Step: the same
// points bit for bit, the same cost and diagnostics, the last snapshot's
// gradient evaluations; on the zero Settings (whitened, StopKSD), the
// original algorithm (StopFixed) and a whitened run that reaches its
// ceiling.
func TestStepLoopIsRun(t *testing.T) {
	g, err := target.NewGaussian([]float64{0.5, -1}, mat.NewSymDense(2, []float64{2, 0.3, 0.3, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	gauss := target.Func{D: 2, F: g.LogProbGrad}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		s    sp.Settings
	}{
		{"zero", sp.Settings{}},
		{"original", sp.Settings{Frame: sampler.Frame{Whiten: sp.WhitenNone, Stop: sp.StopFixed}, N: 25}},
		{"ceiling", sp.Settings{N: 12}},
	} {
		start := particle.Start{X0: []float64{0, 0}}
		t.Run(c.name, func(t *testing.T) {
			var last particle.Snapshot
			rec := particle.RecorderFunc(func(s particle.Snapshot) error { last = s; return nil })
			spRes, err := sp.Run(ctx, gauss, start, c.s, rand.NewPCG(1, 2), rec)
			want := spRes.Set
			wantCost, _ := spRes.Detail.(sp.Cost)
			if err != nil {
				t.Fatal(err)
			}
			st, err := sp.Init(ctx, gauss, start, c.s, rand.NewPCG(1, 2))
			if err != nil {
				t.Fatal(err)
			}
			ceiling := c.s.N
			if ceiling == 0 {
				ceiling = sp.DefaultCeiling
			}
			for st.Points < ceiling && !st.Settled {
				if err := sp.Step(ctx, st); err != nil {
					t.Fatal(err)
				}
			}
			res, err := st.Result()
			got := res.Set
			if err != nil {
				t.Fatal(err)
			}
			if !testutil.SameBits(got.X, want.X) || !testutil.SameBits(st.Particles(nil), want.X) {
				t.Errorf("the hand loop's points differ from Run's")
			}
			if !reflect.DeepEqual(st.Cost(), wantCost) {
				t.Errorf("the hand loop's cost differs from Run's")
			}
			if g, w := fmt.Sprint(got.Diag), fmt.Sprint(want.Diag); g != w {
				t.Errorf("diagnostics:\n got %s\nwant %s", g, w)
			}
			if st.GradEvals != last.GradEvals || st.Points != last.Step {
				t.Errorf("state after %d points with %d gradient evaluations, the last snapshot %d and %d",
					st.Points, st.GradEvals, last.Step, last.GradEvals)
			}
			if k := wantCost.KSD2(st.Points); st.KSD2 != k {
				t.Errorf("state's KSD² %v, the cost's %v", st.KSD2, k)
			}
			t.Logf("%d points, settled %v, KSD² %.3g, flags %v", st.Points, st.Settled, st.KSD2, got.Diag.Flags)
		})
	}
}

// TestStepPastN: Step places points past Settings.N, the buffers growing.
func TestStepPastN(t *testing.T) {
	normal := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = -x[0], -x[1]
		return -0.5 * (x[0]*x[0] + x[1]*x[1])
	}}
	ctx := context.Background()
	st, err := sp.Init(ctx, normal, particle.Start{X0: []float64{0, 0}}, sp.Settings{Frame: sampler.Frame{Whiten: sp.WhitenNone, Stop: sp.StopFixed}, N: 3}, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	for st.Points < 8 {
		if err := sp.Step(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	res, err := st.Result()
	set := res.Set
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 8 || len(st.Cost().Objective) != 8 {
		t.Errorf("%d points and %d objective values after 8 steps", set.Len(), len(st.Cost().Objective))
	}
}

// TestStepCancelled: a cancelled context stops Step before the point.
func TestStepCancelled(t *testing.T) {
	normal := target.Func{D: 1, F: func(x, grad []float64) float64 { grad[0] = -x[0]; return -x[0] * x[0] / 2 }}
	st, err := sp.Init(context.Background(), normal, particle.Start{X0: []float64{0}}, sp.Settings{Frame: sampler.Frame{Whiten: sp.WhitenNone}}, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sp.Step(ctx, st); err != context.Canceled {
		t.Fatalf("Step on a cancelled context: %v, want context.Canceled", err)
	}
	if st.Points != 0 || st.GradEvals != 0 || st.Particles(nil) != nil {
		t.Errorf("a cancelled Step moved the state: %d points, %d gradient evaluations", st.Points, st.GradEvals)
	}
}
