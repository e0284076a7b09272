package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// reluInput returns a rows×lda layer with a quarter of its entries negative
// zero or positive zero among signed values, so that both the sign mask and
// the zero mask are exercised.
func reluInput(rng *rand.Rand, n int) []float64 {
	a := randSlice(rng, n)
	for i := range a {
		switch rng.IntN(8) {
		case 0:
			a[i] = 0
		case 1:
			a[i] = math.Copysign(0, -1)
		}
	}
	return a
}

// TestReLURows checks both paths against the loop written out, bit for bit:
// row and unit counts on and off the four-lane blocks, padded rows.
func TestReLURows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	defer func(v bool) { useFMA = v }(useFMA)
	for _, c := range []struct{ rows, h, pad int }{{1, 1, 0}, {3, 4, 0}, {4, 4, 1}, {9, 50, 3}, {100, 50, 950}, {7, 13, 0}, {8, 3, 2}} {
		lda := c.h + c.pad
		a0 := reluInput(rng, c.rows*lda)
		b1, w2 := reluInput(rng, c.h), randSlice(rng, c.h)
		f0 := randSlice(rng, c.rows)
		wantA, wantF := append([]float64(nil), a0...), append([]float64(nil), f0...)
		for r := 0; r < c.rows; r++ {
			for k := 0; k < c.h; k++ {
				v := wantA[r*lda+k] + b1[k]
				if math.Signbit(v) {
					v = 0
				}
				wantA[r*lda+k] = v
				wantF[r] += w2[k] * v
			}
		}
		for _, fma := range []bool{false, haveFMA} {
			useFMA = fma
			a, f := append([]float64(nil), a0...), append([]float64(nil), f0...)
			ReLURows(a, lda, c.rows, c.h, b1, w2, f)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(wantA[i]) {
					t.Fatalf("%+v fma=%v: a[%d] = %v, want %v", c, fma, i, a[i], wantA[i])
				}
			}
			for r := range f {
				if math.Float64bits(f[r]) != math.Float64bits(wantF[r]) {
					t.Fatalf("%+v fma=%v: f[%d] = %v, want %v", c, fma, r, f[r], wantF[r])
				}
			}
		}
	}
}

// TestReLUBackRows checks both paths against the loop written out, bit for
// bit, with zeros of both signs among the activations, on widths that
// take the 12-unit panels, the 4-unit steps and the scalar tail.
func TestReLUBackRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 17))
	defer func(v bool) { useFMA = v }(useFMA)
	for _, c := range []struct{ rows, h, pad int }{{1, 1, 0}, {3, 4, 0}, {4, 4, 1}, {9, 50, 3}, {100, 50, 950}, {7, 13, 0}, {8, 3, 2}, {5, 20, 1}, {3, 28, 0}, {2, 24, 0}} {
		lda := c.h + c.pad
		a0 := reluInput(rng, c.rows*lda)
		res, w2 := randSlice(rng, c.rows), randSlice(rng, c.h)
		gw0, gb0 := randSlice(rng, c.h), randSlice(rng, c.h)
		wantA := append([]float64(nil), a0...)
		wantW, wantB := append([]float64(nil), gw0...), append([]float64(nil), gb0...)
		for r := 0; r < c.rows; r++ {
			for k := 0; k < c.h; k++ {
				v := wantA[r*lda+k]
				wantW[k] += res[r] * v
				d := 0.0
				if math.Float64bits(v) != 0 {
					d = res[r] * w2[k]
				}
				wantA[r*lda+k] = d
				wantB[k] += d
			}
		}
		for _, fma := range []bool{false, haveFMA} {
			useFMA = fma
			a := append([]float64(nil), a0...)
			gw, gb := append([]float64(nil), gw0...), append([]float64(nil), gb0...)
			ReLUBackRows(a, lda, c.rows, c.h, res, w2, gw, gb)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(wantA[i]) {
					t.Fatalf("%+v fma=%v: a[%d] = %v, want %v", c, fma, i, a[i], wantA[i])
				}
			}
			for k := range gw {
				if math.Float64bits(gw[k]) != math.Float64bits(wantW[k]) || math.Float64bits(gb[k]) != math.Float64bits(wantB[k]) {
					t.Fatalf("%+v fma=%v: unit %d: gw2 %v gb1 %v, want %v %v", c, fma, k, gw[k], gb[k], wantW[k], wantB[k])
				}
			}
		}
	}
}
