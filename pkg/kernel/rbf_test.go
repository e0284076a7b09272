package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
)

func TestRBFGradXFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 3, 10} {
		k := RBF{H: 0.7 + rng.Float64()}
		x := testutil.RandDense(rng, 1, d).RawRowView(0)
		y := testutil.RandDense(rng, 1, d).RawRowView(0)
		for i := range y {
			y[i] = x[i] + 0.5*y[i] // keep k away from zero
		}
		g := make([]float64, d)
		kv := k.GradX(g, x, y)
		if kv != k.Eval(x, y) {
			t.Fatalf("GradX value %v != Eval %v", kv, k.Eval(x, y))
		}
		testutil.CheckGrad(t, fmt.Sprintf("d=%d", d), func(v []float64) float64 { return k.Eval(v, y) }, x, g)
	}
}

func TestSqDistsGramRepulsionAgainstDirectSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 7, 5
	X := testutil.RandDense(rng, n, d)
	sq := mat.NewDense(n, n, nil)
	SqDists(sq, X, make([]float64, n))
	k := RBF{H: 1.3}
	K := mat.NewDense(n, n, nil)
	k.Gram(K, sq)
	rep := mat.NewDense(n, d, nil)
	k.Repulsion(rep, K, X)
	g := make([]float64, d)
	for i := 0; i < n; i++ {
		want := make([]float64, d)
		for j := 0; j < n; j++ {
			var r2 float64
			for c := 0; c < d; c++ {
				dd := X.At(i, c) - X.At(j, c)
				r2 += dd * dd
			}
			if math.Abs(sq.At(i, j)-r2) > 1e-12*(1+r2) {
				t.Fatalf("sq[%d,%d] = %v, want %v", i, j, sq.At(i, j), r2)
			}
			if kv := k.Eval(X.RawRowView(i), X.RawRowView(j)); math.Abs(K.At(i, j)-kv) > 1e-14 {
				t.Fatalf("K[%d,%d] = %v, want %v", i, j, K.At(i, j), kv)
			}
			// ∇_{x_j} k(x_j, x_i)
			k.GradX(g, X.RawRowView(j), X.RawRowView(i))
			for c := range want {
				want[c] += g[c]
			}
		}
		for c := range want {
			if math.Abs(rep.At(i, c)-want[c]) > 1e-12 {
				t.Fatalf("repulsion[%d,%d] = %v, want %v", i, c, rep.At(i, c), want[c])
			}
		}
	}
}

func TestMedianSqMatchesSortedMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		n    int
		ties bool
		neg  bool
	}{{1, false, false}, {2, false, false}, {3, false, false}, {4, false, false}, {5, true, false},
		{9, false, false}, {20, false, false}, {20, true, false}, {100, false, false}, {101, true, false},
		{7, false, true}, {8, false, true}} {
		n := c.n
		X := testutil.RandDense(rng, n, 3)
		if c.ties {
			// Coincident and repeated rows: zero and tied distances.
			for i := 1; i < n; i += 2 {
				X.SetRow(i, X.RawRowView(i/3))
			}
		}
		sq := mat.NewDense(n, n, nil)
		SqDists(sq, X, make([]float64, n))
		if c.neg {
			// Not squared distances: the general path is taken.
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					v := rng.NormFloat64()
					sq.Set(i, j, v)
					sq.Set(j, i, v)
				}
			}
		}
		for _, diag := range []bool{true, false} {
			var all []float64
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if diag || j > i {
						all = append(all, sq.At(i, j))
					}
				}
			}
			sort.Float64s(all)
			m := len(all)
			if m == 0 {
				if got := MedianSq(sq, diag, nil); got != 0 {
					t.Errorf("n=%d diag=%v: median %v of no pairs, want 0", n, diag, got)
				}
				continue
			}
			want := all[m/2]
			if m%2 == 0 {
				want = (all[m/2-1] + all[m/2]) / 2
			}
			got := MedianSq(sq, diag, make([]float64, n*n))
			if got != want {
				t.Errorf("n=%d diag=%v: median %v, want %v", n, diag, got, want)
			}
		}
	}
}

