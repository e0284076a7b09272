package sgld_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestZeroValueKnownTargets runs the zero Settings with only Init (the
// origin) on the 5-dimensional correlated Gaussian and on the badly scaled
// one (standard deviations 0.01 to 10): the chains stop converged (R̂ <
// 1.01, bulk ESS ≥ 400) before the ceiling and unflagged; the means lie
// within four standard errors of 400 effective draws (0.2 sd), and every
// variance ratio within [0.75, 1.3]: four standard errors of a variance
// from 400 effective draws (√(2/400) = 0.07 each) around the 2.6 %
// inflation of the whitened step 0.1.
func TestZeroValueKnownTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		g    *target.Gaussian
	}{{"gauss5", testutil.Gauss5(t)}, {"badly scaled", testutil.BadlyScaled(t)}} {
		var last particle.Snapshot
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { last = s; return nil })
		set, err := sgld.Settings{Init: make([]float64, c.g.Dim())}.Run(context.Background(), testutil.AsFunc(c.g), rand.NewPCG(1, 2), rec)
		if err != nil {
			t.Fatal(err)
		}
		v := set.Diag.Values
		t.Logf("%s: %v iterations per chain, %d gradient evaluations, R̂ %.4f, bulk ESS %.0f", c.name, v["iterations"], last.GradEvals,
			v["rhat_max"], v["ess_bulk_min"])
		if set.Diag.Flagged() || v["iterations"] >= sgld.DefaultCeiling || !(v["rhat_max"] < 1.01) || !(v["ess_bulk_min"] >= 400) {
			t.Errorf("%s: %v iterations, flags %q", c.name, v["iterations"], set.Diag.Reason())
		}
		testutil.CheckMoments(t, c.name, set, c.g, 4/math.Sqrt(400), 0.75, 1.3)
	}
}

// TestCeilingFlagged: a ceiling too short for the chains to converge ends
// the run there, flagged, with the last R̂ and ESS recorded.
func TestCeilingFlagged(t *testing.T) {
	g := testutil.Gauss5(t)
	set, err := sgld.Settings{Init: make([]float64, 5), Iterations: 1500}.Run(context.Background(), testutil.AsFunc(g), rand.NewPCG(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := set.Diag.Values
	if len(set.Diag.Flags) != 1 || set.Diag.Flags[0].Code != "ceiling" || v["iterations"] != 1500 || !(v["ess_bulk_min"] < 400) {
		t.Errorf("flags %q after %v iterations (ESS %v), want the ceiling's after 1500", set.Diag.Reason(), v["iterations"], v["ess_bulk_min"])
	}
}

// TestAdaptiveStepShrinks: a step ceiling too large for the curvature
// (A = 1.5 on N(0, 1), where the moves' Metropolis acceptance falls below
// AdaptTarget) is lowered by the burn-in's adaptation, every chain's, and
// the sampling phase keeps the adapted step.
func TestAdaptiveStepShrinks(t *testing.T) {
	std := target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}
	set, err := sgld.Settings{Init: []float64{0}, A: 1.5, Stop: sgld.StopFixed, Iterations: 4000}.Run(context.Background(), std, rand.NewPCG(3, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	eps := set.Diag.Values["step"]
	t.Logf("adapted step %.3g from the ceiling 1.5", eps)
	if !(eps > 0.05 && eps < 1.2) {
		t.Errorf("adapted step %v, want below the ceiling 1.5", eps)
	}
	kept, err := sgld.Settings{Init: []float64{0}, Stop: sgld.StopFixed, Iterations: 4000}.Run(context.Background(), std, rand.NewPCG(3, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := kept.Diag.Values["step"]; e < 0.99*sgld.DefaultWhitenedStep || e > sgld.DefaultWhitenedStep {
		t.Errorf("adapted step %v on a well-fitted target, want about the ceiling %v", e, sgld.DefaultWhitenedStep)
	}
}
