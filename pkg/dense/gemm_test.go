package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/mmdfw/mmdfw/internal/race"
)

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

// naive is the textbook triple loop in float64 without fused operations.
func naive(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				s += a[i*lda+l] * b[l*ldb+j]
			}
			c[i*ldc+j] = alpha * s
		}
	}
}

// TestMulNN compares the product with the textbook loop (within the
// rounding bound k·ε·Σ|A_il B_lj|), checks that the micro-kernel and the
// portable loop give the same bits, and that the padding of C beyond its
// columns is not written, on shapes with and without edges and strides
// larger than the rows.
func TestMulNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	defer func(v, z bool) { useFMA, use512 = v, z }(useFMA, use512)
	for _, sh := range [][3]int{{1, 1, 1}, {4, 8, 1}, {4, 8, 7}, {5, 9, 3}, {100, 56, 100}, {13, 953, 20}, {3, 5, 0}, {8, 16, 33}, {8, 12, 5}, {100, 100, 56}, {7, 14, 9}, {4, 17, 3}, {8, 31, 6}, {12, 55, 100}, {8, 100, 55}} {
		m, n, k := sh[0], sh[1], sh[2]
		lda, ldb, ldc := k+3, n+1, n+2
		a := randSlice(rng, m*lda)
		b := randSlice(rng, max(k, 1)*ldb)
		want := make([]float64, m*ldc)
		naive(m, n, k, 0.7, a, lda, b, ldb, want, ldc)
		// The portable loop, the AVX2 kernel and the AVX-512 kernel, where
		// the processor has them.
		var got [3][]float64
		for p, path := range [][2]bool{{false, false}, {haveFMA, false}, {haveFMA, have512}} {
			fma := path[0]
			useFMA, use512 = path[0], path[1]
			c := make([]float64, m*ldc)
			for i := range c {
				c[i] = math.NaN()
			}
			MulNN(m, n, k, 0.7, a, lda, b, ldb, c, ldc)
			got[p] = c
			for i := 0; i < m; i++ {
				for j := 0; j < ldc; j++ {
					v := c[i*ldc+j]
					if j >= n {
						if !math.IsNaN(v) {
							t.Fatalf("%v fma=%v: padding (%d,%d) written", sh, fma, i, j)
						}
						continue
					}
					var bound float64
					for l := 0; l < k; l++ {
						bound += math.Abs(a[i*lda+l] * b[l*ldb+j])
					}
					bound *= 0.7 * float64(k+1) * 0x1p-52
					if d := math.Abs(v - want[i*ldc+j]); !(d <= bound) {
						t.Fatalf("%v fma=%v: C(%d,%d) = %v, want %v (bound %g)", sh, fma, i, j, v, want[i*ldc+j], bound)
					}
				}
			}
		}
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				for p := 1; p < 3; p++ {
					if got[0][i*ldc+j] != got[p][i*ldc+j] {
						t.Fatalf("%v: portable %v and kernel %d %v differ at (%d,%d)", sh, got[0][i*ldc+j], p, got[p][i*ldc+j], i, j)
					}
				}
			}
		}
	}
}

func TestMulNNPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"stride": func() { MulNN(2, 2, 2, 1, make([]float64, 4), 1, make([]float64, 4), 2, make([]float64, 4), 2) },
		"short":  func() { MulNN(2, 2, 2, 1, make([]float64, 3), 2, make([]float64, 4), 2, make([]float64, 4), 2) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestMulNNAllocatesNothing(t *testing.T) {
	a, b, c := make([]float64, 100*56), make([]float64, 56*100), make([]float64, 100*100)
	if n := race.AllocsPerRun(t, 10, func() { MulNN(100, 100, 56, 1, a, 56, b, 100, c, 100) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// BenchmarkMulNN measures the shapes of the particle methods: K·T of one
// SVGD iteration (100×56 from 100×100), the repulsion K·X at d = 903 and 953,
// and 512³ for comparison with gonum's Dgemm ("gonum", which may use both
// cores) and the portable loop.
func BenchmarkMulNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][3]int{{100, 56, 100}, {20, 903, 20}, {100, 953, 100}, {512, 512, 512}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, bb, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float64, m*n)
		flops := 2.0 * float64(m*n*k)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		name := fmt.Sprintf("m=%d/n=%d/k=%d", m, n, k)
		b.Run(name+"/gemm", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				MulNN(m, n, k, 1, a, k, bb, n, c, n)
			}
			report(b)
		})
		if have512 {
			b.Run(name+"/avx2", func(b *testing.B) {
				defer func(v bool) { use512 = v }(use512)
				use512 = false
				b.ReportAllocs()
				for b.Loop() {
					MulNN(m, n, k, 1, a, k, bb, n, c, n)
				}
				report(b)
			})
		}
		if haveFMA {
			b.Run(name+"/portable", func(b *testing.B) {
				defer func(v bool) { useFMA = v }(useFMA)
				useFMA = false
				b.ReportAllocs()
				for b.Loop() {
					MulNN(m, n, k, 1, a, k, bb, n, c, n)
				}
				report(b)
			})
		}
		b.Run(name+"/gonum", func(b *testing.B) {
			A := blas64.General{Rows: m, Cols: k, Stride: k, Data: a}
			B := blas64.General{Rows: k, Cols: n, Stride: n, Data: bb}
			C := blas64.General{Rows: m, Cols: n, Stride: n, Data: c}
			b.ReportAllocs()
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, A, B, 0, C)
			}
			report(b)
		})
	}
}
