package sp

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// newLogReg returns the model's Bayesian logistic regression of dimension d
// (d − 2 uniform features, a bias column and log α) on n synthetic rows.
func newLogReg(rng *rand.Rand, n, d int) *model.Logistic {
	return model.NewLogistic(testutil.LogisticData(rng, n, d-1))
}

// BenchmarkObjective measures one candidate evaluation of the greedy
// objective, f(x) = k₀(x, x)/2 + Σᵢ k₀(xᵢ, x) over n = 100 existing
// points, score call included, on a d = 56 logistic regression with
// N = 1000 datapoints.
func BenchmarkObjective(b *testing.B) {
	const n, d, N = 100, 56, 1000
	rng := rand.New(rand.NewPCG(1, 2))
	lr := newLogReg(rng, N, d)
	k := kernel.IMQ{}
	o := newObjective(lr, k, n)
	x := make([]float64, d)
	for i := 0; i < n; i++ {
		o.beginStep()
		for j := range x {
			x[j] = 0.1 * rng.NormFloat64()
		}
		o.eval(x)
		o.accept()
	}
	for j := range x {
		x[j] = 0.1 * rng.NormFloat64()
	}
	b.Run("score+sum", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o.eval(x)
		}
	})
	b.Run("sum-only", func(b *testing.B) {
		b.ReportAllocs()
		s := make([]float64, d)
		lr.LogProbGrad(x, s)
		for b.Loop() {
			o.evalScored(x, s)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair")
	})
	b.Run("score-only", func(b *testing.B) {
		b.ReportAllocs()
		s := make([]float64, d)
		for b.Loop() {
			lr.LogProbGrad(x, s)
		}
	})
}

// BenchmarkRunHighDim places 3 points on a d = 56 logistic regression with
// N = 100 datapoints and the default search (20 candidates, Nelder–Mead
// capped at 200·d evaluations).
func BenchmarkRunHighDim(b *testing.B) {
	const d, N, points = 56, 100, 3
	lr := newLogReg(rand.New(rand.NewPCG(1, 2)), N, d)
	b.ReportAllocs()
	var calls int64
	for b.Loop() {
		spRes, err := Run(context.Background(), lr, particle.Start{}, Settings{N: points}, rand.NewPCG(3, 4), nil)
		c, _ := spRes.Detail.(Cost)
		if err != nil {
			b.Fatal(err)
		}
		calls = c.ScoreCalls
	}
	b.ReportMetric(float64(calls)/points, "scores/point")
}

// BenchmarkRefine measures gonum's Nelder–Mead driving the objective on the
// 2-D Gaussian with no accepted points, where the objective itself is a few
// nanoseconds: ns/eval is then the cost of gonum's plumbing (goroutines
// and channels) per evaluation, which a full-data score call dwarfs.
func BenchmarkRefine(b *testing.B) {
	g, _ := gaussian2()
	o := newObjective(g, kernel.IMQ{}, 1)
	r := newRefiner(o)
	x0 := []float64{3, 2}
	const limit = 1000
	r.tolF = -1 // never converge: every run spends the cap
	b.ReportAllocs()
	for b.Loop() {
		o.beginStep()
		before := o.calls
		f0 := o.eval(x0)
		if err := r.run(context.Background(), x0, f0, 1, limit); err != nil {
			b.Fatal(err)
		}
		if o.calls-before != limit+1 {
			b.Fatalf("%d evaluations, want %d", o.calls-before, limit+1)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*limit), "ns/eval")
}