// TestMedianDistance compares MedianDistance with the sorted median of the
// directly computed distances, on all rows and on an evenly strided subset.
func TestMedianDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	X := testutil.RandDense(rng, 31, 4)
	median := func(rows []int) float64 {
		var all []float64
		for a, i := range rows {
			for _, j := range rows[a+1:] {
				var s float64
				for c := 0; c < 4; c++ {
					v := X.At(i, c) - X.At(j, c)
					s += v * v
				}
				all = append(all, math.Sqrt(s))
			}
		}
		sort.Float64s(all)
		m := len(all)
		if m%2 == 1 {
			return all[m/2]
		}
		// MedianSq averages the two middle squared distances.
		return math.Sqrt((all[m/2-1]*all[m/2-1] + all[m/2]*all[m/2]) / 2)
	}
	every := make([]int, 31)
	for i := range every {
		every[i] = i
	}
	strided := make([]int, 10)
	for i := range strided {
		strided[i] = i * 31 / 10
	}
	for _, c := range []struct {
		max  int
		rows []int
	}{{0, every}, {31, every}, {100, every}, {10, strided}} {
		got, want := MedianDistance(X, c.max), median(c.rows)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("maxRows=%d: %v, want %v", c.max, got, want)
		}
	}
	if got := MedianDistance(X, 1); got != 0 {
		t.Errorf("one row: %v, want 0", got)
	}
	if got := MedianDistance(mat.NewDense(5, 2, nil), 0); got != 0 {
		t.Errorf("coincident rows: %v, want 0", got)
	}
}

func TestSVGDBandwidthMatchesReferenceFormula(t *testing.T) {
	// Reference code: h = sqrt(0.5*med/log(n+1)), K = exp(-r²/h²/2).
	med, n := 3.0, 10
	h := SVGDBandwidth(med, n)
	r2 := 1.7
	want := math.Exp(-r2 * math.Log(float64(n)+1) / med)
	if got := (RBF{H: h}).FromSqDist(r2); math.Abs(got-want) > 1e-15 {
		t.Fatalf("k = %v, want %v", got, want)
	}
	if SVGDBandwidth(0, 5) != 1 {
		t.Fatal("zero median must give h = 1")
	}
}

// TestSelectK checks the k-th smallest value and the partial order around
// it against sorting, on random data with and without many ties.
func TestSelectK(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 3, 10, 101, 4950} {
		for _, levels := range []int{0, 1, 3} {
			s := make([]float64, n)
			for i := range s {
				if levels == 0 {
					s[i] = rng.Float64()
				} else {
					s[i] = float64(rng.IntN(levels))
				}
			}
			sorted := append([]float64(nil), s...)
			sort.Float64s(sorted)
			for _, k := range []int{0, n / 2, n - 1} {
				w := append([]float64(nil), s...)
				got := selectK(w, k)
				if got != sorted[k] {
					t.Fatalf("n=%d levels=%d k=%d: %v, want %v", n, levels, k, got, sorted[k])
				}
				for i, v := range w {
					if (i < k && v > got) || (i > k && v < got) {
						t.Fatalf("n=%d levels=%d k=%d: s[%d] = %v on the wrong side of %v", n, levels, k, i, v, got)
					}
				}
			}
		}
	}
}

// BenchmarkMedianSq is the median heuristic of SVGD on 100 particles, with
// the diagonal (the reference convention) and without, on distances that
// change from call to call as they do between iterations.
func BenchmarkMedianSq(b *testing.B) {
	n := 100
	rng := rand.New(rand.NewPCG(11, 12))
	var sqs []*mat.Dense
	for range 16 {
		sq := mat.NewDense(n, n, nil)
		SqDists(sq, testutil.RandDense(rng, n, 56), make([]float64, n))
		sqs = append(sqs, sq)
	}
	scratch := make([]float64, n*n)
	for _, diag := range []bool{true, false} {
		b.Run(fmt.Sprintf("diag=%v", diag), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				MedianSq(sqs[i%len(sqs)], diag, scratch)
				i++
			}
		})
	}
}
