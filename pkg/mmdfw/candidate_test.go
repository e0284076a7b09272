package mmdfw

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// seqPrior is a one-dimensional target whose prior draws are xs in turn.
type seqPrior struct {
	target.Target
	xs []float64
	i  int
}

func (p *seqPrior) SamplePrior(_ *rand.Rand, dst []float64) {
	dst[0] = p.xs[p.i%len(p.xs)]
	p.i++
}

// unitRBF is k(x, y) = exp(−(x − y)²/2) in one dimension.
type unitRBF struct{}

func (unitRBF) Eval(x, y []float64) float64 { return math.Exp(-(x[0] - y[0]) * (x[0] - y[0]) / 2) }

func (k unitRBF) GradX(dst, x, y []float64) float64 {
	v := k.Eval(x, y)
	dst[0] = -(x[0] - y[0]) * v
	return v
}

// pointEmbedding is z(x) = 0.8·k(x, 2): the embedding of a point mass of
// 0.8 at 2.
type pointEmbedding struct{}

func (pointEmbedding) Embedding(x []float64) float64 { return 0.8 * unitRBF{}.Eval(x, []float64{2}) }
func (pointEmbedding) SelfIntegral() float64         { return 0.64 }

// The LMO starts from the candidate of smallest objective
// F(x) = Σᵢ wᵢ k(x, xᵢ) − z(x) among Settings.Starts draws. With particles
// 0 and 2 of weights 1 and 0.5 and z(x) = 0.8·k(x, 2),
// F(x) = e^{−x²/2} − 0.3·e^{−(x−2)²/2}, and the five draws give
//
//	x = −3: e^{−4.5} − 0.3e^{−12.5}        =  0.011108
//	x =  3: e^{−4.5} − 0.3e^{−0.5}         = −0.170851  (the smallest)
//	x =  2: e^{−2} − 0.3                   = −0.164665
//	x = .5: e^{−0.125} − 0.3e^{−1.125}     =  0.785101
//	x =  5: e^{−12.5} − 0.3e^{−4.5}        = −0.003329
//
// The second draw wins: not the first or the last, not the largest F (0.5),
// not the largest z (2, which ignores the particles' kernel sum), not the
// smallest kernel sum (5, which ignores z).
func TestCandidateBestOfStarts(t *testing.T) {
	xs := []float64{-3, 3, 2, 0.5, 5}
	wantF := []float64{0.011108, -0.170851, -0.164665, 0.785101, -0.003329}
	r := &run{
		t:    &seqPrior{xs: xs},
		s:    Settings{Candidates: Candidates{Starts: len(xs), CandidateInit: InitPrior}},
		d:    1,
		n:    2,
		X:    mat.NewDense(2, 1, []float64{0, 2}),
		wt:   &weights{w: []float64{1, 0.5}},
		k:    unitRBF{},
		emb:  pointEmbedding{},
		best: make([]float64, 1),
	}
	for i, x := range xs {
		if f := r.objective([]float64{x}); math.Abs(f-wantF[i]) > 1e-6 {
			t.Errorf("F(%v) = %.6f, want %.6f", x, f, wantF[i])
		}
	}
	x := make([]float64, 1)
	r.candidate(x)
	if x[0] != 3 {
		t.Errorf("candidate %v, want 3, the draw of smallest F", x[0])
	}
	// The next LMO draws five more and again keeps the best of its own.
	r.t.(*seqPrior).xs = []float64{5, 0.5, -3, 2, 3}
	r.t.(*seqPrior).i = 0
	r.candidate(x)
	if x[0] != 3 {
		t.Errorf("candidate %v, want 3 (the last of five draws)", x[0])
	}
	r.t.(*seqPrior).xs = []float64{2, 5, 0.5, -3, 5}
	r.t.(*seqPrior).i = 0
	r.candidate(x)
	if x[0] != 2 {
		t.Errorf("candidate %v, want 2 (the first of five draws)", x[0])
	}
}
