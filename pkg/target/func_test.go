package target_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// panicMessage runs f and returns what it panicked with ("" if nothing).
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

func TestFuncInvalid(t *testing.T) {
	lp := func(x, g []float64) float64 { return 0 }
	for _, tc := range []struct {
		f    target.Func
		want string
	}{
		{target.Func{D: 0, F: lp}, "target: Func.D = 0: the dimension must be at least 1"},
		{target.Func{D: -3, F: lp}, "target: Func.D = -3"},
		{target.Func{D: 2}, "target: Func.F is nil"},
	} {
		if got := panicMessage(func() { tc.f.Dim() }); !strings.HasPrefix(got, tc.want) {
			t.Errorf("Dim of %+v: panic %q, want %q", tc.f.D, got, tc.want)
		}
	}
	f := target.Func{D: 2, F: lp}
	if got := panicMessage(func() { f.LogProbGrad(make([]float64, 3), make([]float64, 2)) }); !strings.HasPrefix(got, "target: Func of dimension 2 given len(x) = 3") {
		t.Errorf("length mismatch: panic %q", got)
	}
}

// An F that adds its gradient into grad, as a RowFunc and a Prior do, gets
// the right gradient from Func.LogProbGrad whatever the caller's grad
// held: LogProbGrad zeroes it first. An F that writes grad stays right
// too. The gradient is checked against central differences of log p.
func TestFuncAddsIntoZeroedGrad(t *testing.T) {
	// log p(x) = −½ xᵀAx + bᵀx with A = [[2, 0.5], [0.5, 1]], b = (1, −2).
	logp := func(x []float64) float64 {
		return -0.5*(2*x[0]*x[0]+x[0]*x[1]+x[1]*x[1]) + x[0] - 2*x[1]
	}
	adds := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0] += -(2*x[0] + 0.5*x[1]) + 1
		grad[1] += -(0.5*x[0] + x[1]) - 2
		return logp(x)
	}}
	writes := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0] = -(2*x[0] + 0.5*x[1]) + 1
		grad[1] = -(0.5*x[0] + x[1]) - 2
		return logp(x)
	}}
	x := []float64{0.3, -1.2}
	// Central differences of a quadratic are exact up to rounding: the
	// error is a few ulps of log p over h, below 1e-9 with h = 1e-4.
	const h, tol = 1e-4, 1e-9
	want := make([]float64, 2)
	for j := range want {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		want[j] = (logp(xp) - logp(xm)) / (2 * h)
	}
	for name, f := range map[string]target.Func{"adds": adds, "writes": writes} {
		grad := []float64{1e3, -7} // the caller's garbage
		if lp := f.LogProbGrad(x, grad); lp != logp(x) {
			t.Errorf("%s: log p %v, want %v", name, lp, logp(x))
		}
		for j := range want {
			if d := grad[j] - want[j]; d > tol || d < -tol {
				t.Errorf("%s: grad[%d] = %v, want %v (finite differences)", name, j, grad[j], want[j])
			}
		}
	}
}
