package samplertest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// InitFunc makes the State of a run on t from start with src; see
// Method.Init.
type InitFunc func(ctx context.Context, t target.Target, start particle.Start, src rand.Source) (sampler.State, error)

// testState runs the checks of a sampler.State, the subtest "state" of
// Test:
//
//	drive    sampler.Drive runs the State to Done, each snapshot a valid
//	         set with a growing Step and non-decreasing GradEvals (Evals),
//	         and gives the particles, weights and diagnostics of
//	         Small(1).Run with the same source, bit for bit
//	read     Result, called twice, gives the same set; Set gives its
//	         particles and weights; Close leaves both readable
//	stop     particle.ErrStop at the second snapshot ends Drive with that
//	         snapshot's particles and weights
func testState(t *testing.T, m Method) {
	ctx := context.Background()
	tg := gauss(nil, nil)
	t.Run("drive", func(t *testing.T) {
		want, werr := m.Small(1).Run(ctx, tg, from(x0), rand.NewPCG(21, 22), nil)
		st, err := m.Init(ctx, tg, from(x0), rand.NewPCG(21, 22))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var last particle.Snapshot
		n := 0
		res, err := sampler.Drive(ctx, st, particle.RecorderFunc(func(s particle.Snapshot) error {
			checkSet(t, fmt.Sprintf("snapshot %d", n), s.X, s.W)
			if n > 0 && (s.Step <= last.Step || s.GradEvals < last.GradEvals || s.Seconds < last.Seconds) {
				t.Errorf("snapshot %d: step %d, %d gradients, %v s after %d, %d, %v s", n, s.Step, s.GradEvals, s.Seconds, last.Step, last.GradEvals, last.Seconds)
			}
			last = s
			n++
			return nil
		}))
		if (err == nil) != (werr == nil) {
			t.Fatalf("Drive: %v; Run: %v", err, werr)
		}
		if !st.Done() {
			t.Error("Drive returned before Done")
		}
		if n < 2 {
			t.Errorf("%d snapshots, want at least 2", n)
		}
		checkSet(t, "result", res.Set.X, res.Set.W)
		if !sameBits(res.Set.X, want.X) || !sameFloats(res.Set.W, want.W) {
			t.Error("Drive's particles or weights differ from Run's")
		}
		if g, w := fmt.Sprint(res.Set.Diag), fmt.Sprint(want.Diag); g != w {
			t.Errorf("diagnostics:\n Drive %s\n   Run %s", g, w)
		}
		if res.Cost.GradEvals <= 0 || res.Cost.GradEvals < last.GradEvals || res.Cost.Seconds <= 0 {
			t.Errorf("cost %+v after a last snapshot of %d gradients", res.Cost, last.GradEvals)
		}
		if res.Cost.GradEvals != st.Evals() {
			t.Errorf("Result's %d gradient evaluations, Evals %d", res.Cost.GradEvals, st.Evals())
		}
	})
	t.Run("read", func(t *testing.T) {
		st, err := m.Init(ctx, tg, from(x0), rand.NewPCG(23, 24))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3 && !st.Done(); i++ {
			if err := st.Step(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for !st.Done() {
			var set particle.Set
			if st.Set(&set); set.X != nil {
				break
			}
			if err := st.Step(ctx); err != nil {
				t.Fatal(err)
			}
		}
		a, aerr := st.Result()
		b, berr := st.Result()
		if (aerr == nil) != (berr == nil) || !sameBits(a.Set.X, b.Set.X) || !sameFloats(a.Set.W, b.Set.W) {
			t.Fatalf("Result twice: %v, %v; different sets", aerr, berr)
		}
		set := particle.Set{Diag: a.Set.Diag, W: make([]float64, 1)}
		st.Set(&set)
		if !sameBits(set.X, a.Set.X) || !sameFloats(set.W, a.Set.W) || len(set.Diag.Values)+len(set.Diag.Flags) != 0 {
			t.Error("Set differs from Result's set, or keeps diagnostics")
		}
		x := set.X
		st.Set(&set)
		if set.X != x {
			t.Error("Set reallocates a destination of the right size")
		}
		st.Close()
		c, _ := st.Result()
		if !sameBits(c.Set.X, a.Set.X) {
			t.Error("Result after Close differs")
		}
	})
	t.Run("stop", func(t *testing.T) {
		st, err := m.Init(ctx, tg, from(x0), rand.NewPCG(25, 26))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var x *mat.Dense
		var w []float64
		n := 0
		res, err := sampler.Drive(ctx, st, particle.RecorderFunc(func(s particle.Snapshot) error {
			if n++; n < 2 {
				return nil
			}
			x, w = mat.DenseCopyOf(s.X), append([]float64(nil), s.W...)
			return particle.ErrStop
		}))
		if err != nil && !errors.Is(err, particle.ErrFlagged) {
			t.Fatal(err)
		}
		if !sameBits(res.Set.X, x) || !sameFloats(res.Set.W, w) {
			t.Error("a stop at the second snapshot: the result is not that snapshot's set")
		}
	})
}

// sameBits reports whether a and b hold the same numbers bit for bit.
func sameBits(a, b *mat.Dense) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	for i := 0; i < ar; i++ {
		if !sameFloats(a.RawRowView(i), b.RawRowView(i)) {
			return false
		}
	}
	return true
}

// sameFloats reports whether a and b hold the same numbers bit for bit.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
