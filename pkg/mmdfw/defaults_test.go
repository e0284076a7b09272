package mmdfw_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestZeroValueKnownTargets runs the zero Settings with only X0 (the
// origin) on the 5-dimensional correlated Gaussian and on the badly scaled
// one (standard deviations 0.01 to 10): the run is in the Laplace fit's
// whitened coordinates (ScaleTarget) and stops unflagged, within the
// ceiling, once the Stein-weighted particles' KSD² is that of 1000
// independent draws; the means lie within four standard errors of those
// 1000 draws (0.13 sd) and every variance ratio within [0.8, 1.1] (the
// Stein weights leave the set 5–15 % too narrow at that size).
func TestZeroValueKnownTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		g    *target.Gaussian
	}{{"gauss5", testutil.Gauss5(t)}, {"badly scaled", testutil.BadlyScaled(t)}} {
		mmdfwRes, err := mmdfw.Run(context.Background(), testutil.AsFunc(c.g), particle.Start{X0: make([]float64, c.g.Dim())}, mmdfw.Settings{}, rand.NewPCG(1, 2), nil)
		res, _ := mmdfwRes.Detail.(*mmdfw.Result)
		if err != nil {
			t.Fatal(err)
		}
		set := res.Set
		v := set.Diag.Values
		t.Logf("%s: %v particles, %d gradient evaluations (MAP %d, Laplace %d), KSD² equal to %.0f draws, h %.2f", c.name, v["particles"],
			res.GradEvals, res.MAPGradEvals, res.LaplaceGradEvals, v["ksd_size"], res.Bandwidth)
		if set.Diag.Flagged() || v["particles"] >= mmdfw.DefaultCeiling || !(v["ksd_size"] >= mmdfw.DefaultKSDSize) {
			t.Errorf("%s: %v particles, flags %q", c.name, v["particles"], set.Diag.Reason())
		}
		if res.Laplace == nil || res.LaplaceGradEvals != 2*int64(c.g.Dim()) || res.MAPGradEvals < 2 {
			t.Errorf("%s: Laplace fit %v charged %d, MAP %d", c.name, res.Laplace != nil, res.LaplaceGradEvals, res.MAPGradEvals)
		}
		testutil.CheckMoments(t, c.name, set, c.g, 4/math.Sqrt(mmdfw.DefaultKSDSize), 0.8, 1.1)
	}
}

// TestCeilingNoted: a ceiling below the size the KSD asks for ends the
// run there; a set there at least as good as as many independent draws in
// KSD² (as MMD-FW's and Stein Points' are on a Gaussian) is noted, not
// flagged (metric.CeilingFlagged).
func TestCeilingNoted(t *testing.T) {
	g := testutil.Gauss5(t)
	set, err := mmdfw.Settings{N: 20}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Diag.Flagged() || len(set.Diag.Notes) != 1 || set.Diag.Notes[0].Code != "ceiling" || set.Len() != 20 ||
		!(set.Diag.Values["ksd_size"] >= 20) {
		t.Errorf("flags %q, notes %v, ksd_size %v after %d particles, want the ceiling's note after 20", set.Diag.Reason(), set.Diag.Notes,
			set.Diag.Values["ksd_size"], set.Len())
	}
}

// TestFailureLeavesNoSet: a run that fails after its first particles
// (here the score turns NaN) returns the error and no particles, not the
// particles so far as if they were an answer.
func TestFailureLeavesNoSet(t *testing.T) {
	g := testutil.Gauss5(t)
	var calls atomic.Int64
	bad := target.Func{D: 5, F: func(x, grad []float64) float64 {
		lp := g.LogProbGrad(x, grad)
		if calls.Add(1) > 400 {
			grad[0] = math.NaN()
		}
		return lp
	}}
	for _, s := range []mmdfw.Settings{{}, {Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleBandwidth}}} {
		calls.Store(0)
		set, err := s.Run(context.Background(), bad, particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
		if err == nil || set.Len() != 0 {
			t.Errorf("scale %v: error %v with %d particles, want an error and none", s.Scale, err, set.Len())
		}
	}
}

// TestBandwidthScaleWithoutPrior: the isotropic ScaleBandwidth on a badly
// scaled target without a prior takes its bandwidth from a short SGLD run,
// which runs in the Laplace fit's coordinates and no longer diverges.
func TestBandwidthScaleWithoutPrior(t *testing.T) {
	g := testutil.BadlyScaled(t)
	mmdfwRes, err := mmdfw.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 4)}, mmdfw.Settings{Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleBandwidth}, N: 10},
		rand.NewPCG(1, 2), nil)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil && strings.Contains(err.Error(), "diverged") {
		t.Fatal(err)
	}
	if err != nil || !(res.Bandwidth > 0) {
		t.Fatalf("bandwidth %v, error %v", res.Bandwidth, err)
	}
}
