package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAdaGrad checks the AVX2 path and the portable loop against the
// update written out, bit for bit, on the first and a later step.
func TestAdaGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	defer func(v bool) { useFMA = v }(useFMA)
	// Variables, not constants: the compiler folds constant expressions
	// exactly (1 − 0.9 would be 0.1, not the run-time difference).
	a, eps, fudge := 0.9, 0.05, 1e-6
	for _, n := range []int{0, 3, 4, 56, 903} {
		x0, g, h0 := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
		for i := range h0 {
			h0[i] = math.Abs(h0[i])
		}
		for _, first := range []bool{true, false} {
			wantX, wantH := append([]float64(nil), x0...), append([]float64(nil), h0...)
			for j := range wantX {
				if first {
					wantH[j] = g[j] * g[j]
				} else {
					wantH[j] = a*wantH[j] + (1-a)*g[j]*g[j]
				}
				wantX[j] += eps * g[j] / (fudge + math.Sqrt(wantH[j]))
			}
			for _, fma := range []bool{false, haveFMA} {
				useFMA = fma
				x, h := append([]float64(nil), x0...), append([]float64(nil), h0...)
				AdaGrad(x, g, h, eps, a, fudge, first)
				for j := range x {
					if x[j] != wantX[j] || h[j] != wantH[j] {
						t.Fatalf("n=%d first=%v fma=%v: coordinate %d: x %v h %v, want %v %v", n, first, fma, j, x[j], h[j], wantX[j], wantH[j])
					}
				}
			}
		}
	}
}
