package svgd_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// stateCases are runs whose Run and hand loop of Init and Step must agree
// bit for bit: the zero Settings (whitened, plateau) on a Gaussian, the
// reference algorithm on a minibatched logistic regression with one and
// two workers, and a whitened minibatched run that reaches its ceiling.
func stateCases(t *testing.T) []struct {
	name  string
	tg    target.Target
	s     svgd.Settings
	start particle.Start
} {
	g, err := target.NewGaussian([]float64{0.5, -1, 2}, mat.NewSymDense(3, []float64{2, 0.3, 0, 0.3, 1, 0.1, 0, 0.1, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	gauss := target.Func{D: 3, F: g.LogProbGrad}
	rng := rand.New(rand.NewPCG(7, 8))
	lr := model.NewLogistic(testutil.LogisticData(rng, 500, 6))
	return []struct {
		name  string
		tg    target.Target
		s     svgd.Settings
		start particle.Start
	}{
		{"zero", gauss, svgd.Settings{N: 30}, particle.Start{X0: []float64{0, 0, 0}}},
		{"reference-1", lr, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed, Workers: 1}, N: 40, Iterations: 120, StepSize: 0.05, Batch: 50}, particle.Start{}},
		{"reference-2", lr, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed, Workers: 2}, N: 40, Iterations: 120, StepSize: 0.05, Batch: 50}, particle.Start{}},
		{"ceiling", lr, svgd.Settings{N: 20, Iterations: 60, Batch: 50, Frame: sampler.Frame{Workers: 1}, RecordEvery: 7}, particle.Start{}},
	}
}

// TestStepLoopIsRun: Run is the loop over Init and Step: the same
// particles bit for bit, the same diagnostics, and the last snapshot's
// gradient evaluations are the state's.
func TestStepLoopIsRun(t *testing.T) {
	ctx := context.Background()
	for _, c := range stateCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var last particle.Snapshot
			rec := particle.RecorderFunc(func(s particle.Snapshot) error { last = s; return nil })
			want, err := sampler.Set(svgd.Run(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2), rec))
			if err != nil {
				t.Fatal(err)
			}
			st, err := svgd.Init(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ceiling := c.s.Iterations
			if ceiling == 0 {
				ceiling = svgd.DefaultCeiling
			}
			for st.Iteration < ceiling && !st.Settled {
				if err := svgd.Step(ctx, st); err != nil {
					t.Fatal(err)
				}
			}
			res, err := st.Result()
			got := res.Set
			if err != nil {
				t.Fatal(err)
			}
			if !testutil.SameBits(got.X, want.X) {
				t.Errorf("the hand loop's particles differ from Run's")
			}
			if !testutil.SameBits(st.Particles(nil), want.X) {
				t.Errorf("Particles differs from Run's particles")
			}
			if g, w := fmt.Sprint(got.Diag), fmt.Sprint(want.Diag); g != w {
				t.Errorf("diagnostics:\n got %s\nwant %s", g, w)
			}
			if st.GradEvals != last.GradEvals || st.Iteration != last.Step {
				t.Errorf("state after %d updates with %d gradient evaluations, Run's last snapshot %d and %d",
					st.Iteration, st.GradEvals, last.Step, last.GradEvals)
			}
			if st.Bandwidth <= 0 {
				t.Errorf("bandwidth %v after %d updates", st.Bandwidth, st.Iteration)
			}
			t.Logf("%d updates, settled %v, flags %v", st.Iteration, st.Settled, got.Diag.Flags)
		})
	}
}

// TestStepCancelled: a cancelled context stops Step before the update and
// leaves the state as it was.
func TestStepCancelled(t *testing.T) {
	c := stateCases(t)[1]
	st, err := svgd.Init(context.Background(), c.tg, c.start, c.s, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before := st.Particles(nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := svgd.Step(ctx, st); err != context.Canceled {
		t.Fatalf("Step on a cancelled context: %v, want context.Canceled", err)
	}
	if st.Iteration != 0 || st.GradEvals != 0 || !testutil.SameBits(st.Particles(nil), before) {
		t.Errorf("a cancelled Step moved the state: iteration %d, %d gradient evaluations", st.Iteration, st.GradEvals)
	}
}

// TestStepAllocatesNothing: Step and Particles into a caller's matrix
// allocate nothing once warm, whitened or not.
func TestStepAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, c := range stateCases(t) {
		st, err := svgd.Init(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		dst := st.Particles(nil)
		if a := race.AllocsPerRun(t, 20, func() {
			if err := svgd.Step(ctx, st); err != nil {
				t.Fatal(err)
			}
			st.Particles(dst)
		}); a != 0 {
			t.Errorf("%s: Step and Particles allocate %v times per update", c.name, a)
		}
		st.Close()
	}
}
