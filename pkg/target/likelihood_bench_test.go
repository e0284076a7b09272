package target_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The cost of the generic row-by-row posterior against the hand-written
// model.Logistic it reproduces: one full-data gradient (N = 20 000, p = 55,
// Covertype's shape) on one thread, and a minibatch of 100 for 50
// particles.
func BenchmarkPosteriorLogistic(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, p := 20000, 55
	X, y := testutil.LogisticData(rng, n, p)
	ref := model.NewLogistic(X, y)
	ref.Workers = 1
	post := logisticPosterior(X, y, ref.A0, ref.B0)
	x, g := testutil.RandVec(rng, p+1, 0.1), make([]float64, p+1)
	xs, gs, lp := mat.NewDense(50, p+1, nil), mat.NewDense(50, p+1, nil), make([]float64, 50)
	batch := make([]int, 100)
	for i := range batch {
		batch[i] = rng.IntN(n)
	}
	for _, c := range []struct {
		name string
		t    target.StochasticBatched
	}{{"NewPosterior", post}, {"model.Logistic", ref}} {
		b.Run("full/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				c.t.LogProbGrad(x, g)
			}
		})
		b.Run("minibatch50x100/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				c.t.MinibatchLogProbGradBatch(xs, gs, lp, batch)
			}
		})
	}
}
