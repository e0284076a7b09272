package svgd_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// batchLog is a standard normal target in one dimension that pretends to
// hold n datapoints and records the minibatches it is asked for.
type batchLog struct {
	n       int
	mu      sync.Mutex
	batches [][]int
}

func (b *batchLog) Dim() int   { return 1 }
func (b *batchLog) NData() int { return b.n }
func (b *batchLog) LogProbGrad(x, g []float64) float64 {
	g[0] = -x[0]
	return -x[0] * x[0] / 2
}
func (b *batchLog) MinibatchLogProbGrad(x, g []float64, batch []int) float64 {
	b.mu.Lock()
	b.batches = append(b.batches, slices.Clone(batch))
	b.mu.Unlock()
	return b.LogProbGrad(x, g)
}

// TestSequentialBatches checks the reference order of the minibatches: with
// N = 7 rows and batches of 3, iteration t asks for rows (3t + k) mod 7.
func TestSequentialBatches(t *testing.T) {
	tg := &batchLog{n: 7}
	init := mat.NewDense(1, 1, []float64{0.5})
	s := svgd.Settings{Iterations: 4, Batch: 3, Sequential: true, Frame: sampler.Frame{Workers: 1}}
	if _, err := sampler.Set(svgd.Run(context.Background(), tg, particle.Start{Particles: init}, s, rand.NewPCG(1, 2), nil)); err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 0, 1}, {2, 3, 4}}
	if len(tg.batches) != len(want) {
		t.Fatalf("%d batches, want %d", len(tg.batches), len(want))
	}
	for i := range want {
		if !slices.Equal(tg.batches[i], want[i]) {
			t.Errorf("batch %d = %v, want %v", i, tg.batches[i], want[i])
		}
	}

	// The default order is a permutation: the first ⌊7/3⌋·3 = 6 rows are
	// distinct and not all in storage order for this seed.
	tg2 := &batchLog{n: 7}
	s.Sequential = false
	if _, err := sampler.Set(svgd.Run(context.Background(), tg2, particle.Start{Particles: init}, s, rand.NewPCG(1, 2), nil)); err != nil {
		t.Fatal(err)
	}
	first := append(slices.Clone(tg2.batches[0]), tg2.batches[1]...)
	seen := map[int]bool{}
	for _, r := range first {
		seen[r] = true
	}
	if len(seen) != 6 {
		t.Errorf("permuted batches %v repeat a row within one pass", first)
	}
	if slices.Equal(first, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("permuted batches are in storage order")
	}
}
