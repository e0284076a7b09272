package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// TestExpScaled compares ExpScaled with math.Exp (within 2 ulps, and 0
// below the cut-off) and checks that the AVX2/FMA and AVX-512 paths and the
// portable loop give the same bits, on lengths with and without tails of
// fewer than four and eight.
func TestExpScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	defer func(v, z bool) { useFMA, use512 = v, z }(useFMA, use512)
	var in []float64
	for range 20000 {
		in = append(in, 40*rng.Float64()*rng.Float64())
	}
	in = append(in, 0, 1e-300, 0.5*math.Ln2, 707.9, 708, 708.0000001, 745, 1e6, 1)
	for _, c := range []float64{-1, -0.37, -1e-3} {
		for _, n := range []int{len(in), len(in) - 1, len(in) - 3, len(in) - 7, 3, 9, 15, 1, 0} {
			// The portable loop, the AVX2 kernel and the AVX-512 kernel
			// (its masked tails), where the processor has them.
			var got [3][]float64
			for p, path := range [][2]bool{{false, false}, {haveFMA, false}, {haveFMA, have512}} {
				fma := path[0]
				useFMA, use512 = path[0], path[1]
				x := append([]float64(nil), in[:n]...)
				ExpScaled(x, c)
				got[p] = x
				for i, v := range x {
					a := -c * in[i]
					want := math.Exp(-a)
					if a > expMax {
						want = 0
					}
					if u := ulps(v, want); u > 2 {
						t.Fatalf("c=%v fma=%v: exp(%v) = %v, math.Exp %v (%v ulps)", c, fma, -a, v, want, u)
					}
				}
			}
			for i := range got[0] {
				for p := 1; p < 3; p++ {
					if math.Float64bits(got[0][i]) != math.Float64bits(got[p][i]) {
						t.Fatalf("c=%v n=%d: portable %v and kernel %d %v differ at %d (input %v)", c, n, got[0][i], p, got[p][i], i, in[i])
					}
				}
			}
		}
	}
}

// BenchmarkExpScaled is the 4,950 exponentials of an SVGD Gram matrix of
// 100 particles, against math.Exp.
func BenchmarkExpScaled(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	src := make([]float64, 4950)
	for i := range src {
		src[i] = 10 * rng.Float64()
	}
	x := make([]float64, len(src))
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/exp")
	}
	b.Run("dense", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(x, src)
			ExpScaled(x, -0.5)
		}
		report(b)
	})
	b.Run("math.Exp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, v := range src {
				x[i] = math.Exp(-0.5 * v)
			}
		}
		report(b)
	})
}
