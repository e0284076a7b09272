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
