package svgd_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// fullOnly hides the minibatch method of a target.
type fullOnly struct{ target.Target }

// Full-batch SVGD: Batch FullBatch, a batch of N and a batch larger
// than N give the particles of a target without minibatches, and the
// particle mean reaches the posterior mean Σy/(N+1) of meanData within a
// small fraction of the posterior standard deviation 1/√(N+1).
func TestFullBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const N = 40
	tg := newMeanData(rng, N)
	init := randInit(rng, 30, 2, 1)
	run := func(tt target.Target, batch int) *mat.Dense {
		set, err := sampler.Set(svgd.Run(context.Background(), tt, particle.Start{Particles: init}, svgd.Settings{Iterations: 3000, StepSize: 0.05, Batch: batch}, rand.NewPCG(3, 4), nil))
		if err != nil {
			t.Fatal(err)
		}
		return set.X
	}
	ref := run(fullOnly{tg}, 0)
	for _, b := range []int{svgd.FullBatch, N, N + 5} {
		if got := run(tg, b); !mat.Equal(got, ref) {
			t.Errorf("batch %d: particles differ from full-data SVGD", b)
		}
	}
	if got := run(tg, N-1); mat.Equal(got, ref) {
		t.Error("a minibatch of N−1 gave the full-data particles")
	}
	var want [2]float64
	for _, y := range tg.y {
		want[0] += y[0] / (N + 1)
		want[1] += y[1] / (N + 1)
	}
	sd := 1 / math.Sqrt(N+1)
	for c := 0; c < 2; c++ {
		m := mat.Sum(ref.ColView(c)) / 30
		if math.Abs(m-want[c]) > 0.05*sd {
			t.Errorf("coordinate %d: particle mean %.4f, posterior mean %.4f (sd %.3f)", c, m, want[c], sd)
		}
	}
}
