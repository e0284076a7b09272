package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// upperPairs copies the entries above the diagonal of sq, row by row, into
// scratch and returns them.
func upperPairs(sq *mat.Dense, scratch []float64) []float64 {
	n, _ := sq.Dims()
	s := scratch[:0]
	for i := 0; i < n; i++ {
		s = append(s, sq.RawRowView(i)[i+1:]...)
	}
	return s
}

// medianSqQuickselect is MedianSq by quickselect alone (no bracket).
func medianSqQuickselect(sq *mat.Dense, includeDiag bool) float64 {
	n, _ := sq.Dims()
	m := n * (n - 1) / 2
	if includeDiag {
		m = n * n
	}
	s := upperPairs(sq, make([]float64, n*n))
	if includeDiag {
		return medianWithDiagonal(s, n)
	}
	hi := selectK(s, m/2)
	if m%2 == 1 {
		return hi
	}
	lo := s[0]
	for _, v := range s[1 : m/2] {
		lo = max(lo, v)
	}
	return (lo + hi) / 2
}

// The bracketed median has the bits of quickselect's on distance matrices
// of spread and of clustered points (ties, a cluster holding the median,
// whole blocks of zeros), with and without the diagonal, at sizes on both
// sides of the bracket's threshold; the bracket is taken on most of them.
func TestMedianBracketedBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	taken, calls := 0, 0
	for _, n := range []int{40, 45, 46, 47, 64, 100, 101, 150} {
		for trial := 0; trial < 30; trial++ {
			d := 1 + trial%7
			X := mat.NewDense(n, d, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < d; j++ {
					v := rng.NormFloat64()
					switch trial % 5 {
					case 1:
						v = math.Round(3 * v) // ties
					case 2:
						if i < n*2/3 {
							v = 0 // a cluster of coincident points: zero pairs
						}
					case 3:
						v = float64(i % 3) // three values: few distinct distances
					}
					X.Set(i, j, v)
				}
			}
			sq := mat.NewDense(n, n, nil)
			SqDists(sq, X, make([]float64, n))
			for _, diag := range []bool{false, true} {
				want := medianSqQuickselect(sq, diag)
				for _, z := range []bool{false, have512} {
					use512 = z
					got := MedianSq(sq, diag, make([]float64, n*n))
					use512 = have512
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("n=%d trial %d diag=%v AVX-512 %v: %v, quickselect %v", n, trial, diag, z, got, want)
					}
				}
				m := n * (n - 1) / 2
				kHi, kLo := m/2, m/2-1
				even := m%2 == 0
				if diag {
					kHi, kLo, even = diagRank(n*n/2, n), diagRank(n*n/2-1, n), n*n%2 == 0
				}
				calls++
				if _, ok := medianBracketed(sq, make([]float64, m), kHi, kLo, even); ok {
					taken++
				}
			}
		}
	}
	t.Logf("bracket taken in %d of %d medians", taken, calls)
	if taken < calls/2 {
		t.Errorf("the bracket was taken in %d of %d medians", taken, calls)
	}
}

// medianBracketed selects the same order statistics as sorting, or
// declines, on random pairs with a rank anywhere.
func TestMedianBracketedRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	taken := 0
	for trial := 0; trial < 200; trial++ {
		n := 50 + rng.IntN(60)
		m := n * (n - 1) / 2
		sq := mat.NewDense(n, n, nil)
		var pairs []float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				v := math.Abs(rng.NormFloat64()) + 0.01
				sq.Set(i, j, v)
				sq.Set(j, i, v)
				pairs = append(pairs, v)
			}
		}
		slices.Sort(pairs)
		kHi := 1 + rng.IntN(m-1)
		for _, z := range []bool{false, have512} {
			use512 = z
			got, ok := medianBracketed(sq, make([]float64, m), kHi, kHi-1, true)
			if ok && !z {
				taken++
			}
			if want := (pairs[kHi-1] + pairs[kHi]) / 2; ok && got != want {
				t.Fatalf("n=%d k=%d AVX-512 %v: %v, sorted %v", n, kHi, z, got, want)
			}
			got, ok = medianBracketed(sq, make([]float64, m), kHi, kHi, false)
			if ok && got != pairs[kHi] {
				t.Fatalf("n=%d k=%d AVX-512 %v: %v, sorted %v", n, kHi, z, got, pairs[kHi])
			}
			// One negative or NaN pair anywhere makes it decline.
			i := rng.IntN(n - 1)
			j := i + 1 + rng.IntN(n-1-i)
			old := sq.At(i, j)
			for _, bad := range []float64{-1e-300, math.NaN()} {
				sq.Set(i, j, bad)
				if _, ok := medianBracketed(sq, make([]float64, m), kHi, kHi-1, true); ok {
					t.Fatalf("n=%d AVX-512 %v: pair (%d,%d) = %v taken", n, z, i, j, bad)
				}
			}
			sq.Set(i, j, old)
			use512 = have512
		}
	}
	if taken < 150 {
		t.Errorf("the bracket held in %d of 200 selections", taken)
	}
}
