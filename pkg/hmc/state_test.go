package hmc

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestStepLoopIsRun: Run is the loop over Init and Steps: a hand loop of
// Step, and one of Steps of uneven lengths, give its draws, diagnostics,
// R̂, ESS and gradient evaluations bit for bit, for a diagonal and a dense
// metric, without warm-up, and from a run stopped early by its recorder
// (whose Result is read from the state at the same iteration).
func TestStepLoopIsRun(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 4, 0.2, 50)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		s    Settings
		stop int // the snapshot (sampling draws per chain) at which the recorder stops Run; 0 never
	}{
		{"diag", Settings{Chains: 3, Warmup: 300, DrawsPerChain: 200, Metric: MetricDiag, RecordEvery: 50}, 0},
		{"dense", Settings{Chains: 3, Warmup: 300, DrawsPerChain: 200, Metric: MetricDense, RecordEvery: 70}, 0},
		{"no-warmup", Settings{Chains: 2, Warmup: NoWarmup, DrawsPerChain: 150, StepSize: 0.1}, 0},
		{"stopped", Settings{Chains: 2, Warmup: 100, DrawsPerChain: 300, RecordEvery: 50}, 150},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := particle.RecorderFunc(func(s particle.Snapshot) error {
				if s.Step == c.stop {
					return particle.ErrStop
				}
				return nil
			})
			hmcRes, err := Run(ctx, g.target(), particle.Start{}, c.s, rand.NewPCG(1, 2), rec)
			want, _ := hmcRes.Detail.(*Result)
			if err != nil {
				t.Fatal(err)
			}
			end := -1
			if c.stop > 0 {
				end = want.Diagnostics[0].Warmup + c.stop
			}
			for _, k := range []int{1, 37} {
				st, err := Init(ctx, g.target(), particle.Start{}, c.s, rand.NewPCG(1, 2))
				if err != nil {
					t.Fatal(err)
				}
				if st.Iteration != 0 || st.GradEvals != 0 || st.ResumedAt != 0 {
					t.Fatalf("Init: iteration %d, %d gradient evaluations, resumed at %d; want 0", st.Iteration, st.GradEvals, st.ResumedAt)
				}
				if res, err := st.Detail(); res != nil || err == nil {
					t.Fatalf("Result before the first draw: %v, %v; want an error", res, err)
				}
				for st.Iteration < st.Warmup+st.DrawsPerChain && st.Iteration != end {
					before := st.Iteration
					if k == 1 {
						err = Step(ctx, st)
					} else {
						n := k
						if end >= 0 {
							n = min(k, end-st.Iteration)
						}
						err = Steps(ctx, st, n)
					}
					if err != nil {
						t.Fatal(err)
					}
					wantPhase := PhaseSampling
					if st.Iteration < st.Warmup {
						wantPhase = PhaseWarmup
					}
					if st.Phase != wantPhase {
						t.Fatalf("iteration %d of %d warm-up: phase %v, want %v", st.Iteration, st.Warmup, st.Phase, wantPhase)
					}
					if st.Iteration == before {
						t.Fatalf("step %d made no progress at iteration %d", k, before)
					}
				}
				got, err := st.Detail()
				if err != nil {
					t.Fatal(err)
				}
				sameResult(t, c.name, want, got)
				if got.Set.Len() != want.Set.Len() || got.Flagged != want.Flagged || len(got.Reasons) != len(want.Reasons) {
					t.Errorf("k %d: %d draws, flagged %t %q; Run: %d, %t %q", k, got.Set.Len(), got.Flagged, got.Reasons, want.Set.Len(), want.Flagged, want.Reasons)
				}
				// Step at the end of the schedule does nothing.
				if end < 0 {
					if err := Step(ctx, st); err != nil || st.Iteration != st.Warmup+st.DrawsPerChain {
						t.Errorf("Step after the end: %v, iteration %d", err, st.Iteration)
					}
				}
				st.Close()
				st.Close()
			}
		})
	}
}

// TestStepCheckpoint: a hand loop of Step with a checkpoint, cancelled in
// warm-up and again in sampling, resumes in Init from the file each time
// and ends with the draws of an uninterrupted Run bit for bit.
func TestStepCheckpoint(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 3, 0.5, 5)
	base := Settings{Chains: 2, Warmup: 150, DrawsPerChain: 120}
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(3, 4), nil)
	want, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	s := base
	s.Checkpoint = &Checkpoint{Path: filepath.Join(t.TempDir(), "ref.ckpt"), Every: 40, Interval: NoInterval}
	resumed := 0
	for _, stop := range []int{90, 210, -1} {
		ctx, cancel := context.WithCancel(context.Background())
		st, err := Init(ctx, g.target(), particle.Start{}, s, rand.NewPCG(3, 4))
		if err != nil {
			t.Fatal(err)
		}
		if st.ResumedAt != resumed || st.Iteration != resumed {
			t.Fatalf("resumed at %d, iteration %d; want %d", st.ResumedAt, st.Iteration, resumed)
		}
		for st.Iteration < st.Warmup+st.DrawsPerChain {
			if st.Iteration == stop {
				cancel()
			}
			if err := Step(ctx, st); err != nil {
				if !errors.Is(err, context.Canceled) || stop < 0 {
					t.Fatal(err)
				}
				break
			}
		}
		cancel()
		st.Close()
		resumed = stop
		if stop < 0 {
			got, err := st.Detail()
			if err != nil {
				t.Fatal(err)
			}
			if got.ResumedAt != 210 {
				t.Errorf("ResumedAt %d, want 210", got.ResumedAt)
			}
			sameResult(t, "step with checkpoints", want, got)
		}
	}
}

// Step allocates nothing once the chains have started, in warm-up (between
// the metric windows) and in sampling, for either metric.
func TestStepAllocs(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 4, 0.2, 50)
	ctx := context.Background()
	for _, metric := range []Metric{MetricDiag, MetricDense} {
		st, err := Init(ctx, g.target(), particle.Start{}, Settings{Chains: 2, Warmup: 10, DrawsPerChain: 200, Metric: metric}, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		if err := Step(ctx, st); err != nil {
			t.Fatal(err)
		}
		if n := race.AllocsPerRun(t, 5, func() {
			if err := Step(ctx, st); err != nil {
				t.Fatal(err)
			}
		}); n != 0 || st.Phase != PhaseWarmup {
			t.Errorf("%s: Step allocates %v times per warm-up iteration (phase %v)", metric, n, st.Phase)
		}
		if err := Steps(ctx, st, st.Warmup-st.Iteration+1); err != nil {
			t.Fatal(err)
		}
		if n := race.AllocsPerRun(t, 50, func() {
			if err := Step(ctx, st); err != nil {
				t.Fatal(err)
			}
		}); n != 0 || st.Phase != PhaseSampling {
			t.Errorf("%s: Step allocates %v times per sampling iteration (phase %v)", metric, n, st.Phase)
		}
		st.Close()
	}
}
