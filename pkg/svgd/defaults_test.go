package svgd_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestZeroValueKnownTargets runs the zero Settings with only X0 (the
// origin) on the 5-dimensional correlated Gaussian and on the badly scaled
// one (standard deviations 0.01 to 10): the run stops at the plateau, well
// before the ceiling and unflagged; the means lie within four standard
// errors of 100 independent draws (0.4 sd) and every variance ratio within
// [0.85, 1.15] (SVGD's 100 particles settle about 5 % too narrow in five
// dimensions with the whitened kernel).
func TestZeroValueKnownTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		g    *target.Gaussian
	}{{"gauss5", testutil.Gauss5(t)}, {"badly scaled", testutil.BadlyScaled(t)}} {
		var last particle.Snapshot
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { last = s; return nil })
		set, err := svgd.Settings{}.Run(context.Background(), testutil.AsFunc(c.g), particle.Start{X0: make([]float64, c.g.Dim())}, rand.NewPCG(1, 2), rec)
		if err != nil {
			t.Fatal(err)
		}
		it := set.Diag.Values["iterations"]
		t.Logf("%s: %v iterations, %d gradient evaluations", c.name, it, last.GradEvals)
		if set.Diag.Flagged() || it >= svgd.DefaultCeiling/2 || float64(last.Step) != it {
			t.Errorf("%s: %v iterations (last snapshot %d), flags %q", c.name, it, last.Step, set.Diag.Reason())
		}
		testutil.CheckMoments(t, c.name, set, c.g, 4/math.Sqrt(float64(set.Len())), 0.85, 1.15)
	}
}

// TestCeilingFlagged: a ceiling below what the plateau needs ends the run
// there, flagged.
func TestCeilingFlagged(t *testing.T) {
	g := testutil.Gauss5(t)
	set, err := svgd.Settings{Iterations: 60}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Diag.Flags) != 1 || set.Diag.Flags[0].Code != "ceiling" || set.Diag.Values["iterations"] != 60 {
		t.Errorf("flags %q after %v iterations, want the ceiling's after 60", set.Diag.Reason(), set.Diag.Values["iterations"])
	}
	fixed, err := svgd.Settings{Iterations: 60, Frame: sampler.Frame{Stop: svgd.StopFixed}}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Diag.Flagged() {
		t.Errorf("StopFixed flagged: %q", fixed.Diag.Reason())
	}
}

// TestBandwidthScale: BandwidthScale multiplies the particles' median
// distance. Zero and 1 are the zero value's rule to the bit; a narrower
// kernel (h² = med/2, scale √½) holds the particles of N(0, I₅) less far
// apart, so their variance falls, and a negative scale is refused.
func TestBandwidthScale(t *testing.T) {
	g := testutil.Gauss5(t)
	run := func(scale float64) particle.Set {
		t.Helper()
		set, err := svgd.Settings{Frame: sampler.Frame{Stop: svgd.StopFixed}, Iterations: 500, BandwidthScale: scale}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	zero, one, half := run(0), run(1), run(math.Sqrt(0.5))
	if !mat.Equal(zero.X, one.X) {
		t.Error("BandwidthScale 1 differs from the zero value")
	}
	cov := g.Cov()
	spread := func(s particle.Set) float64 {
		var v float64
		for j := 0; j < 5; j++ {
			v += stat.Variance(mat.Col(nil, j, s.X), nil) / cov.At(j, j) / 5
		}
		return v
	}
	t.Logf("variance / target's: scale 1 %.3f, scale √½ %.3f", spread(one), spread(half))
	if !(spread(half) < spread(one)) {
		t.Errorf("variance ratio %.3f with h² = med/2, want below %.3f with h² = med", spread(half), spread(one))
	}
	if err := (svgd.Settings{BandwidthScale: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "bandwidth_scale") {
		t.Errorf("BandwidthScale −1: error %v, want one naming bandwidth_scale", err)
	}
}
