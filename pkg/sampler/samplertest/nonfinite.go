package samplertest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// halfLine is the suite's Gaussian written without its support, the way a
// density such as a Gamma is often written by hand: where x₁ < c its log
// density is NaN with the Gaussian's own finite score (nan true, as
// 2 log x − x for x < 0), or −∞ with a zero score (nan false). bad counts
// the evaluations there.
func halfLine(c float64, nan bool, bad *atomic.Int64) target.Func {
	g := gauss(nil, nil)
	return target.Func{D: Dim, F: func(x, grad []float64) float64 {
		lp := g.F(x, grad)
		if !(x[1] < c) {
			return lp
		}
		bad.Add(1)
		if nan {
			return math.NaN()
		}
		for j := range grad {
			grad[j] = 0
		}
		return math.Inf(-1)
	}}
}

// reach returns a level c of x₁ below which the method evaluates points in
// the run of Small(1) from x0 on the suite's Gaussian with src: the lower
// quartile of x₁ over the points it evaluates before its last snapshot (not
// counting what it may evaluate for its diagnostics afterwards). A run with
// the same source on halfLine(c, …) evaluates the same points until its
// first below c.
func reach(t *testing.T, m Method, seed uint64) float64 {
	t.Helper()
	var mu sync.Mutex
	var xs []float64
	rec := 0
	tg := target.Func{D: Dim, F: func(x, grad []float64) float64 {
		mu.Lock()
		xs = append(xs, x[1])
		mu.Unlock()
		return gauss(nil, nil).F(x, grad)
	}}
	last := particle.RecorderFunc(func(particle.Snapshot) error {
		mu.Lock()
		rec = len(xs)
		mu.Unlock()
		return nil
	})
	if _, err := m.Small(1).Run(context.Background(), tg, from(x0), rand.NewPCG(seed, seed+1), last); err != nil {
		t.Fatal(err)
	}
	seen := slices.Clone(xs[:rec])
	slices.Sort(seen)
	if len(seen) < 4 {
		t.Fatalf("%d evaluations before the last snapshot, too few to place a region", len(seen))
	}
	c := seen[len(seen)/4]
	if !(c > seen[0] && c < x0[1]) {
		t.Fatalf("the lower quartile %v of the evaluated x₁ is not between their minimum %v and the start %v", c, seen[0], x0[1])
	}
	return c
}

// testNonFiniteRegion is the check "non-finite-region" of Test: on halfLine
// targets (NaN log density with a finite score, −∞ with a zero score) whose
// region the method reaches, a method must return an error, with finite
// particles (a *particle.NonFiniteError, when it uses one, names the log
// density), unless it declares Rejects: then it may instead return a set of
// which no particle lies in the region.
func testNonFiniteRegion(t *testing.T, m Method) {
	const seed = 15
	c := reach(t, m, seed)
	for _, v := range []struct {
		name string
		nan  bool
	}{{"NaN", true}, {"-Inf", false}} {
		t.Run(v.name, func(t *testing.T) {
			var bad atomic.Int64
			set, err := m.Small(1).Run(context.Background(), halfLine(c, v.nan, &bad), from(x0),
				rand.NewPCG(seed, seed+1), nil)
			checkFinite(t, set.X)
			if bad.Load() == 0 {
				t.Fatalf("no evaluation where x₁ < %.4g", c)
			}
			if err != nil {
				var nf *particle.NonFiniteError
				if errors.As(err, &nf) && (nf.Coord != -1 || nf.Method == "" || nf.Point == "") {
					t.Errorf("%v: want the log density named, with the method and the point", err)
				}
				t.Logf("log density %s where x₁ < %.4g (%d evaluations there): %v", v.name, c, bad.Load(), err)
				return
			}
			if !m.Rejects {
				t.Fatalf("log density %s where x₁ < %.4g, evaluated there %d times: no error", v.name, c, bad.Load())
			}
			for i := 0; i < set.Len(); i++ {
				if x := set.X.At(i, 1); x < c {
					t.Fatalf("particle %d at x₁ = %v, where the log density is %s", i, x, v.name)
				}
			}
			t.Logf("log density %s where x₁ < %.4g: %d evaluations there rejected, no particle kept", v.name, c, bad.Load())
		})
	}
}
