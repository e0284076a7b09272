package sgld

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// newLogReg returns the model's Bayesian logistic regression on n synthetic
// rows of p columns (the last a bias), θ = [w, log α]: Covertype's layout.
func newLogReg(n, p int, seed uint64) *model.Logistic {
	return model.NewLogistic(testutil.LogisticData(rand.New(rand.NewPCG(seed, seed)), n, p))
}

// BenchmarkStep times one SGLD iteration of one chain at d = 56 with a
// minibatch of 100: the minibatch draw, the gradient, the update, the
// finiteness check and the copy of the kept draw.
func BenchmarkStep(b *testing.B) {
	m := newLogReg(10000, 55, 1)
	s, err := Settings{Iterations: math.MaxInt / 2, BurnIn: NoBurnIn, Thin: 1}.withDefaults(m, particle.Start{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const rows = 100
	c := &chain{s: &s, x: make([]float64, m.Dim()), g: make([]float64, m.Dim()), rng: rng,
		est: newEstimator(m, s.Batch, rng), draws: make([]float64, rows*m.Dim()), rows: rows}
	b.ReportAllocs()
	for b.Loop() {
		if !c.step() {
			b.Fatal(c.err)
		}
	}
	b.ReportMetric(float64(s.Batch), "datapoints/op")
}

// BenchmarkStepOverhead times the sampler's own work per iteration at d = 56
// (step size, update with 56 normal draws, finiteness check, copy of the
// kept draw) with a gradient that costs nothing.
func BenchmarkStepOverhead(b *testing.B) {
	const d = 56
	t := target.Func{D: d, F: func(x, g []float64) float64 {
		for j := range g {
			g[j] = -x[j]
		}
		return 0
	}}
	s, err := Settings{Iterations: math.MaxInt / 2, BurnIn: NoBurnIn, Thin: 1}.withDefaults(t, particle.Start{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const rows = 100
	c := &chain{s: &s, x: make([]float64, d), g: make([]float64, d), rng: rng,
		est: newEstimator(t, s.Batch, rng), draws: make([]float64, rows*d), rows: rows}
	b.ReportAllocs()
	for b.Loop() {
		if !c.step() {
			b.Fatal(c.err)
		}
	}
}

// BenchmarkRun times Run with 2 chains of 1000 iterations on the same target;
// iter/s counts iterations of all chains.
func BenchmarkRun(b *testing.B) {
	m := newLogReg(10000, 55, 1)
	s := Settings{Iterations: 1000, Chains: 2, Frame: sampler.Frame{Workers: 2}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sampler.Set(Run(context.Background(), m, particle.Start{}, s, rand.NewPCG(1, 2), nil)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*s.Chains*s.Iterations)/b.Elapsed().Seconds(), "iter/s")
}
