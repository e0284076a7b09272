package sp

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// withPrior gives a target the prior N(0, 4I).
type withPrior struct{ target.Func }

func (withPrior) SamplePrior(rng *rand.Rand, dst []float64) {
	for i := range dst {
		dst[i] = 2 * rng.NormFloat64()
	}
}

// TestSearchStart: without a MAP the first point is found as the original
// method finds it, by the candidate search (prior draws for a
// PriorSampler, N(0, Scale² I) in the search box otherwise) refined by
// Nelder–Mead. On a Gaussian target k₀(x, x)/2 = 1 + ‖∇log p(x)‖²/2 at
// the defaults is smallest at the mean, so the search must end near it,
// with an objective just above the minimum 1, without being handed it.
func TestSearchStart(t *testing.T) {
	g, m := gaussian2()
	for name, tg := range map[string]target.Target{"box": g, "prior": withPrior{g}} {
		spRes, err := Run(context.Background(), tg, particle.Start{}, Settings{Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}, N: 1}, rand.NewPCG(5, 6), nil)
		set := spRes.Set
		cost, _ := spRes.Detail.(Cost)
		if err != nil {
			t.Fatal(err)
		}
		x := set.X.RawRowView(0)
		dist := math.Hypot(x[0]-m[0], x[1]-m[1])
		if dist > 1e-2 || x[0] == m[0] && x[1] == m[1] {
			t.Errorf("%s: first point %v at distance %.3g from the mean %v, want a searched point within 1e-2", name, x, dist, m)
		}
		if f := cost.Objective[0]; !(f >= 1 && f < 1+1e-4) {
			t.Errorf("%s: first objective %v, want in [1, 1+1e-4)", name, f)
		}
	}
}
