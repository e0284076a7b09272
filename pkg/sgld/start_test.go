package sgld_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// gamma5 is Gamma(5, 1) on x > 0, log p = 4 log x − x there and −∞ with a
// zero score elsewhere: its Laplace fit at the mode 4 has sd 2, so that a
// start drawn at 4 + 3·2·z is outside the support for z < −2/3, a quarter
// of the draws.
var gamma5 = target.Func{D: 1, F: func(x, g []float64) float64 {
	if !(x[0] > 0) {
		g[0] = 0
		return math.Inf(-1)
	}
	g[0] = 4/x[0] - 1
	return 4*math.Log(x[0]) - x[0]
}}

// A chain whose start point falls outside the support draws another from
// the start's law (here the Laplace fit's, widened by InitScale = 3) instead
// of failing at its first iteration; the set says how many it redrew.
func TestStartOutsideSupportRedrawn(t *testing.T) {
	redrawn := 0
	for seed := uint64(1); seed <= 8; seed++ {
		s := sgld.Settings{InitScale: 3, Frame: sampler.Frame{Stop: sgld.StopFixed}, Iterations: 300, BurnIn: 200}
		set, err := s.Run(context.Background(), gamma5, particle.Start{X0: []float64{3}}, rand.NewPCG(seed, 7), nil)
		var nf *particle.NonFiniteError
		if errors.As(err, &nf) && nf.Iteration <= 1 {
			t.Fatalf("seed %d: the start is an error: %v", seed, err)
		}
		if err != nil {
			continue // a later move left the support: the contract's error
		}
		for i := range set.Len() {
			if x := set.X.At(i, 0); !(x > 0) {
				t.Fatalf("seed %d: draw %d at %v outside the support", seed, i, x)
			}
		}
		redrawn += int(set.Diag.Values["start_redraws"])
	}
	if redrawn == 0 {
		t.Fatal("no start was redrawn: the test shows nothing")
	}
	t.Logf("%d start points redrawn over 8 seeds", redrawn)
}

// A start that cannot be inside is a clear error, naming the method once:
// one fixed point outside (no jitter), or a law all of whose
// MaxStartDraws draws are outside.
func TestStartOutsideSupportError(t *testing.T) {
	for _, c := range []struct {
		x0   []float64
		s    sgld.Settings
		want string
	}{
		{[]float64{-5}, sgld.Settings{InitScale: sgld.NoInitScale, Frame: sampler.Frame{Whiten: sgld.WhitenNone}}, "the start point (X0, no jitter) is outside the target's support"},
		{[]float64{-50}, sgld.Settings{Frame: sampler.Frame{Whiten: sgld.WhitenNone}}, "none of 100 start points drawn has a finite log density"},
	} {
		_, err := c.s.Run(context.Background(), gamma5, particle.Start{X0: c.x0}, rand.NewPCG(1, 2), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, particle.ErrNonFinite) {
			t.Errorf("Init %v, jitter %v: error %v, want one saying %q", c.x0, c.s.InitScale, err, c.want)
		}
		if err != nil && strings.Count(err.Error(), "sgld: ") != 1 {
			t.Errorf("Init %v: %q names the method more than once", c.x0, err)
		}
	}
}
