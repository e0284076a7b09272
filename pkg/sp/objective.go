package sp

import (
	"math"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// objective is the greedy Stein Points objective
//
//	f_n(x) = k₀(x, x)/2 + Σ_{i<n} k₀(xᵢ, x)
//
// over the accepted points x₁…x_{n−1}, whose scores are cached. Every
// evaluation costs exactly one score call; it allocates nothing. It also
// keeps the best location seen in the current step with its score, so that
// the accepted point's score never has to be recomputed.
type objective struct {
	t target.Target
	k kernel.IMQ
	d int

	x, s []float64 // accepted points and their scores, row-major, n rows
	lps  []float64 // accepted points' log densities, for the diagnostics
	n    int

	score []float64 // scratch for the score of the evaluated point

	bestX, bestS []float64
	bestF        float64
	bestLP, lp   float64 // log densities of the best location and of the one being scored

	// site names the location being evaluated; err is the first evaluation
	// whose log density or score was not finite, which ends the run.
	site particle.Site
	err  error

	calls     int64 // score calls so far
	nonFinite bool  // a non-finite objective was seen in this step
	rejected  int   // evaluations of this step with a non-finite objective
}

func newObjective(t target.Target, k kernel.IMQ, capacity int) *objective {
	d := t.Dim()
	return &objective{
		t:     t,
		k:     k,
		d:     d,
		x:     make([]float64, 0, capacity*d),
		s:     make([]float64, 0, capacity*d),
		lps:   make([]float64, 0, capacity),
		score: make([]float64, d),
		bestX: make([]float64, d),
		bestS: make([]float64, d),
		bestF: math.Inf(1),
	}
}

// beginStep forgets the best location of the previous step.
func (o *objective) beginStep() {
	o.bestF = math.Inf(1)
	o.nonFinite = false
	o.rejected = 0
}

// eval returns f_n(x), scoring x once. A non-finite log density or score
// sets o.err (naming o.site), which ends the run, and is answered +∞. A
// non-finite objective from a finite score (k₀ overflowing) rejects x: it is
// reported as +∞, so that neither the candidate search nor Nelder–Mead
// keeps it, flagged and counted.
func (o *objective) eval(x []float64) float64 {
	lp := o.t.LogProbGrad(x, o.score)
	o.calls++
	if !particle.FiniteEval(lp, o.score) {
		if o.err == nil {
			o.err = particle.NonFinite(o.site, lp, o.score)
		}
		return math.Inf(1)
	}
	o.lp = lp
	return o.evalScored(x, o.score)
}

// evalScored returns f_n(x) given the score s of x and updates the best
// location of the step.
func (o *objective) evalScored(x, s []float64) float64 {
	d := o.d
	f := o.k.Stein(x, x, s, s) / 2
	for i := 0; i < o.n; i++ {
		f += o.k.Stein(o.x[i*d:(i+1)*d], x, o.s[i*d:(i+1)*d], s)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		o.nonFinite = true
		o.rejected++
		return math.Inf(1)
	}
	if f < o.bestF {
		o.bestF = f
		o.bestLP = o.lp
		copy(o.bestX, x)
		copy(o.bestS, s)
	}
	return f
}

// accept appends the best location of the step and its cached score to the
// point set.
func (o *objective) accept() {
	o.x = append(o.x, o.bestX...)
	o.s = append(o.s, o.bestS...)
	o.lps = append(o.lps, o.bestLP)
	o.n++
}
