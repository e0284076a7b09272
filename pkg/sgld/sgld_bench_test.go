package sgld

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// logReg is a synthetic Bayesian logistic regression with the parameter
// layout of the Covertype model, θ = [w (p features incl. bias), log α],
// w | α ~ N(0, α⁻¹ I), α ~ Gamma(1, rate 0.01), p(y | x, w) = σ(y wᵀx).
// It exists only to time the sampler; the project's model lives in package
// model.
type logReg struct {
	p, n int
	x    []float64 // n×p, row-major, last column 1
	y    []float64 // ±1
}

func newLogReg(n, p int, seed uint64) *logReg {
	rng := rand.New(rand.NewPCG(seed, seed))
	m := &logReg{p: p, n: n, x: make([]float64, n*p), y: make([]float64, n)}
	w := make([]float64, p)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for i := range n {
		row := m.x[i*p : (i+1)*p]
		var z float64
		for j := range row {
			row[j] = rng.Float64()
			if j == p-1 {
				row[j] = 1
			}
			z += w[j] * row[j]
		}
		m.y[i] = -1
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			m.y[i] = 1
		}
	}
	return m
}

func (m *logReg) Dim() int   { return m.p + 1 }
func (m *logReg) NData() int { return m.n }

func (m *logReg) LogProbGrad(x, grad []float64) float64 {
	lp := m.prior(x, grad)
	for i := range m.n {
		lp += m.lik(x, grad, i, 1)
	}
	return lp
}

func (m *logReg) MinibatchLogProbGrad(x, grad []float64, batch []int) float64 {
	lp := m.prior(x, grad)
	s := float64(m.n) / float64(len(batch))
	for _, i := range batch {
		lp += m.lik(x, grad, i, s)
	}
	return lp
}

func (m *logReg) prior(x, grad []float64) float64 {
	w, la := x[:m.p], x[m.p]
	alpha := math.Exp(la)
	var ww float64
	for j, v := range w {
		ww += v * v
		grad[j] = -alpha * v
	}
	grad[m.p] = float64(m.p)/2 - alpha*ww/2 - 0.01*alpha + 1
	return float64(m.p)/2*la - alpha*ww/2 - 0.01*alpha + la
}

func (m *logReg) lik(x, grad []float64, i int, scale float64) float64 {
	row := m.x[i*m.p : (i+1)*m.p]
	var z float64
	for j, v := range row {
		z += x[j] * v
	}
	z *= m.y[i]
	c := scale * m.y[i] / (1 + math.Exp(z)) // scale·y·σ(−z)
	for j, v := range row {
		grad[j] += c * v
	}
	return -scale * math.Log1p(math.Exp(-z))
}

// BenchmarkStep times one SGLD iteration of one chain at d = 56 with a
// minibatch of 100: the minibatch draw, the gradient, the update, the
// finiteness check and the copy of the kept draw.
func BenchmarkStep(b *testing.B) {
	m := newLogReg(10000, 55, 1)
	s := Settings{Iterations: math.MaxInt / 2, BurnIn: -1, Thin: 1}.withDefaults(m)
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
	s := Settings{Iterations: math.MaxInt / 2, BurnIn: -1, Thin: 1}.withDefaults(t)
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
	s := Settings{Iterations: 1000, Chains: 2, Workers: 2}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), m, s, rand.NewPCG(1, 2), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*s.Chains*s.Iterations)/b.Elapsed().Seconds(), "iter/s")
}
