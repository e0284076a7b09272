package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// serialDiffArgmin is AddScaledDiffArgmin's documented serial loop.
func serialDiffArgmin(g, a, b []float64, gamma float64) (int, float64, int, float64) {
	imin, gmin, imax, gmax := 0, math.Inf(1), 0, math.Inf(-1)
	for j := range g {
		v := g[j] + float64(gamma*(a[j]-b[j]))
		g[j] = v
		if v < gmin {
			imin, gmin = j, v
		}
		if v > gmax {
			imax, gmax = j, v
		}
	}
	return imin, gmin, imax, gmax
}

// sameFloat compares bits, any NaN equal to any NaN (the payload a NaN
// sum keeps is the hardware's choice of operand).
func sameFloat(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return math.Float64bits(x) == math.Float64bits(y)
}

// TestAddScaledDiffArgmin: the vector path and the portable one give the
// serial loop's g, indices and values, bit for bit, on random vectors of
// every length up to 70 and a long one, with ties (values drawn from a few
// levels, so that minima and maxima repeat across lanes), ±0, ±Inf and
// NaN.
func TestAddScaledDiffArgmin(t *testing.T) {
	defer func(v bool) { useFMA = v }(useFMA)
	rng := rand.New(rand.NewPCG(21, 22))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}
	draw := func(mode int) float64 {
		switch {
		case mode == 1:
			return float64(rng.IntN(3)) // ties
		case mode == 2 && rng.IntN(6) == 0:
			return special[rng.IntN(len(special))]
		default:
			return rng.NormFloat64()
		}
	}
	lengths := []int{1000}
	for n := 0; n <= 70; n++ {
		lengths = append(lengths, n)
	}
	for _, fma := range []bool{true, false} {
		if fma && !haveFMA {
			continue
		}
		useFMA = fma
		for _, n := range lengths {
			for mode := range 3 {
				for rep := range 20 {
					g, a, b := make([]float64, n), make([]float64, n), make([]float64, n)
					for j := range g {
						g[j], a[j], b[j] = draw(mode), draw(mode), draw(mode)
					}
					if mode == 1 {
						copy(b, a) // g unchanged: ties stay ties
					}
					gamma := []float64{0.37, 0, 1, -2.5}[rep%4]
					want := append([]float64(nil), g...)
					i0, v0, k0, m0 := serialDiffArgmin(want, a, b, gamma)
					i1, v1, k1, m1 := AddScaledDiffArgmin(g, a, b, gamma)
					if i0 != i1 || !sameFloat(v0, v1) || k0 != k1 || !sameFloat(m0, m1) {
						t.Fatalf("fma=%v n=%d mode=%d rep=%d: got (%d, %v, %d, %v), serial (%d, %v, %d, %v)",
							fma, n, mode, rep, i1, v1, k1, m1, i0, v0, k0, m0)
					}
					for j := range g {
						if !sameFloat(g[j], want[j]) {
							t.Fatalf("fma=%v n=%d mode=%d: g[%d] = %v, serial %v", fma, n, mode, j, g[j], want[j])
						}
					}
				}
			}
		}
	}
}

func BenchmarkAddScaledDiffArgmin(b *testing.B) {
	defer func(v bool) { useFMA = v }(useFMA)
	rng := rand.New(rand.NewPCG(23, 24))
	n := 800
	g, x, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range g {
		g[j], x[j], y[j] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
	}
	for _, path := range []string{"avx2", "serial"} {
		if path == "avx2" && !haveFMA {
			continue
		}
		b.Run(path, func(b *testing.B) {
			useFMA = path == "avx2"
			b.SetBytes(int64(4 * 8 * n))
			for b.Loop() {
				AddScaledDiffArgmin(g, x, y, 1e-9)
			}
		})
	}
}
