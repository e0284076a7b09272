package hmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// logistic is a minimal Bayesian logistic regression with the shape of the
// Covertype model (n rows, d−1 weights including the bias, log α last),
// written as a plain single-threaded row loop. It stands in for the real
// model package, which is benchmarked there; here it only shows the cost of
// one leapfrog step on full data.
type logistic struct {
	n, p int       // rows, weights
	x    []float64 // n×p row-major, features in [0, 1] and a bias column
	y    []float64 // ±1
}

func newLogistic(rng *rand.Rand, n, d int) *logistic {
	p := d - 1
	l := &logistic{n: n, p: p, x: make([]float64, n*p), y: make([]float64, n)}
	for i := 0; i < n; i++ {
		row := l.x[i*p : (i+1)*p]
		for j := range row[:p-1] {
			row[j] = rng.Float64()
		}
		row[p-1] = 1
		l.y[i] = 1
		if rng.Float64() < 0.5 {
			l.y[i] = -1
		}
	}
	return l
}

func (l *logistic) NData() int { return l.n }

func (l *logistic) MinibatchLogProbGrad(x, grad []float64, _ []int) float64 {
	return l.LogProbGrad(x, grad)
}

func (l *logistic) Dim() int { return l.p + 1 }

// LogProbGrad is Σᵢ log σ(yᵢ wᵀxᵢ) + log N(w | 0, α⁻¹I) + log Gamma(α | 1, 0.01) + log α.
func (l *logistic) LogProbGrad(theta, grad []float64) float64 {
	w, la := theta[:l.p], theta[l.p]
	alpha := math.Exp(la)
	gw := grad[:l.p]
	var ww float64
	for j, v := range w {
		gw[j] = -alpha * v
		ww += v * v
	}
	lp := 0.5*float64(l.p)*la - 0.5*alpha*ww - 0.01*alpha + la
	grad[l.p] = 0.5*float64(l.p) - 0.5*alpha*ww - 0.01*alpha + 1
	for i := 0; i < l.n; i++ {
		row := l.x[i*l.p : (i+1)*l.p]
		var z float64
		for j, v := range row {
			z += v * w[j]
		}
		yz := l.y[i] * z
		// log σ(yz) and its derivative σ(−yz), stably.
		if yz > 0 {
			e := math.Exp(-yz)
			lp -= math.Log1p(e)
			z = l.y[i] * e / (1 + e)
		} else {
			e := math.Exp(yz)
			lp += yz - math.Log1p(e)
			z = l.y[i] / (1 + e)
		}
		for j, v := range row {
			gw[j] += z * v
		}
	}
	return lp
}

var _ target.Stochastic = (*logistic)(nil)

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
	b.SetBytes(int64(8 * len(l.x)))
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
	}
}

// BenchmarkTransitionGaussian10 is one whole transition of 32 steps
// (momentum draw, trajectory, energy checks, accept/reject).
func BenchmarkTransitionGaussian10(b *testing.B) {
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), 10, 0.1, 100)
	s := Settings{}.withDefaults()
	c := newChain(0, g.target(), &s, rand.New(rand.NewPCG(1, 2)))
	if err := c.start(); err != nil {
		b.Fatal(err)
	}
	c.eps = 0.2
	b.ReportAllocs()
	for b.Loop() {
		c.transition(32)
	}
}

// TestBenchLogisticGradient checks the benchmark's stand-in target against
// central finite differences, so that the benchmark times a correct gradient.
func TestBenchLogisticGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	l := newLogistic(rng, 50, 6)
	x := make([]float64, 6)
	for j := range x {
		x[j] = 0.5 * rng.NormFloat64()
	}
	g := make([]float64, 6)
	l.LogProbGrad(x, g)
	tmp := make([]float64, 6)
	const h = 1e-6
	for j := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		fd := (l.LogProbGrad(xp, tmp) - l.LogProbGrad(xm, tmp)) / (2 * h)
		if rel := math.Abs(fd-g[j]) / math.Max(math.Abs(g[j]), 1e-8); rel > 1e-5 {
			t.Errorf("coordinate %d: gradient %v, finite difference %v", j, g[j], fd)
		}
	}
}
