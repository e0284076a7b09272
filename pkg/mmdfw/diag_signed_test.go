package mmdfw_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Bayesian-quadrature weights are signed and large (Σ|w| in the hundreds
// for 40 particles on a 2-dimensional Gaussian with the exact embedding),
// their quadrature still spreads as the target does: the diagnostics read
// the set by its own weights and do not call it collapsed (with |w| in
// their place its spread ratio was 0.014 and the set was flagged
// "collapse" and "mode").
func TestDiagnosticsSignedWeights(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1.2, 0.4, 0.4, 0.8})
	g, err := target.NewGaussian([]float64{0.5, -0.3}, cov)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		s := mmdfw.Settings{
			N:          40,
			Weighting:  mmdfw.Weighting{RawWeights: true},
			KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZExact},
			Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven, Scale: mmdfw.ScaleBandwidth},
			Frame:      sampler.Frame{Stop: mmdfw.StopFixed},
		}
		sStart, sIn := particle.Start{X0: []float64{0.5, -0.3}}, mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}
		s.Inputs = sIn
		set, err := sampler.Set(mmdfw.Run(context.Background(), g, sStart, s, rand.NewPCG(seed, 2), nil))
		if err != nil {
			t.Fatal(err)
		}
		var sum, abs float64
		for _, w := range set.W {
			sum += w
			abs += math.Abs(w)
		}
		if !(abs > 10*math.Abs(sum)) {
			t.Fatalf("seed %d: Σ|w| = %.3g, Σw = %.3g: not the signed weights the test is about", seed, abs, sum)
		}
		v := set.Diag.Values["stein_spread"]
		if !(v > 0.5 && v < 2) {
			t.Errorf("seed %d: Stein spread ratio %.3g, want near 1", seed, v)
		}
		for _, f := range set.Diag.Flags {
			if f.Code == "collapse" || f.Code == "mode" {
				t.Errorf("seed %d: false alarm %s: %s", seed, f.Code, f.Reason)
			}
		}
	}
}
