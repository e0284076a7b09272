package sampler_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A run whose target turns non-finite fails, and its state cannot be saved;
// the error of MarshalState says so with the method's prefix once, not a
// second time in front of the failure that already names the method.
func TestFailedStateNotSavedPrefixOnce(t *testing.T) {
	// A standard normal whose log density is NaN from its calls-th
	// evaluation on.
	failing := func(calls int64) target.Target {
		var n atomic.Int64
		return target.Func{D: 2, F: func(x, g []float64) float64 {
			if n.Add(1) >= calls {
				return math.NaN()
			}
			g[0], g[1] = -x[0], -x[1]
			return -(x[0]*x[0] + x[1]*x[1]) / 2
		}}
	}
	ctx := context.Background()
	start := particle.Start{X0: []float64{0.1, 0.2}}
	for _, c := range []struct {
		method string
		init   func() (sampler.State, error)
	}{
		{"sgld", func() (sampler.State, error) {
			return sgld.Init(ctx, failing(20), start, sgld.Settings{Iterations: 100, Chains: 1,
				Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed, Workers: 1}}, rand.NewPCG(1, 2))
		}},
		{"sp", func() (sampler.State, error) {
			return sp.Init(ctx, failing(40), start, sp.Settings{N: 20,
				Frame: sampler.Frame{Whiten: sp.WhitenNone, Stop: sp.StopFixed}}, rand.NewPCG(1, 2))
		}},
	} {
		st, err := c.init()
		if err != nil {
			t.Fatalf("%s: Init: %v", c.method, err)
		}
		var stepErr error
		for i := 0; i < 100 && stepErr == nil && !st.Done(); i++ {
			stepErr = st.Step(ctx)
		}
		if stepErr == nil {
			t.Fatalf("%s: the run did not fail", c.method)
		}
		_, err = st.(sampler.Checkpointer).MarshalState()
		if err == nil {
			t.Fatalf("%s: the failed run's state was saved", c.method)
		}
		if n := strings.Count(err.Error(), c.method+": "); n != 1 || !strings.HasPrefix(err.Error(), c.method+": ") {
			t.Errorf("%s: %q names the method %d times", c.method, err, n)
		}
		if !strings.Contains(err.Error(), "non-finite") {
			t.Errorf("%s: %q does not say what failed", c.method, err)
		}
	}
}
