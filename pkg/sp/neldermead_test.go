package sp

import (
	"context"
	"math"
	"testing"
)

// TestNelderMead minimises a shifted, scaled quadratic and the Rosenbrock
// function, and respects the evaluation cap exactly.
func TestNelderMead(t *testing.T) {
	quad := func(x []float64) float64 {
		var s float64
		for j, v := range x {
			u := v - float64(j+1)
			s += float64(j+1) * u * u
		}
		return s
	}
	x0 := []float64{0, 0, 0}
	nm := newNelderMead(3)
	var calls int
	best := math.Inf(1)
	bestX := make([]float64, 3)
	f := func(x []float64) float64 {
		calls++
		v := quad(x)
		if v < best {
			best = v
			copy(bestX, x)
		}
		return v
	}
	n := nm.minimize(context.Background(), f, x0, quad(x0), 0.5, 5000)
	if n != calls || n >= 5000 {
		t.Errorf("reported %d evaluations, counted %d (cap 5000, should converge first)", n, calls)
	}
	for j, v := range bestX {
		if math.Abs(v-float64(j+1)) > 0.05 {
			t.Errorf("quadratic: x[%d] = %v, want %d", j, v, j+1)
		}
	}

	rosen := func(x []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		return a*a + 100*b*b
	}
	nm2 := newNelderMead(2)
	best = math.Inf(1)
	bestX = bestX[:2]
	g := func(x []float64) float64 {
		v := rosen(x)
		if v < best {
			best = v
			copy(bestX, x)
		}
		return v
	}
	x0 = []float64{-1.2, 1}
	nm2.minimize(context.Background(), g, x0, rosen(x0), 0.1, 2000)
	if best > 1e-3 {
		t.Errorf("Rosenbrock: best %v at %v, want near 0 at (1, 1)", best, bestX)
	}

	for _, limit := range []int{1, 2, 3, 7, 50} {
		calls = 0
		x0 = []float64{0, 0, 0}
		if n := nm.minimize(context.Background(), f, x0, quad(x0), 0.5, limit); n != calls || n > limit {
			t.Errorf("cap %d: %d evaluations (counted %d)", limit, n, calls)
		}
	}
}
