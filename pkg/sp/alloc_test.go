package sp

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestStepAllocations: past its first points a step allocates nothing of
// its own: the candidates, the objective, the box, the cost trace and the
// points' buffers are kept in the state, sized for N points. What it
// allocates is gonum's, whose optimize.Minimize makes its locations,
// statistics and channels afresh on every call of the Nelder–Mead
// refinement. The allocations of 50 steps are sorted by their call stacks
// (the runtime's memory profile, every allocation sampled): none may come
// from a stack without a frame of gonum's optimize package (or of a
// sync.Pool that the profile's own garbage collections emptied, or of the
// runtime's caches of type assertions and type switches, which it grows
// at random calls of its own choosing).
func TestStepAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocations are not counted under the race detector (internal/race)")
	}
	normal := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0], g[1] = -x[0], -2*x[1]
		return -0.5*x[0]*x[0] - x[1]*x[1]
	}}
	ctx := context.Background()
	for _, whiten := range []sampler.Whiten{WhitenLaplace, WhitenNone} {
		st, err := Init(ctx, normal, particle.Start{X0: []float64{0.3, -0.2}},
			Settings{N: 200, Frame: sampler.Frame{Stop: StopFixed, Whiten: whiten}}, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if err := Step(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		total := race.AllocsPerRun(t, 20, func() {
			if err := Step(ctx, st); err != nil {
				t.Fatal(err)
			}
		})
		own, gonum := allocsBySource(func() {
			for range 50 {
				if err := Step(ctx, st); err != nil {
					t.Fatal(err)
				}
			}
		})
		t.Logf("%s: %v allocations per step; of 50 steps', %d in gonum's optimize, %d elsewhere", whiten, total, gonum, own)
		if own != 0 {
			t.Errorf("%s: 50 steps make %d allocations outside gonum's Nelder–Mead, want none", whiten, own)
		}
	}
}

// allocsBySource runs f with every allocation profiled and returns the
// number of objects f allocated from stacks with and without a frame of
// gonum's optimize package; the stacks of a sync.Pool's refill, of the
// runtime's type-assertion and type-switch caches (on a miss the runtime
// builds a larger cache at random, about one call in a thousand:
// target.NData's assertion made one such allocation in about one run of
// the test in twenty) and those outside sp.Step are counted in neither.
func allocsBySource(f func()) (own, gonum int64) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	profile := func() map[[32]uintptr]int64 {
		// The profile is published two collections late.
		runtime.GC()
		runtime.GC()
		var recs []runtime.MemProfileRecord
		n, _ := runtime.MemProfile(nil, true)
		for {
			recs = make([]runtime.MemProfileRecord, n+50)
			var ok bool
			if n, ok = runtime.MemProfile(recs, true); ok {
				recs = recs[:n]
				break
			}
		}
		m := make(map[[32]uintptr]int64, len(recs))
		for _, r := range recs {
			m[r.Stack0] += r.AllocObjects
		}
		return m
	}
	before := profile()
	f()
	after := profile()
	for stack, n := range after {
		n -= before[stack]
		if n <= 0 {
			continue
		}
		inStep, inGonum, inPool, inCache := false, false, false, false
		frames := runtime.CallersFrames(trimStack(stack[:]))
		for {
			fr, more := frames.Next()
			inGonum = inGonum || strings.HasPrefix(fr.Function, "gonum.org/v1/gonum/optimize.")
			inStep = inStep || strings.HasSuffix(fr.Function, "/pkg/sp.Step")
			inPool = inPool || strings.HasPrefix(fr.Function, "sync.(*Pool)")
			inCache = inCache || fr.Function == "runtime.buildTypeAssertCache" || fr.Function == "runtime.buildInterfaceSwitchCache"
			if !more {
				break
			}
		}
		switch {
		case !inStep:
		case inGonum:
			gonum += n
		case inPool, inCache:
			// A sync.Pool refilled after the profile's own collections
			// (the whitened target's scratch), or a runtime cache grown:
			// not a step's.
		default:
			own += n
		}
	}
	return own, gonum
}

// trimStack returns the stack without its trailing zeros.
func trimStack(s []uintptr) []uintptr {
	for i, pc := range s {
		if pc == 0 {
			return s[:i]
		}
	}
	return s
}
