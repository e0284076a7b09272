package sp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestZeroValueKnownTargets runs the zero Settings with only MAP (the
// origin, where the search for the mode starts) on the 5-dimensional
// correlated Gaussian and on the badly scaled one (standard deviations
// 0.01 to 10): the points stop unflagged once their KSD² is that of 1000
// independent draws, well within the ceiling; the means lie within four
// standard errors of those 1000 draws (0.13 sd), and every variance ratio
// within [0.8, 1.1]: greedy Stein points fill the centre first and stay
// 10–15 % too narrow at that size (0.95 at 400 points on the 5-dimensional
// Gaussian).
func TestZeroValueKnownTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		g    *target.Gaussian
	}{{"gauss5", testutil.Gauss5(t)}, {"badly scaled", testutil.BadlyScaled(t)}} {
		spRes, err := sp.Run(context.Background(), testutil.AsFunc(c.g), particle.Start{X0: make([]float64, c.g.Dim())}, sp.Settings{}, rand.NewPCG(1, 2), nil)
		set := spRes.Set
		cost, _ := spRes.Detail.(sp.Cost)
		if err != nil {
			t.Fatal(err)
		}
		v := set.Diag.Values
		t.Logf("%s: %v points, %d score calls, KSD² equal to %.0f draws", c.name, v["particles"], cost.ScoreCalls, v["ksd_size"])
		if set.Diag.Flagged() || v["particles"] >= sp.DefaultCeiling || !(v["ksd_size"] >= sp.DefaultKSDSize) {
			t.Errorf("%s: %v points, flags %q", c.name, v["particles"], set.Diag.Reason())
		}
		testutil.CheckMoments(t, c.name, set, c.g, 4/math.Sqrt(sp.DefaultKSDSize), 0.8, 1.1)
	}
}

// TestCeilingNoted: a ceiling below the size the KSD asks for ends the
// run there; a set there at least as good as as many independent draws in
// KSD² (as MMD-FW's and Stein Points' are on a Gaussian) is noted, not
// flagged (metric.CeilingFlagged).
func TestCeilingNoted(t *testing.T) {
	g := testutil.Gauss5(t)
	set, err := sp.Settings{N: 20}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Diag.Flagged() || len(set.Diag.Notes) != 1 || set.Diag.Notes[0].Code != "ceiling" || set.Len() != 20 ||
		!(set.Diag.Values["ksd_size"] >= 20) {
		t.Errorf("flags %q, notes %v, ksd_size %v after %d points, want the ceiling's note after 20", set.Diag.Reason(), set.Diag.Notes,
			set.Diag.Values["ksd_size"], set.Len())
	}
}
