// Package samplertest checks that a sampler.Sampler keeps the contract of
// the interface, the one conformance suite of every method of this module,
// and (Known) that its zero settings answer targets whose answer is known.
//
// Test runs these checks, each a subtest:
//
//	zero-value   the zero settings with only a start point run on a plain
//	             target.Func (no prior, no minibatches) and give a finite,
//	             non-empty set whose weights sum to one
//	snapshots    every snapshot has as many weights as rows, the target's
//	             dimension, finite values, weights summing to one, and
//	             non-decreasing Step, Seconds and GradEvals; the returned set
//	             is the last snapshot
//	stop         particle.ErrStop from the recorder at its second snapshot
//	             ends the run with a nil error and exactly that snapshot's
//	             particles and weights; another recorder error is returned
//	             wrapped
//	cancel       a cancelled context is an error wrapping context.Canceled,
//	             before the start and in the middle of the run (the target
//	             cancels at a gradient call), returned within a bounded
//	             number of further gradient calls, with finite particles
//	non-finite   a score that turns NaN is an error, with finite particles
//	non-finite-region
//	             a log density that is NaN (with a finite score) or −∞ (with
//	             a zero score) on a half-plane the method reaches is an error,
//	             with finite particles; a method that declares Rejects may
//	             instead keep no particle there
//	workers      the particles and weights do not depend on the worker count
//	seed         the same source gives the same set
//	state        (with Method.Init) the method's sampler.State, driven by
//	             sampler.Drive, gives Run's set bit for bit, reads without
//	             changing, and stops at a snapshot
//
// A method of one's own is checked from its package's tests:
//
//	func TestConformance(t *testing.T) {
//		samplertest.Test(t, samplertest.Method{
//			Zero:  mine.Settings{},
//			Small: func(workers int) sampler.Sampler {
//				return mine.Settings{N: 10, Workers: workers}
//			},
//		})
//	}
//
// Every run starts from particle.Start{X0: x0}, a point of the suite's
// target (the known targets' KnownTarget.X0 for Known), passed to Run as
// its start.
package samplertest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Dim is the dimension of the suite's targets.
const Dim = 2

// Method describes the sampler under test.
type Method struct {
	// Zero is the method's zero settings: the suite runs it with
	// particle.Start{X0: x0} as its start.
	Zero sampler.Sampler
	// Small returns small, fast settings that report at least three
	// snapshots on the suite's targets (run from particle.Start{X0: x0}),
	// with workers goroutines (the method may ignore workers if it has
	// none).
	Small func(workers int) sampler.Sampler
	// MaxCallsAfterCancel bounds the gradient calls a run may make after
	// its context is cancelled (for example one per chain and particle).
	// Default 1000.
	MaxCallsAfterCancel int64
	// Rejects declares that the method rejects a proposal whose log density
	// is not finite by a Metropolis step (HMC), an exact treatment of a
	// density that is zero there: the non-finite-region check then accepts
	// a result without error whose particles all lie where the target is
	// finite.
	Rejects bool
	// Init, when set, makes the sampler.State of Small(1)'s settings (the
	// method's own Init), and the subtest "state" checks it: driven by
	// sampler.Drive it gives Run's set bit for bit (see testState).
	Init InitFunc
}

// gauss is N(m, diag(s²)) in Dim dimensions as a plain target.Func; calls
// counts its evaluations, and hook (when set) sees every call's number and
// may replace the score.
func gauss(calls *atomic.Int64, hook func(n int64, grad []float64)) target.Func {
	m := []float64{1, -0.5}
	s := []float64{0.5, 1.5}
	return target.Func{D: Dim, F: func(x, grad []float64) float64 {
		var lp float64
		for j := range x {
			z := (x[j] - m[j]) / s[j]
			grad[j] = -z / s[j]
			lp -= z * z / 2
		}
		if calls != nil {
			n := calls.Add(1)
			if hook != nil {
				hook(n, grad)
			}
		}
		return lp
	}}
}

var x0 = []float64{0.5, 0.5}

// from returns the start of a run at a copy of x.
func from(x []float64) particle.Start {
	return particle.Start{X0: append([]float64(nil), x...)}
}

