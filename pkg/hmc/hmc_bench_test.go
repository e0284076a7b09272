package hmc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// newLogistic returns the model's Bayesian logistic regression of dimension
// d (d − 2 uniform features, a bias column and log α) on n synthetic rows.
// Its gradient runs on one goroutine, so that ns/datapoint is the cost of
// the row loop and the leapfrog step and not the machine's core count.
func newLogistic(rng *rand.Rand, n, d int) *model.Logistic {
	l := model.NewLogistic(testutil.LogisticData(rng, n, d-1))
	l.Workers = 1
	return l
}

func benchmarkLeapfrog(b *testing.B, t target.Target, dense bool) {
	d := t.Dim()
	rng := rand.New(rand.NewPCG(1, 2))
	x, p, g, minv := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for j := range x {
		x[j] = 0.01 * rng.NormFloat64()
		p[j] = rng.NormFloat64()
		minv[j] = 1e-4
	}
	m := newEuclidean(d, dense)
	m.setDiag(minv)
	t.LogProbGrad(x, g)
	b.ReportAllocs()
	for b.Loop() {
		leapfrog(t, x, p, g, m, 0.01)
	}
	nd := float64(target.NData(t))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nd, "ns/datapoint")
}

// BenchmarkLeapfrogLogistic is one full-data leapfrog step of a 56-dimensional
// logistic regression on 464,810 rows (the Covertype training split).
func BenchmarkLeapfrogLogistic(b *testing.B) {
	l := newLogistic(rand.New(rand.NewPCG(3, 4)), 464810, 56)
	b.SetBytes(int64(8 * l.NData() * l.Features()))
	benchmarkLeapfrog(b, l, false)
}

// BenchmarkLeapfrogGaussian10 is one leapfrog step on the d = 10 correlated
// Gaussian of the tests: the sampler's own overhead.
func BenchmarkLeapfrogGaussian10(b *testing.B) {
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), 10, 0.1, 100)
	benchmarkLeapfrog(b, g.target(), false)
}

// zero is a flat target whose gradient costs nothing, so that a leapfrog
// step on it times the metric alone.
type zero int

func (z zero) Dim() int { return int(z) }
func (z zero) LogProbGrad(_, grad []float64) float64 {
	clear(grad)
	return 0
}

// BenchmarkMetric times the metric's share of one leapfrog step plus the
// kinetic energy that follows it (what a transition adds to each gradient),
// for the diagonal and the dense metric at the dimensions of the Covertype
// logistic regression (56) and the Naval BNN (903).
func BenchmarkMetric(b *testing.B) {
	for _, d := range []int{56, 903} {
		for _, dense := range []bool{false, true} {
			name := "diag"
			if dense {
				name = "dense"
			}
			b.Run(fmt.Sprintf("%s/d=%d", name, d), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				x, p, g := make([]float64, d), make([]float64, d), make([]float64, d)
				m := newEuclidean(d, dense)
				for j := range p {
					p[j] = rng.NormFloat64()
				}
				var t target.Target = zero(d)
				b.ReportAllocs()
				for b.Loop() {
					leapfrog(t, x, p, g, m, 0.01)
					m.kinetic(p)
				}
			})
		}
		// What chains run with the dense metric: the velocity carried
		// along, one d×d product per step.
		b.Run(fmt.Sprintf("dense-carried/d=%d", d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, p, g := make([]float64, d), make([]float64, d), make([]float64, d)
			v, u := make([]float64, d), make([]float64, d)
			m := newEuclidean(d, true)
			for j := range p {
				p[j] = rng.NormFloat64()
			}
			m.mul(v, p)
			var t target.Target = zero(d)
			b.ReportAllocs()
			for b.Loop() {
				leapfrogDense(t, x, p, v, g, u, m, 0.01)
				_ = 0.5 * dot(p, v)
			}
		})
	}
}

// BenchmarkTransitionGaussian10 is one whole transition of 32 steps
// (momentum draw, trajectory, energy checks, accept/reject).
func BenchmarkTransitionGaussian10(b *testing.B) {
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), 10, 0.1, 100)
	s := mustDefaults(Settings{})
	c := newChain(0, g.target(), &s, nil, rand.NewPCG(1, 2))
	if err := c.start(); err != nil {
		b.Fatal(err)
	}
	c.eps = 0.2
	b.ReportAllocs()
	for b.Loop() {
		c.transition(32)
	}
}

// TestBenchLogisticGradient checks the benchmark's target against central
// finite differences, so that the benchmark times a correct gradient.
func TestBenchLogisticGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	l := newLogistic(rng, 50, 6)
	x := testutil.RandVec(rng, 6, 0.5)
	g := make([]float64, 6)
	l.LogProbGrad(x, g)
	tmp := make([]float64, 6)
	testutil.CheckGrad(t, "logistic", func(v []float64) float64 { return l.LogProbGrad(v, tmp) }, x, g)
}

// BenchmarkRunCheckpoint is a whole short run on the 10-d Gaussian without
// and with checkpoints every 100 iterations (a file write per checkpoint),
// to show their cost.
func BenchmarkRunCheckpoint(b *testing.B) {
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), 10, 0.1, 100)
	for _, every := range []int{0, 100} {
		b.Run(fmt.Sprintf("every=%d", every), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "ck")
			for b.Loop() {
				s := Settings{Chains: 2, Warmup: 300, DrawsPerChain: 500, Steps: 10}
				if every > 0 {
					os.Remove(path)
					s.Checkpoint = &Checkpoint{Path: path, Every: every, Interval: NoInterval}
				}
				if _, err := Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 2), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
