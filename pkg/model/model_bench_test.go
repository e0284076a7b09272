package model

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/target"
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
// matrix; its MB/s compares directly with BenchmarkStreamSum. The
// "portable" case forces the kernels used where AVX2/FMA are missing.
func BenchmarkBLRFullGrad(b *testing.B) {
	X, y := covLike()
	m := NewLogistic(X, y)
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, m.Dim())
	for j := range x {
		x[j] = 0.1 * rng.NormFloat64()
	}
	grad := make([]float64, m.Dim())
	run := func(b *testing.B) {
		m.LogProbGrad(x, grad)
		b.SetBytes(int64(covRows) * covCols * 8)
		b.ReportAllocs()
		for b.Loop() {
			m.LogProbGrad(x, grad)
		}
	}
	if haveFMA {
		b.Run("fma", run)
	}
	b.Run("portable", func(b *testing.B) {
		defer func(v bool) { lrUseFMA = v }(lrUseFMA)
		lrUseFMA = false
		run(b)
	})
}

func benchBatch(rng *rand.Rand, n int) []int {
	b := make([]int, batch100)
	for i := range b {
		b[i] = rng.IntN(n)
	}
	return b
}

// BenchmarkBLRMinibatchGrad is one minibatch gradient (batch 100) of the
// Covertype-sized logistic regression.
func BenchmarkBLRMinibatchGrad(b *testing.B) {
	X, y := covLike()
	m := NewLogistic(X, y)
	rng := rand.New(rand.NewPCG(5, 6))
	x := randVec(rng, m.Dim(), 0.1)
	grad := make([]float64, m.Dim())
	batch := benchBatch(rng, covRows)
	b.ReportAllocs()
	for b.Loop() {
		m.MinibatchLogProbGrad(x, grad, batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/row")
}

// BenchmarkBNNMinibatchGrad is one minibatch gradient (batch 100) of the
// 50-unit network: p = 16 is the staged Naval data (d = 903), p = 17 the
// paper's Naval (d = 953).
func BenchmarkBNNMinibatchGrad(b *testing.B) {
	for _, p := range []int{16, 17} {
		rng := rand.New(rand.NewPCG(7, uint64(p)))
		X, y := synthBNN(rng, 10000, p)
		m := NewBNN(X, y, 50)
		x := make([]float64, m.Dim())
		m.Init(rng, x)
		grad := make([]float64, m.Dim())
		batch := benchBatch(rng, 10000)
		b.Run("d="+itoa(m.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.MinibatchLogProbGrad(x, grad, batch)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/row")
		})
	}
}

// BenchmarkBNNFullGrad is one full-data gradient of the Naval-sized network
// (10,741 training rows, p = 16, H = 50).
func BenchmarkBNNFullGrad(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 1))
	X, y := synthBNN(rng, 10741, 16)
	m := NewBNN(X, y, 50)
	x := make([]float64, m.Dim())
	m.Init(rng, x)
	grad := make([]float64, m.Dim())
	m.LogProbGrad(x, grad)
	b.SetBytes(10741 * 16 * 8) // X once
	b.ReportAllocs()
	for b.Loop() {
		m.LogProbGrad(x, grad)
	}
	// Per row: the hidden layer and the first-layer gradient, 2·p·H
	// multiply-adds each.
	b.ReportMetric(4*10741*16*50*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkBNNFullBatch is LogProbGradBatch for 20 particles of the
// Naval-sized network (the KSD metric's and a full-batch method's call).
func BenchmarkBNNFullBatch(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 2))
	X, y := synthBNN(rng, 10741, 16)
	m := NewBNN(X, y, 50)
	xs := mat.NewDense(20, m.Dim(), nil)
	for i := 0; i < 20; i++ {
		m.Init(rng, xs.RawRowView(i))
	}
	grads := mat.NewDense(20, m.Dim(), nil)
	lp := make([]float64, 20)
	m.LogProbGradBatch(xs, grads, lp)
	b.ReportAllocs()
	cpu := testutil.StartCPU()
	for b.Loop() {
		m.LogProbGradBatch(xs, grads, lp)
	}
	cpu.Report(b)
	b.ReportMetric(20*4*10741*16*50*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkBLRMetrics evaluates the weighted predictive of 100 particles on
// Covertype's 116,203 test rows; GFLOP/s counts the 2·rows·55·100 flops of
// the logits.
func BenchmarkBLRMetrics(b *testing.B) {
	X, y := covLike()
	Xt := mat.NewDense(covTest, covCols, X.RawMatrix().Data[:covTest*covCols])
	yt := y[:covTest]
	m := NewLogistic(Xt, yt)
	rng := rand.New(rand.NewPCG(9, 1))
	P := mat.NewDense(nPartLR, m.Dim(), nil)
	w := make([]float64, nPartLR)
	for i := range nPartLR {
		P.SetRow(i, randVec(rng, m.Dim(), 0.3))
		w[i] = 1.0 / nPartLR
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Metrics(Xt, yt, P, w)
	}
	flops := 2.0 * covTest * covCols * nPartLR
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkBLRBatchGrad is LogProbGradBatch for 100 particles on the
// 116,203-row matrix: two products of 2·rows·55·100 flops each.
func BenchmarkBLRBatchGrad(b *testing.B) {
	X, y := covLike()
	Xt := mat.NewDense(covTest, covCols, X.RawMatrix().Data[:covTest*covCols])
	m := NewLogistic(Xt, y[:covTest])
	rng := rand.New(rand.NewPCG(9, 2))
	P := mat.NewDense(nPartLR, m.Dim(), nil)
	for i := range nPartLR {
		P.SetRow(i, randVec(rng, m.Dim(), 0.3))
	}
	G := mat.NewDense(nPartLR, m.Dim(), nil)
	lp := make([]float64, nPartLR)
	b.ReportAllocs()
	for b.Loop() {
		m.LogProbGradBatch(P, G, lp)
	}
	flops := 4.0 * covTest * covCols * nPartLR
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// benchMinibatchBatch compares, for n particles on one batch of 100, one
// MinibatchLogProbGradBatch call ("batched"; "batched-portable" forces the
// gemm kernels of the logistic model) with n MinibatchLogProbGrad calls on
// the calling goroutine ("single"), as SVGD evaluates its particles every
// iteration.
func benchMinibatchBatch(b *testing.B, tg target.StochasticBatched, rng *rand.Rand, n int) {
	d := tg.Dim()
	xs := mat.NewDense(n, d, nil)
	for i := range n {
		xs.SetRow(i, randVec(rng, d, 0.1))
	}
	grads := mat.NewDense(n, d, nil)
	lp := make([]float64, n)
	batch := benchBatch(rng, tg.NData())
	b.Run("batched", func(b *testing.B) {
		tg.MinibatchLogProbGradBatch(xs, grads, lp, batch) // scratch
		b.ReportAllocs()
		cpu := testutil.StartCPU()
		for b.Loop() {
			tg.MinibatchLogProbGradBatch(xs, grads, lp, batch)
		}
		cpu.Report(b)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*len(batch)), "ns/particle-term")
	})
	if _, ok := tg.(*Logistic); ok && haveFMA {
		b.Run("batched-portable", func(b *testing.B) {
			defer func(v bool) { lrUseFMA = v }(lrUseFMA)
			lrUseFMA = false
			tg.MinibatchLogProbGradBatch(xs, grads, lp, batch)
			b.ReportAllocs()
			for b.Loop() {
				tg.MinibatchLogProbGradBatch(xs, grads, lp, batch)
			}
		})
	}
	b.Run("single", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range n {
				lp[i] = tg.MinibatchLogProbGrad(xs.RawRowView(i), grads.RawRowView(i), batch)
			}
		}
	})
}

