package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSqDist compares SqDist with a plain sum (within n·ε of it) and checks
// that the AVX2 path and the portable loop give the same bits.
func TestSqDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	defer func(v bool) { useFMA = v }(useFMA)
	for _, n := range []int{0, 1, 15, 16, 17, 56, 903, 953} {
		a, b := randSlice(rng, n), randSlice(rng, n+3)
		var want float64
		for j := range a {
			u := a[j] - b[j]
			want += u * u
		}
		var got [2]float64
		for p, fma := range []bool{false, haveFMA} {
			useFMA = fma
			got[p] = SqDist(a, b)
			if math.Abs(got[p]-want) > float64(n+1)*0x1p-52*want {
				t.Fatalf("n=%d fma=%v: %v, want %v", n, fma, got[p], want)
			}
		}
		if math.Float64bits(got[0]) != math.Float64bits(got[1]) {
			t.Fatalf("n=%d: portable %v and kernel %v differ", n, got[0], got[1])
		}
	}
}

// TestSteinAxpy checks both paths against the update written out.
func TestSteinAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	defer func(v bool) { useFMA = v }(useFMA)
	w, c := 0.37, -1.3
	for _, n := range []int{0, 3, 4, 57, 953} {
		x, y, s, d0 := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
		want := append([]float64(nil), d0...)
		for j := range want {
			want[j] += w*s[j] + c*(x[j]-y[j])
		}
		for _, fma := range []bool{false, haveFMA} {
			useFMA = fma
			d := append([]float64(nil), d0...)
			SteinAxpy(d, x, y, s, w, c)
			for j := range d {
				if d[j] != want[j] {
					t.Fatalf("n=%d fma=%v: coordinate %d: %v, want %v", n, fma, j, d[j], want[j])
				}
			}
		}
	}
}
