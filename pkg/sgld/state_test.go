package sgld_test

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
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// stateCases are runs whose Run and hand loop of Init and Step must agree
// bit for bit: the zero Settings (whitened, adaptive step, StopConverged)
// on a Gaussian, the reference algorithm (polynomial steps, StopFixed) on
// a minibatched logistic regression with one and three workers, and a
// whitened minibatched run that reaches its ceiling.
func stateCases(t *testing.T) []struct {
	name  string
	tg    target.Target
	s     sgld.Settings
	start particle.Start
} {
	g, err := target.NewGaussian([]float64{0.5, -1}, mat.NewSymDense(2, []float64{2, 0.3, 0.3, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	gauss := target.Func{D: 2, F: g.LogProbGrad}
	rng := rand.New(rand.NewPCG(7, 8))
	lr := model.NewLogistic(testutil.LogisticData(rng, 500, 6))
	return []struct {
		name  string
		tg    target.Target
		s     sgld.Settings
		start particle.Start
	}{
		{"zero", gauss, sgld.Settings{}, particle.Start{X0: []float64{0, 0}}},
		{"reference-1", lr, sgld.Settings{Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed, Workers: 1}, Iterations: 700, Batch: 50, RecordEvery: 150}, particle.Start{}},
		{"reference-3", lr, sgld.Settings{Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed, Workers: 3}, Iterations: 700, Batch: 50, RecordEvery: 150}, particle.Start{}},
		{"ceiling", lr, sgld.Settings{Iterations: 400, BurnIn: 100, Batch: 50, Frame: sampler.Frame{Workers: 2}}, particle.Start{}},
	}
}

// TestStepLoopIsRun: Run is the loop over Init and Step (and Steps): the
// same draws bit for bit, the same diagnostics, the last snapshot's
// gradient evaluations.
func TestStepLoopIsRun(t *testing.T) {
	ctx := context.Background()
	for _, c := range stateCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var last particle.Snapshot
			rec := particle.RecorderFunc(func(s particle.Snapshot) error { last = s; return nil })
			want, err := sampler.Set(sgld.Run(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2), rec))
			if err != nil {
				t.Fatal(err)
			}
			// Steps of RecordEvery stop at every check of StopConverged,
			// as Run's do; with StopFixed any length will do.
			every := c.s.RecordEvery
			if every == 0 {
				every = sgld.DefaultRecordEvery
			}
			if c.s.Stop == sgld.StopFixed {
				every = 37
			}
			for _, k := range []int{1, every} {
				st, err := sgld.Init(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2))
				if err != nil {
					t.Fatal(err)
				}
				ceiling := c.s.Iterations
				if ceiling == 0 {
					ceiling = sgld.DefaultCeiling
				}
				for st.Iteration < ceiling && !st.Converged {
					if k == 1 {
						err = sgld.Step(ctx, st)
					} else {
						err = sgld.Steps(ctx, st, min(k, ceiling-st.Iteration))
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				res, err := st.Result()
				got := res.Set
				st.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !testutil.SameBits(got.X, want.X) {
					t.Errorf("steps of %d: the hand loop's draws differ from Run's", k)
				}
				if !testutil.SameBits(st.Draws(nil), want.X) {
					t.Errorf("steps of %d: Draws differs from Run's draws", k)
				}
				if g, w := fmt.Sprint(got.Diag), fmt.Sprint(want.Diag); g != w {
					t.Errorf("steps of %d: diagnostics:\n got %s\nwant %s", k, g, w)
				}
				if st.GradEvals != last.GradEvals || st.Iteration != last.Step {
					t.Errorf("steps of %d: state after %d iterations with %d gradient evaluations, Run's last snapshot %d and %d",
						k, st.Iteration, st.GradEvals, last.Step, last.GradEvals)
				}
				t.Logf("steps of %d: %d iterations, converged %v, %d draws, flags %v", k, st.Iteration, st.Converged, st.Len(), got.Diag.Flags)
			}
		})
	}
}

// TestStepCancelled: a cancelled context stops Step before the iteration.
func TestStepCancelled(t *testing.T) {
	c := stateCases(t)[1]
	st, err := sgld.Init(context.Background(), c.tg, c.start, c.s, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sgld.Step(ctx, st); err == nil || ctx.Err() == nil {
		t.Fatalf("Step on a cancelled context: %v, want an error wrapping context.Canceled", err)
	}
	if st.Iteration != 0 || st.GradEvals != 0 {
		t.Errorf("a cancelled Step moved the state: iteration %d, %d gradient evaluations", st.Iteration, st.GradEvals)
	}
}

// TestStepAllocatesNothing: Step allocates nothing once the chains' draw
// buffers have grown.
func TestStepAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	c := stateCases(t)[1]
	st, err := sgld.Init(ctx, c.tg, c.start, c.s, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Past the burn-in and the first pass of the ring of kept draws.
	if err := sgld.Steps(ctx, st, 690); err != nil {
		t.Fatal(err)
	}
	if a := race.AllocsPerRun(t, 5, func() {
		if err := sgld.Step(ctx, st); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Step allocates %v times per iteration", a)
	}
}