// BenchmarkBLRMinibatchBatch is SVGD's score call on the Covertype-sized
// logistic regression: 100 particles, d = 56, batch 100.
func BenchmarkBLRMinibatchBatch(b *testing.B) {
	X, y := covLike()
	benchMinibatchBatch(b, NewLogistic(X, y), rand.New(rand.NewPCG(10, 1)), nPartLR)
}

// BenchmarkBNNMinibatchBatch is SVGD's score call on the Naval-sized
// network: 20 particles, d = 903, batch 100.
func BenchmarkBNNMinibatchBatch(b *testing.B) {
	rng := rand.New(rand.NewPCG(10, 2))
	X, y := synthBNN(rng, 10741, 16)
	benchMinibatchBatch(b, NewBNN(X, y, 50), rng, 20)
}

// BenchmarkBLRFullBatch compares, for 100 particles, one LogProbGradBatch
// call ("batched") with 100 LogProbGrad calls ("single") on the first rows
// of the Covertype-sized design: 464,810 rows (the paper's training split)
// and 16,000. GFLOP/s counts the 4·rows·55·100 flops of the logits and the
// gradient terms; GB/s is X's bytes over the time of one call, so that the
// batched form reads X once.
func BenchmarkBLRFullBatch(b *testing.B) {
	X, y := covLike()
	for _, rows := range []int{464810, 16000} {
		Xr := mat.NewDense(rows, covCols, X.RawMatrix().Data[:rows*covCols])
		m := NewLogistic(Xr, y[:rows])
		rng := rand.New(rand.NewPCG(9, 3))
		P := mat.NewDense(nPartLR, m.Dim(), nil)
		for i := range nPartLR {
			P.SetRow(i, randVec(rng, m.Dim(), 0.3))
		}
		G := mat.NewDense(nPartLR, m.Dim(), nil)
		lp := make([]float64, nPartLR)
		report := func(b *testing.B) {
			s := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(4.0*float64(rows)*covCols*nPartLR/s/1e9, "GFLOP/s")
			b.ReportMetric(float64(rows)*covCols*8/s/1e9, "GB/s")
			b.ReportMetric(s*1e9/float64(rows*nPartLR), "ns/particle-row")
		}
		b.Run("rows="+itoa(rows)+"/batched", func(b *testing.B) {
			m.LogProbGradBatch(P, G, lp)
			b.ReportAllocs()
			cpu := testutil.StartCPU()
			for b.Loop() {
				m.LogProbGradBatch(P, G, lp)
			}
			cpu.Report(b)
			report(b)
		})
		b.Run("rows="+itoa(rows)+"/single", func(b *testing.B) {
			b.ReportAllocs()
			cpu := testutil.StartCPU()
			for b.Loop() {
				for i := range nPartLR {
					lp[i] = m.LogProbGrad(P.RawRowView(i), G.RawRowView(i))
				}
			}
			cpu.Report(b)
			report(b)
		})
	}
}
