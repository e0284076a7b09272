package hmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// sameResult fails t unless a and b hold the same draws and diagnostics bit
// for bit (times aside).
func sameResult(t *testing.T, name string, a, b *Result) {
	t.Helper()
	if !testutil.SameFloats(a.Set.X.RawMatrix().Data, b.Set.X.RawMatrix().Data) {
		t.Fatalf("%s: draws differ from the uninterrupted run", name)
	}
	for c := range a.Diagnostics {
		da, db := a.Diagnostics[c], b.Diagnostics[c]
		if !testutil.SameFloats([]float64{da.AcceptRate, da.StepSize, da.MeanSteps}, []float64{db.AcceptRate, db.StepSize, db.MeanSteps}) ||
			!testutil.SameFloats(da.InvMass, db.InvMass) || da.Divergences != db.Divergences ||
			da.WarmupDivergences != db.WarmupDivergences || da.GradCalls != db.GradCalls ||
			!(math.Float64bits(da.AdaptAccept) == math.Float64bits(db.AdaptAccept)) {
			t.Fatalf("%s: chain %d diagnostics differ: %+v vs %+v", name, c, da, db)
		}
		if (da.InvMetric == nil) != (db.InvMetric == nil) || da.InvMetric != nil && !mat.Equal(da.InvMetric, db.InvMetric) {
			t.Fatalf("%s: chain %d inverse metric differs", name, c)
		}
	}
	if !testutil.SameFloats(a.Rhat, b.Rhat) || !testutil.SameFloats(a.ESS, b.ESS) || a.GradEvals != b.GradEvals {
		t.Fatalf("%s: R̂, ESS or gradient evaluations differ", name)
	}
}

// TestCheckpointResumeBitIdentical interrupts runs of several chains in
// warm-up (before and after the first metric window), in sampling and
// repeatedly, resumes each from its checkpoint, and requires the draws and
// diagnostics of an uninterrupted run bit for bit.
func TestCheckpointResumeBitIdentical(t *testing.T) {
	const warmup, draws = 300, 200
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 4, 0.2, 50)
	for _, metric := range []Metric{MetricDiag, MetricDense} {
		base := Settings{Chains: 3, Warmup: warmup, DrawsPerChain: draws, Metric: metric, RecordEvery: 50}
		hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(7, 8), nil)
		want, _ := hmcRes.Detail.(*Result)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			stops []int // chain-0 iterations (warm-up and sampling together) at which to cancel
			every int
		}{
			{"warm-up start", []int{1}, 0},
			{"warm-up early", []int{40}, 0},
			{"warm-up late", []int{250}, 0},
			{"end of warm-up", []int{warmup}, 0},
			{"sampling", []int{warmup + 77}, 0},
			{"several times", []int{20, 110, 299, 301, 420}, 0},
			{"every 25", []int{133, 460}, 25},
		} {
			name := string(metric) + "/" + tc.name
			path := filepath.Join(t.TempDir(), "ref.ckpt")
			for i, stop := range tc.stops {
				ctx, cancel := context.WithCancel(context.Background())
				s := base
				s.Checkpoint = &Checkpoint{Path: path, Every: tc.every, Interval: NoInterval}
				s.Progress = func(p ChainProgress) {
					if p.Chain == 0 && p.Done == stop {
						cancel()
					}
				}
				_, err := Run(ctx, g.target(), particle.Start{}, s, rand.NewPCG(7, 8), nil)

				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: interruption %d: err = %v, want context.Canceled", name, i, err)
				}
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("%s: interruption %d left no checkpoint: %v", name, i, err)
				}
			}
			s := base
			s.Checkpoint = &Checkpoint{Path: path, Every: tc.every, Interval: NoInterval}
			hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(7, 8), nil)
			got, _ := hmcRes.Detail.(*Result)
			if err != nil {
				t.Fatalf("%s: resumed run: %v", name, err)
			}
			sameResult(t, name, want, got)
		}
	}
}

// TestCheckpointWrittenByTimeAndCount checks that checkpoints appear while
// the chains run, by count and by time, and that a run resumed from a
// checkpoint written at a count continues from it (it does fewer
// iterations) and matches.
func TestCheckpointWrittenByTimeAndCount(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 3, 0.5, 5)
	base := Settings{Chains: 2, Warmup: 200, DrawsPerChain: 300}
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(1, 9), nil)
	want, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}

	// By count: with Every 50 and no timer, a checkpoint exists once the
	// chains have passed iteration 250.
	path := filepath.Join(t.TempDir(), "count.ckpt")
	s := base
	s.Checkpoint = &Checkpoint{Path: path, Every: 50, Interval: NoInterval}
	var seen atomic.Bool
	s.Progress = func(p ChainProgress) {
		if p.Chain == 0 && p.Done == 251 {
			if _, err := os.Stat(path); err == nil {
				seen.Store(true)
			}
		}
	}
	hmcRes, err = Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 9), nil)
	got, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if !seen.Load() {
		t.Error("no checkpoint after 250 iterations with Every 50")
	}
	sameResult(t, "count", want, got)
	// The file now holds the state after the last multiple of 50 (500,
	// the end): a rerun resumes there and does no transition at all.
	var after atomic.Int64
	s.Progress = func(ChainProgress) { after.Add(1) }
	hmcRes, err = Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 9), nil)
	again, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.Load(); n != 0 {
		t.Errorf("run resumed from a final checkpoint did %d transitions, want 0", n)
	}
	sameResult(t, "resumed at the end", want, again)

	// By time: a slow target and a short interval.
	path = filepath.Join(t.TempDir(), "time.ckpt")
	slow := g.target()
	f := slow.F
	slow.F = func(x, grad []float64) float64 {
		for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; { // busy wait: sleeps are too coarse
		}
		return f(x, grad)
	}
	s = Settings{Chains: 2, Warmup: 100, DrawsPerChain: 100, Steps: 5}
	s.Checkpoint = &Checkpoint{Path: path, Interval: 5 * time.Millisecond}
	var timed atomic.Bool
	s.Progress = func(p ChainProgress) {
		if p.Chain == 0 && p.Done == 150 {
			if _, err := os.Stat(path); err == nil {
				timed.Store(true)
			}
		}
	}
	if _, err := Run(context.Background(), slow, particle.Start{}, s, rand.NewPCG(1, 9), nil); err != nil {
		t.Fatal(err)
	}
	if !timed.Load() {
		t.Error("no checkpoint by time after 150 iterations with a 5 ms interval")
	}
}

