package svgd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// logReg is a synthetic Bayesian logistic regression with the model of the
// reference code: θ = (w, log α), p(α) = Gamma(a₀ = 1, b₀ = 0.01),
// w | α ~ N(0, α⁻¹ I), p(y = ±1 | x, w) = σ(y wᵀx). It allocates nothing.
type logReg struct {
	x *mat.Dense // N×p covariates
	y []float64  // ±1
}

func newLogReg(rng *rand.Rand, n, p int) *logReg {
	lr := &logReg{x: mat.NewDense(n, p, nil), y: make([]float64, n)}
	w := make([]float64, p)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		row := lr.x.RawRowView(i)
		var s float64
		for j := range row {
			row[j] = rng.NormFloat64()
			s += row[j] * w[j]
		}
		lr.y[i] = -1
		if rng.Float64() < 1/(1+math.Exp(-s)) {
			lr.y[i] = 1
		}
	}
	return lr
}

func (lr *logReg) Dim() int   { _, p := lr.x.Dims(); return p + 1 }
func (lr *logReg) NData() int { return len(lr.y) }

func (lr *logReg) LogProbGrad(x, g []float64) float64 {
	panic("svgd: full gradient not used in the benchmark")
}

func (lr *logReg) MinibatchLogProbGrad(th, g []float64, batch []int) float64 {
	const a0, b0 = 1, 0.01
	p := len(th) - 1
	w, alpha := th[:p], math.Exp(th[p])
	scale := float64(len(lr.y)) / float64(len(batch))
	for j := range g {
		g[j] = 0
	}
	var lp float64
	for _, b := range batch {
		row := lr.x.RawRowView(b)
		var s float64
		for j, v := range row {
			s += v * w[j]
		}
		ys := lr.y[b] * s
		lp -= scale * math.Log1p(math.Exp(-ys))
		c := scale * ((lr.y[b]+1)/2 - 1/(1+math.Exp(-s)))
		for j, v := range row {
			g[j] += c * v
		}
	}
	var ww float64
	for j, v := range w {
		g[j] -= alpha * v
		ww += v * v
	}
	g[p] = float64(p)/2 - alpha*ww/2 + (a0 - 1) - b0*alpha + 1
	lp += float64(p)/2*th[p] - alpha*ww/2 + a0*th[p] - b0*alpha
	return lp
}

func benchState(tb testing.TB, n, batch, workers int) *state {
	rng := rand.New(rand.NewPCG(1, 2))
	lr := newLogReg(rng, 10000, 55)
	init := mat.NewDense(n, lr.Dim(), nil)
	for i := 0; i < n; i++ {
		row := init.RawRowView(i)
		for j := range row {
			row[j] = 0.1 * rng.NormFloat64()
		}
	}
	st, err := newState(lr, Settings{Init: init, Step: 0.05, BatchSize: batch, Workers: workers}, rand.NewPCG(3, 4))
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkIteration is one SVGD iteration on the logistic regression of
// Covertype's shape (d = 56) with 100 particles and minibatch 100: scores,
// direction and AdaGrad step.
func BenchmarkIteration(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			st := benchState(b, 100, 100, w)
			defer st.close()
			b.ReportAllocs()
			it := 0
			for b.Loop() {
				st.step(it)
				it++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(it*100), "ns/particle")
		})
	}
}

// BenchmarkDirection is φ alone for 100 particles in d = 56, median
// bandwidth included.
func BenchmarkDirection(b *testing.B) {
	st := benchState(b, 100, 100, 1)
	defer st.close()
	st.computeScores()
	b.ReportAllocs()
	for b.Loop() {
		Direction(st.phi, st.x, st.scores, st.kern, false, st.ws)
	}
}

func TestIterationAllocatesNothing(t *testing.T) {
	for _, w := range []int{1, 2} {
		st := benchState(t, 100, 100, w)
		it := 0
		if a := testing.AllocsPerRun(20, func() { st.step(it); it++ }); a != 0 {
			t.Errorf("workers=%d: %v allocations per iteration", w, a)
		}
		st.close()
	}
}
