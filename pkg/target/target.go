package target

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Target is an unnormalised log density with its gradient.
//
// Implementations must be safe for concurrent use by multiple goroutines:
// methods evaluate several particles or chains at once.
type Target interface {
	// Dim returns the dimension d of the parameter space.
	Dim() int
	// LogProbGrad returns log p(x) up to an additive constant and writes
	// ∇log p(x) into grad. Both x and grad have length Dim; x is not
	// modified.
	LogProbGrad(x, grad []float64) float64
}

// Stochastic is a posterior over a dataset of NData points whose score can be
// estimated without bias from a minibatch.
type Stochastic interface {
	Target
	// NData returns the number of datapoints N of the full data.
	NData() int
	// MinibatchLogProbGrad writes the unbiased estimate
	//	∇log p₀(x) + (N/|B|) Σ_{b∈B} ∇log L(d_b | x)
	// into grad and returns the matching estimate of log p(x). The indices
	// in batch lie in [0, NData) and may repeat.
	MinibatchLogProbGrad(x, grad []float64, batch []int) float64
}

// Batched evaluates many particles at once, turning matrix-vector work
// into matrix-matrix work.
type Batched interface {
	// LogProbGradBatch evaluates every row of xs (n×d): lp[i] receives
	// log p(xs_i) and row i of grads (n×d) receives ∇log p(xs_i).
	LogProbGradBatch(xs, grads *mat.Dense, lp []float64)
}

// StochasticBatched evaluates the minibatch estimate of Stochastic for many
// particles at once, all on the same batch, as SVGD does every iteration.
type StochasticBatched interface {
	Stochastic
	// MinibatchLogProbGradBatch evaluates every row of xs (n×d) on the
	// batch: lp[i] and row i of grads receive what MinibatchLogProbGrad
	// would give for xs_i.
	MinibatchLogProbGradBatch(xs, grads *mat.Dense, lp []float64, batch []int)
}

// PriorSampler draws parameters from the prior p₀, for initialisation.
type PriorSampler interface {
	// SamplePrior writes one prior draw into dst (length Dim).
	SamplePrior(rng *rand.Rand, dst []float64)
}

// NData returns the number of datapoints of t, or 1 when t is not
// Stochastic. It is the cost of one full-data LogProbGrad call in
// per-datapoint gradient evaluations.
func NData(t Target) int {
	if s, ok := t.(Stochastic); ok {
		return s.NData()
	}
	return 1
}

// Func is a Target built from a function, as a user's own posterior.
// A Func with D < 1 or without F is invalid: its methods panic with a
// message saying so, before any method allocates d-sized state.
type Func struct {
	// D is the dimension, at least 1.
	D int
	// F returns log p(x) up to a constant and adds ∇log p(x) into grad, as
	// every callback of this package does (RowFunc, Prior.LogProbGrad):
	// LogProbGrad zeroes grad before it calls F, so that an F that writes
	// grad (grad[j] = …) is right as well. It must be safe for concurrent
	// use.
	F func(x, grad []float64) float64
}

// Dim returns f.D. It panics when f.D < 1 or f.F is nil: every method asks
// for the dimension first, so an invalid Func stops at the call that was
// given it, not deep inside a matrix allocation.
func (f Func) Dim() int {
	f.check()
	return f.D
}

func (f Func) check() {
	if f.D < 1 {
		panic(fmt.Sprintf("target: Func.D = %d: the dimension must be at least 1", f.D))
	}
	if f.F == nil {
		panic("target: Func.F is nil")
	}
}

// LogProbGrad zeroes grad and calls f.F, which adds the gradient into it.
func (f Func) LogProbGrad(x, grad []float64) float64 {
	if len(x) != f.D || len(grad) != f.D {
		f.check()
		panic(fmt.Sprintf("target: Func of dimension %d given len(x) = %d, len(grad) = %d", f.D, len(x), len(grad)))
	}
	clear(grad)
	return f.F(x, grad)
}
