package model

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Sizes of the paper's Covertype logistic regression: 581,012 rows, 54
// features plus a bias column; the 20 % test split has 116,203 rows.
const (
	covRows  = 581012
	covCols  = 55
	covTest  = 116203
	nPartLR  = 100
	batch100 = 100
)

var (
	benchOnce sync.Once
	benchX    *mat.Dense
	benchY    []float64
)

// covLike returns a synthetic Covertype-sized design (features in [0,1], a
// bias column) with labels from a random coefficient vector.
func covLike() (*mat.Dense, []float64) {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		benchX, benchY = synthLogistic(rng, covRows, covCols)
	})
	return benchX, benchY
}

// BenchmarkStreamSum is the memory-bandwidth probe: the sum of a 256 MB
// float64 slice split over all cores, the floor under any full-data pass.
func BenchmarkStreamSum(b *testing.B) {
	data := make([]float64, 32<<20)
	for i := range data {
		data[i] = float64(i & 7)
	}
	workers := runtime.GOMAXPROCS(0)
	sums := make([]float64, workers*8)
	b.SetBytes(int64(len(data)) * 8)
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for k := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lo, hi := blockRange(k, workers, len(data))
				sums[k*8] = floats.Sum(data[lo:hi])
			}()
		}
		wg.Wait()
	}
}

// BenchmarkBLRFullGrad is one full-data gradient on a Covertype-sized
// matrix; its MB/s compares directly with BenchmarkStreamSum.
func BenchmarkBLRFullGrad(b *testing.B) {
	X, y := covLike()
	m := NewLogistic(X, y)
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, m.Dim())
	for j := range x {
		x[j] = 0.1 * rng.NormFloat64()
	}
	grad := make([]float64, m.Dim())
	m.LogProbGrad(x, grad)
	b.SetBytes(int64(covRows) * covCols * 8)
	b.ReportAllocs()
	for b.Loop() {
		m.LogProbGrad(x, grad)
	}
}