// TestCheckpointRefusesOtherRuns requires an error wrapping
// ErrCheckpointMismatch, and no resumption, for a checkpoint of other
// settings, another seed, another dimension, another target of the same
// dimension and a file that is not a checkpoint.
func TestCheckpointRefusesOtherRuns(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 3, 0.5, 5)
	h := newGaussian(rand.New(rand.NewPCG(6, 6)), 3, 0.5, 5)
	g4 := newGaussian(rand.New(rand.NewPCG(5, 5)), 4, 0.5, 5)
	dir := t.TempDir()
	path := filepath.Join(dir, "ref.ckpt")
	base := Settings{Chains: 2, Warmup: 100, DrawsPerChain: 50, Checkpoint: &Checkpoint{Path: path, Every: 10, Interval: NoInterval}}
	if _, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(1, 2), nil); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := base
	other.TargetAccept = 0.9
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"settings", func() error {
			_, err := Run(context.Background(), g.target(), particle.Start{}, other, rand.NewPCG(1, 2), nil)

			return err
		}},
		{"seed", func() error {
			_, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(1, 3), nil)

			return err
		}},
		{"dimension", func() error {
			_, err := Run(context.Background(), g4.target(), particle.Start{}, base, rand.NewPCG(1, 2), nil)

			return err
		}},
		{"target", func() error {
			_, err := Run(context.Background(), h.target(), particle.Start{}, base, rand.NewPCG(1, 2), nil)

			return err
		}},
		{"garbage", func() error {
			if err := os.WriteFile(path, []byte("not a checkpoint"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(1, 2), nil)

			return err
		}},
	} {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		err := tc.run()
		if !errors.Is(err, ErrCheckpointMismatch) {
			t.Errorf("%s: err = %v, want ErrCheckpointMismatch", tc.name, err)
		}
	}
}

// TestProgressReportsPhases checks the progress calls: one per transition,
// warm-up then sampling, counts that add up, a positive step size.
func TestProgressReportsPhases(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 3, 0.5, 5)
	var n [2][2]atomic.Int64 // chain × phase
	var bad atomic.Int64
	s := Settings{Chains: 2, Warmup: 60, DrawsPerChain: 40, Progress: func(p ChainProgress) {
		n[p.Chain][p.Phase].Add(1)
		if !(p.StepSize > 0) || p.Done+p.Remaining != 100 || p.Iteration < 1 || p.Iteration > p.Total ||
			p.Phase == PhaseSampling && !(p.AcceptRate >= 0 && p.AcceptRate <= 1) {
			bad.Add(1)
		}
	}}
	if _, err := Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 2), nil); err != nil {
		t.Fatal(err)
	}
	for c := range n {
		if w, d := n[c][PhaseWarmup].Load(), n[c][PhaseSampling].Load(); w != 60 || d != 40 {
			t.Errorf("chain %d: %d warm-up and %d sampling calls, want 60 and 40", c, w, d)
		}
	}
	if bad.Load() != 0 {
		t.Errorf("%d inconsistent progress reports", bad.Load())
	}
}

// TestAdvanceAllocatesNothing checks that the iteration loop, with a
// progress callback and a pause flag, allocates nothing.
func TestAdvanceAllocatesNothing(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(8, 8)), 5, 0.2, 10)
	var calls int
	s := mustDefaults(Settings{Chains: 1, Warmup: 100, DrawsPerChain: 1000, Progress: func(ChainProgress) { calls++ }})
	c := newChain(0, g.target(), &s, nil, rand.NewPCG(1, 2))
	pooled := mat.NewDense(s.DrawsPerChain, 5, nil)
	var pause atomic.Bool
	ctx := context.Background()
	if err := c.advance(ctx, s.Warmup, pooled, &pause); err != nil {
		t.Fatal(err)
	}
	to := s.Warmup
	if n := race.AllocsPerRun(t, 50, func() {
		to += 10
		if err := c.advance(ctx, to, pooled, &pause); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("advance allocates %v times per 10 sampling iterations", n)
	}
	if calls == 0 {
		t.Error("progress never called")
	}
}