// Test runs the conformance checks on m.
func Test(t *testing.T, m Method) {
	if m.MaxCallsAfterCancel == 0 {
		m.MaxCallsAfterCancel = 1000
	}
	t.Run("zero-value", func(t *testing.T) {
		set, err := m.Zero.Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(1, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		if set.Len() == 0 {
			t.Fatal("empty set")
		}
		checkSet(t, "result", set.X, set.W)
	})
	t.Run("snapshots", func(t *testing.T) {
		var last particle.Snapshot
		var lastX *mat.Dense
		var lastW []float64
		n := 0
		rec := particle.RecorderFunc(func(s particle.Snapshot) error {
			if n > 0 && (s.Step <= last.Step || s.Seconds < last.Seconds || s.GradEvals < last.GradEvals) {
				t.Errorf("snapshot %d: step %d, %v s, %d gradients after %d, %v s, %d", n, s.Step, s.Seconds, s.GradEvals,
					last.Step, last.Seconds, last.GradEvals)
			}
			checkSet(t, "snapshot", s.X, s.W)
			last, lastX, lastW = s, mat.DenseCopyOf(s.X), append([]float64(nil), s.W...)
			n++
			return nil
		})
		set, err := m.Small(1).Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(3, 4), rec)
		if err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			t.Fatalf("%d snapshots, want at least 3", n)
		}
		if !mat.Equal(set.X, lastX) || !slices.Equal(set.W, lastW) {
			t.Error("the returned set is not the last snapshot")
		}
	})
	t.Run("stop", func(t *testing.T) {
		var atX *mat.Dense
		var atW []float64
		n := 0
		rec := particle.RecorderFunc(func(s particle.Snapshot) error {
			if n++; n == 2 {
				atX, atW = mat.DenseCopyOf(s.X), append([]float64(nil), s.W...)
				return particle.ErrStop
			}
			return nil
		})
		set, err := m.Small(1).Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(5, 6), rec)
		if err != nil || n != 2 {
			t.Fatalf("ErrStop at the second snapshot: error %v after %d snapshots", err, n)
		}
		if !mat.Equal(set.X, atX) || !slices.Equal(set.W, atW) {
			t.Error("ErrStop: the returned set is not the snapshot's")
		}
		boom := errors.New("boom")
		_, err = m.Small(1).Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(5, 6),
			particle.RecorderFunc(func(particle.Snapshot) error { return boom }))
		if !errors.Is(err, boom) {
			t.Errorf("recorder error: got %v, want it wrapped", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := m.Small(1).Run(ctx, gauss(nil, nil), from(x0), rand.NewPCG(7, 8), nil); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled before the start: error %v", err)
		}
		// Count the calls of an uninterrupted run, then cancel half way.
		var total atomic.Int64
		if _, err := m.Small(1).Run(context.Background(), gauss(&total, nil), from(x0), rand.NewPCG(7, 8), nil); err != nil {
			t.Fatal(err)
		}
		at := total.Load() / 2
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		var calls atomic.Int64
		tg := gauss(&calls, func(n int64, _ []float64) {
			if n == at {
				cancel()
			}
		})
		set, err := m.Small(1).Run(ctx, tg, from(x0), rand.NewPCG(7, 8), nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at call %d of %d: error %v", at, total.Load(), err)
		}
		if after := calls.Load() - at; after > m.MaxCallsAfterCancel {
			t.Errorf("%d gradient calls after cancellation, want at most %d", after, m.MaxCallsAfterCancel)
		}
		checkFinite(t, set.X)
	})
	t.Run("non-finite", func(t *testing.T) {
		var total atomic.Int64
		if _, err := m.Small(1).Run(context.Background(), gauss(&total, nil), from(x0), rand.NewPCG(9, 10), nil); err != nil {
			t.Fatal(err)
		}
		at := total.Load() / 2
		var calls atomic.Int64
		tg := gauss(&calls, func(n int64, grad []float64) {
			if n >= at {
				grad[0] = math.NaN()
			}
		})
		set, err := m.Small(1).Run(context.Background(), tg, from(x0), rand.NewPCG(9, 10), nil)
		if err == nil {
			t.Fatal("NaN scores from call", at, "on: no error")
		}
		checkFinite(t, set.X)
	})
	t.Run("non-finite-region", func(t *testing.T) { testNonFiniteRegion(t, m) })
	t.Run("workers", func(t *testing.T) {
		a, err := m.Small(1).Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(11, 12), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Small(4).Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(11, 12), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(a.X, b.X) || !slices.Equal(a.W, b.W) {
			t.Error("1 and 4 workers give different sets")
		}
	})
	if m.Init != nil {
		t.Run("state", func(t *testing.T) { testState(t, m) })
	}
	t.Run("seed", func(t *testing.T) {
		var sets [2]particle.Set
		for i := range sets {
			s, err := m.Small(2).Run(context.Background(), gauss(nil, nil), from(x0), rand.NewPCG(13, 14), nil)
			if err != nil {
				t.Fatal(err)
			}
			sets[i] = s
		}
		if !mat.Equal(sets[0].X, sets[1].X) || !slices.Equal(sets[0].W, sets[1].W) {
			t.Error("the same source gives different sets")
		}
	})
}

// checkSet checks the shape and values of a weighted set.
func checkSet(t *testing.T, what string, x *mat.Dense, w []float64) {
	t.Helper()
	r, c := x.Dims()
	if r != len(w) || c != Dim {
		t.Fatalf("%s: %d×%d particles with %d weights, want %d columns and one weight per row", what, r, c, len(w), Dim)
	}
	checkFinite(t, x)
	var sum float64
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: weight %v", what, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("%s: weights sum to %v, want 1", what, sum)
	}
}

func checkFinite(t *testing.T, x *mat.Dense) {
	t.Helper()
	if x == nil {
		return
	}
	r, _ := x.Dims()
	for i := 0; i < r; i++ {
		if err := particle.CheckFinite("samplertest", i, x.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
}
