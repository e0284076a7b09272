package laplace

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// A nil Frame is the run's own coordinates; a Frame maps the points to
// x = M + SD∘z and hands back its own target.
func TestFrameIn(t *testing.T) {
	rt := target.Func{D: 2, F: func(x, g []float64) float64 { return 0 }}
	xt := target.Func{D: 2, F: func(x, g []float64) float64 { return 1 }}
	z := mat.NewDense(2, 2, []float64{0, 1, -1, 2})
	var nilFrame *Frame
	if gt, gz := nilFrame.In(rt, z); gz != z || gt.LogProbGrad(make([]float64, 2), make([]float64, 2)) != 0 {
		t.Fatalf("nil frame: got %v, %v", gt, gz)
	}
	f := &Frame{Target: xt, W: &Whitening{M: []float64{1, 2}, SD: []float64{2, 3}}}
	gt, x := f.In(rt, z)
	if gt.LogProbGrad(make([]float64, 2), make([]float64, 2)) != 1 {
		t.Error("frame: not its own target")
	}
	want := []float64{1, 5, -1, 8}
	if !mat.Equal(x, mat.NewDense(2, 2, want)) || x == z {
		t.Errorf("frame: x = %v, want %v in a new matrix", mat.Formatted(x), want)
	}
}
