package target

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// RowFunc is the log-likelihood of one data row: it returns log L(dᵢ | x)
// and adds ∇ₓ log L(dᵢ | x) to grad (it must not overwrite grad, which
// holds the other rows' sum), as every callback of this package does. Row
// indices lie in [0, N). It must be safe for concurrent use and should
// allocate nothing: it runs N times per full-data gradient.
type RowFunc func(i int, x, grad []float64) float64

// Prior is the prior p₀ of a posterior built by NewPosterior.
type Prior struct {
	// LogProbGrad returns log p₀(x) up to a constant and adds ∇log p₀(x)
	// to grad (it must not overwrite grad, which holds the likelihood's
	// gradient), as every callback of this package does. Nil is the flat
	// prior: log p₀ = 0, no gradient. It must be safe for concurrent use.
	LogProbGrad func(x, grad []float64) float64
	// Sample, when not nil, writes one draw from p₀ into dst (length d);
	// the posterior is then a PriorSampler too.
	Sample func(rng *rand.Rand, dst []float64)
}

// Posterior is a posterior over a dataset with exact minibatch and batched
// forms; NewPosterior returns one.
type Posterior interface {
	StochasticBatched
	Batched
}

// NewPosterior returns the posterior of d parameters over n data rows
//
//	log p(x) = log p₀(x) + Σᵢ₌₀ⁿ⁻¹ log L(dᵢ | x)
//
// from the log-likelihood row of one row and the prior. Its minibatch form
// on a batch B (indices in [0, n), repeats allowed) is the unbiased
// estimate
//
//	log p₀(x) + (n/|B|) Σ_{b∈B} log L(d_b | x),
//
// and its gradient likewise; the batched forms evaluate every row of a
// particle matrix in turn, exactly as the single-particle forms do. When
// prior.Sample is not nil, the result is also a PriorSampler. Nothing
// allocates: rows add their gradients into the caller's grad. Every form
// runs on the calling goroutine, one row at a time; a hand-written model
// with blocked, parallel passes (model.Logistic) is several times faster
// on large data (BenchmarkPosteriorLogistic).
//
// NewPosterior panics when d < 1, n < 1 or row is nil.
func NewPosterior(d, n int, row RowFunc, prior Prior) Posterior {
	if d < 1 || n < 1 {
		panic("target: a posterior needs d ≥ 1 and n ≥ 1")
	}
	if row == nil {
		panic("target: nil row log-likelihood")
	}
	p := &posterior{d: d, n: n, row: row, prior: prior.LogProbGrad}
	if prior.Sample != nil {
		return &samplingPosterior{posterior: p, sample: prior.Sample}
	}
	return p
}

type posterior struct {
	d, n  int
	row   RowFunc
	prior func(x, grad []float64) float64
}

type samplingPosterior struct {
	*posterior
	sample func(rng *rand.Rand, dst []float64)
}

// SamplePrior calls the prior's Sample.
func (p *samplingPosterior) SamplePrior(rng *rand.Rand, dst []float64) {
	if len(dst) != p.d {
		panic("target: dimension mismatch")
	}
	p.sample(rng, dst)
}

// Dim returns d.
func (p *posterior) Dim() int { return p.d }

// NData returns n, the number of data rows.
func (p *posterior) NData() int { return p.n }

func (p *posterior) check(x, grad []float64) {
	if len(x) != p.d || len(grad) != p.d {
		panic("target: dimension mismatch")
	}
}

// finish scales the likelihood part of grad (already in grad) by c, adds
// the prior and returns c·ll + log p₀(x).
func (p *posterior) finish(x, grad []float64, ll, c float64) float64 {
	if c != 1 {
		for j := range grad {
			grad[j] *= c
		}
		ll *= c
	}
	if p.prior != nil {
		ll += p.prior(x, grad)
	}
	return ll
}

// LogProbGrad returns log p₀(x) + Σᵢ log L(dᵢ | x) and writes its gradient
// into grad.
func (p *posterior) LogProbGrad(x, grad []float64) float64 {
	p.check(x, grad)
	clear(grad)
	var ll float64
	for i := 0; i < p.n; i++ {
		ll += p.row(i, x, grad)
	}
	return p.finish(x, grad, ll, 1)
}

// MinibatchLogProbGrad returns log p₀(x) + (n/|B|) Σ_{b∈B} log L(d_b | x)
// and writes its gradient into grad.
func (p *posterior) MinibatchLogProbGrad(x, grad []float64, batch []int) float64 {
	p.check(x, grad)
	if len(batch) == 0 {
		panic("target: empty minibatch")
	}
	clear(grad)
	var ll float64
	for _, i := range batch {
		if i < 0 || i >= p.n {
			panic("target: minibatch index out of range")
		}
		ll += p.row(i, x, grad)
	}
	return p.finish(x, grad, ll, float64(p.n)/float64(len(batch)))
}

func (p *posterior) checkBatch(xs, grads *mat.Dense, lp []float64) int {
	n, d := xs.Dims()
	if r, c := grads.Dims(); d != p.d || r != n || c != d || len(lp) != n {
		panic("target: dimension mismatch")
	}
	return n
}

// LogProbGradBatch calls LogProbGrad on every row of xs.
func (p *posterior) LogProbGradBatch(xs, grads *mat.Dense, lp []float64) {
	for i := range p.checkBatch(xs, grads, lp) {
		lp[i] = p.LogProbGrad(xs.RawRowView(i), grads.RawRowView(i))
	}
}

// MinibatchLogProbGradBatch calls MinibatchLogProbGrad on every row of xs,
// all on the same batch.
func (p *posterior) MinibatchLogProbGradBatch(xs, grads *mat.Dense, lp []float64, batch []int) {
	for i := range p.checkBatch(xs, grads, lp) {
		lp[i] = p.MinibatchLogProbGrad(xs.RawRowView(i), grads.RawRowView(i), batch)
	}
}
