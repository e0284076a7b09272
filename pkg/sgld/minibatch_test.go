package sgld

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Within an epoch the minibatches are a partition of the data, so the
// average of the rescaled estimates over one epoch is the full gradient.
func TestMinibatchEpochIsFullGradient(t *testing.T) {
	const n, b = 1000, 100
	m := newGaussMean(n, []float64{0.7, -1.3}, []float64{0, 0}, 1, 100, 1)
	e := newEstimator(m, b, rand.New(rand.NewPCG(3, 4)))
	x := []float64{0.1, 0.2}
	full := make([]float64, 2)
	m.LogProbGrad(x, full)

	seen := make([]int, n)
	avg := make([]float64, 2)
	g := make([]float64, 2)
	for range n / b {
		e.eval(x, g)
		for _, i := range e.batch {
			seen[i]++
		}
		for j := range avg {
			avg[j] += g[j] / (n / b)
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("datapoint %d drawn %d times in one epoch, want 1", i, c)
		}
	}
	for j := range avg {
		if math.Abs(avg[j]-full[j]) > 1e-10*math.Abs(full[j]) {
			t.Errorf("coordinate %d: epoch average %v, full gradient %v", j, avg[j], full[j])
		}
	}
	if got, want := e.evals, int64(n); got != want {
		t.Errorf("cost of one epoch: got %d, want %d", got, want)
	}
}

// When |B| does not divide N, batches straddle epochs; the stream is still a
// sequence of permutations and the estimate is unbiased.
func TestMinibatchUnbiased(t *testing.T) {
	const n, b, batches = 1037, 100, 20000
	m := newGaussMean(n, []float64{0.7, -1.3}, []float64{0, 0}, 1, 100, 2)
	e := newEstimator(m, b, rand.New(rand.NewPCG(5, 6)))
	x := []float64{0, 0}
	full := make([]float64, 2)
	m.LogProbGrad(x, full)

	var stream []int
	var sum, sum2 [2]float64
	g := make([]float64, 2)
	for range batches {
		e.eval(x, g)
		if len(stream) < 10*n {
			stream = append(stream, e.batch...)
		}
		for j, v := range g {
			sum[j] += v
			sum2[j] += v * v
		}
	}
	for k := 0; k+n <= len(stream); k += n {
		seen := make([]bool, n)
		for _, i := range stream[k : k+n] {
			if seen[i] {
				t.Fatalf("epoch %d: datapoint %d repeats", k/n, i)
			}
			seen[i] = true
		}
	}
	for j := range full {
		mean := sum[j] / batches
		sd := math.Sqrt(sum2[j]/batches - mean*mean)
		// Batches of one epoch are negatively correlated, so the
		// independent-batch standard error is conservative.
		se := sd / math.Sqrt(batches)
		if se == 0 || math.Abs(mean-full[j]) > 4*se {
			t.Errorf("coordinate %d: mean of %d minibatch gradients %v, full gradient %v, 4 SE = %v",
				j, batches, mean, full[j], 4*se)
		}
	}
}

// A target that is not Stochastic, or has no more datapoints than the batch,
// gets the full gradient at the cost of N evaluations.
func TestEstimatorFullGradient(t *testing.T) {
	m := newGaussMean(50, []float64{1}, []float64{0}, 1, 1, 3)
	e := newEstimator(m, 100, rand.New(rand.NewPCG(1, 1)))
	if e.st != nil || e.cost != 50 {
		t.Fatalf("N=50 ≤ batch=100: got stochastic=%v cost=%d, want full gradient at cost 50", e.st != nil, e.cost)
	}
}
