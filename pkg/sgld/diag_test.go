package sgld

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A chain whose state leaves the support (log p = −∞ for x < −1) stops
// with an error naming the iteration and the chain; the state, kept as a
// draw before it was evaluated, is taken back: no returned draw lies
// outside the support, and the draws are those of the iterations before.
// It runs in the target's coordinates (a whitened run returns no draws
// with an error).
func TestNonFiniteTakesBackTheState(t *testing.T) {
	tg := target.Func{D: 1, F: func(x, g []float64) float64 {
		if x[0] < -1 {
			g[0] = 0
			return math.Inf(-1)
		}
		g[0] = -x[0]
		return -x[0] * x[0] / 2
	}}
	for _, keep := range []int{0, 5} { // the whole ring, and a ring that has wrapped
		// StopFixed: a ring of Keep rows (StopConverged's monitor keeps
		// every draw, so its ring would not wrap).
		s := Settings{Iterations: 10000, BurnIn: NoBurnIn, Thin: 1, Chains: 1, A: 0.5, Keep: keep,
			Schedule: ScheduleConstant, Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}}
		set, err := sampler.Set(Run(context.Background(), tg, particle.Start{X0: []float64{0}}, s, rand.NewPCG(3, 4), nil))
		var nf *particle.NonFiniteError
		if !errors.As(err, &nf) || nf.Point != "chain" || nf.Index != 0 || nf.Coord != -1 {
			t.Fatalf("Keep %d: error %v, want the −∞ of chain 0", keep, err)
		}
		// The states after iterations 1 … t−1 were kept, the last is taken
		// back; a ring of Keep that had wrapped lost its oldest.
		want := nf.Iteration - 2
		if keep > 0 {
			want = min(want, keep-1)
		}
		if set.Len() != want {
			t.Errorf("Keep %d: %d draws after an error at iteration %d, want %d", keep, set.Len(), nf.Iteration, want)
		}
		for i := 0; i < set.Len(); i++ {
			if x := set.X.At(i, 0); x < -1 {
				t.Errorf("Keep %d: draw %d at %v, outside the support", keep, i, x)
			}
		}
		t.Logf("Keep %d: %v; %d draws", keep, err, set.Len())
	}
	// StopConverged with Keep 5 keeps every draw for its monitor: the set
	// is the last 5 of the draws before the one taken back.
	s := Settings{Iterations: 10000, BurnIn: NoBurnIn, Thin: 1, Chains: 1, A: 0.5, Keep: 5,
		Schedule: ScheduleConstant, Frame: sampler.Frame{Whiten: WhitenNone}}
	set, err := sampler.Set(Run(context.Background(), tg, particle.Start{X0: []float64{0}}, s, rand.NewPCG(3, 4), nil))
	var nf *particle.NonFiniteError
	if !errors.As(err, &nf) {
		t.Fatalf("StopConverged, Keep 5: error %v, want the −∞ of chain 0", err)
	}
	if want := min(nf.Iteration-2, 5); set.Len() != want {
		t.Errorf("StopConverged, Keep 5: %d draws after an error at iteration %d, want %d", set.Len(), nf.Iteration, want)
	}
	for i := 0; i < set.Len(); i++ {
		if x := set.X.At(i, 0); x < -1 {
			t.Errorf("StopConverged, Keep 5: draw %d at %v, outside the support", i, x)
		}
	}
}
