package sgld

import (
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// estimator is the gradient that one chain uses: the rescaled minibatch score
// of a Stochastic target, or the full score otherwise.
//
// Minibatches are consecutive windows of |B| indices in a stream made of
// independent uniform permutations of 0…N−1, one permutation per epoch. Within
// an epoch no datapoint repeats; a batch that straddles two epochs takes the
// rest of one permutation and the start of the next, so every batch has the
// same size |B|. Every position of the stream is marginally uniform on
// 0…N−1, so E[(N/|B|) Σ_{b∈B} ∇log L(d_b | θ)] = Σₙ ∇log L(dₙ | θ): the
// estimate is unbiased whether or not |B| divides N.
type estimator struct {
	t  target.Target
	st target.Stochastic // nil: full-data gradient

	rng   *rand.Rand
	perm  []int // the current epoch's permutation
	pos   int   // next unused position of perm
	batch []int // the current minibatch

	cost  int64 // per-datapoint gradient evaluations of one call
	evals int64 // total per-datapoint gradient evaluations so far
}

// newEstimator returns the estimator of t with minibatch size batch (> 0).
// A target that is not Stochastic, or whose NData is at most batch, gets the
// full-data gradient.
func newEstimator(t target.Target, batch int, rng *rand.Rand) *estimator {
	e := &estimator{t: t, rng: rng, cost: int64(target.NData(t))}
	st, ok := t.(target.Stochastic)
	if !ok || st.NData() <= batch {
		return e
	}
	n := st.NData()
	e.st = st
	e.cost = int64(batch)
	e.perm = make([]int, n)
	for i := range e.perm {
		e.perm[i] = i
	}
	e.shuffle()
	e.batch = make([]int, batch)
	return e
}

// shuffle draws a new epoch: a uniform Fisher–Yates permutation of perm.
func (e *estimator) shuffle() {
	p := e.perm
	for i := len(p) - 1; i > 0; i-- {
		j := e.rng.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	e.pos = 0
}

// next fills e.batch with the next |B| indices of the stream.
func (e *estimator) next() {
	for k := range e.batch {
		if e.pos == len(e.perm) {
			e.shuffle()
		}
		e.batch[k] = e.perm[e.pos]
		e.pos++
	}
}

// eval writes the gradient estimate at x into grad and returns the matching
// log-density estimate.
func (e *estimator) eval(x, grad []float64) float64 {
	e.evals += e.cost
	if e.st == nil {
		return e.t.LogProbGrad(x, grad)
	}
	e.next()
	return e.st.MinibatchLogProbGrad(x, grad, e.batch)
}
