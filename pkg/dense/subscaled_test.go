package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSubScaledTo: the AVX-512 path has the bits of the loop written out
// (product, then difference), on lengths with and without a tail, in place
// over s and over x, and NaN, ±Inf and signed zeros pass as the loop has
// them.
func TestSubScaledTo(t *testing.T) {
	defer func(v, z bool) { useFMA, use512 = v, z }(useFMA, use512)
	rng := rand.New(rand.NewPCG(8, 1))
	for _, n := range []int{0, 1, 7, 8, 9, 56, 903} {
		s, x := randSlice(rng, n), randSlice(rng, n)
		if n > 4 {
			s[0], x[1], s[2], x[3], x[4] = math.NaN(), math.Inf(1), math.Copysign(0, -1), 0, math.Copysign(0, -1)
		}
		c := 0.37
		want := make([]float64, n)
		for i := range want {
			want[i] = s[i] - c*x[i]
		}
		for _, path := range [][2]bool{{false, false}, {haveFMA, false}, {haveFMA, have512}} {
			useFMA, use512 = path[0], path[1]
			for _, inPlace := range []int{0, 1, 2} {
				dst := make([]float64, n)
				ss, xx := append([]float64(nil), s...), append([]float64(nil), x...)
				switch inPlace {
				case 1:
					dst = ss
				case 2:
					dst = xx
				}
				SubScaledTo(dst, ss, c, xx)
				for i := range want {
					if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
						t.Fatalf("n=%d path %v in place %d: [%d] = %v, want %v", n, path, inPlace, i, dst[i], want[i])
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic on a length mismatch")
		}
	}()
	SubScaledTo(make([]float64, 2), make([]float64, 3), 1, make([]float64, 2))
}
