package hmc

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// cappedFlags returns the reasons of the "capped" flags in res.Set.Diag.
func cappedFlags(res *Result) []string {
	var out []string
	for _, f := range res.Set.Diag.Flags {
		if f.Code == "capped" {
			out = append(out, f.Reason)
		}
	}
	return out
}

// stdNormal is N(0, σ²I) in d dimensions.
func stdNormal(d int, sigma float64) target.Func {
	return target.Func{D: d, F: func(x, grad []float64) float64 {
		var lp float64
		for j, v := range x {
			grad[j] = -v / (sigma * sigma)
			lp -= 0.5 * v * v / (sigma * sigma)
		}
		return lp
	}}
}

// A step size forced far below the integration time's scale puts every
// trajectory at the cap: L₀ = 2π/10⁻³ ≈ 6283, and with jitter 0.5 even the
// shortest path, 3142 steps, exceeds 1024.
func TestForcedTinyStepIsCapped(t *testing.T) {
	s := Settings{Chains: 2, Warmup: NoWarmup, DrawsPerChain: 40, StepSize: 1e-3}
	hmcRes, err := Run(context.Background(), stdNormal(2, 1), particle.Start{}, s, rand.NewPCG(3, 5), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	for c, dg := range res.Diagnostics {
		if dg.Capped != s.DrawsPerChain || dg.MeanSteps != DefaultMaxSteps || math.Abs(dg.PathSteps-2*math.Pi/1e-3) > 1e-6 {
			t.Errorf("chain %d: %d of %d transitions capped, mean steps %v, path %v; want all, 1024, 2π·10³", c, dg.Capped, s.DrawsPerChain, dg.MeanSteps, dg.PathSteps)
		}
	}
	fl := cappedFlags(res)
	if len(fl) != 2 || !strings.HasPrefix(fl[0], "chain 0: path of 6283 leapfrog steps") || !strings.Contains(fl[1], "max_steps = 1024: 40 of 40 sampling transitions truncated") {
		t.Errorf("capped flags %q, want one per chain naming its path and the cap", fl)
	}
	if !res.Flagged || res.Set.Diag.Values["capped_share_max"] != 1 || math.Abs(res.Set.Diag.Values["path_steps_max"]-2*math.Pi/1e-3) > 1e-6 {
		t.Errorf("Flagged %v, diag %v", res.Flagged, res.Set.Diag.Values)
	}
}

// A target of scale 10⁻⁶ is badly scaled for the warm-up: the metric's
// regularisation (a variance of order 10⁻⁵ added to the draws' 10⁻¹²) keeps
// the scaled target tiny, so the adapted step size stays near its scale and
// the path 2π/ε is far beyond the cap. The chains must be flagged.
func TestBadlyScaledTargetIsCapped(t *testing.T) {
	s := Settings{Chains: 2, Warmup: 150, DrawsPerChain: 50, InitScale: 1e-6}
	hmcRes, err := Run(context.Background(), stdNormal(1, 1e-6), particle.Start{X0: []float64{0}}, s, rand.NewPCG(8, 1), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	for c, dg := range res.Diagnostics {
		if !(dg.PathSteps >= DefaultMaxSteps) || dg.Capped == 0 {
			t.Errorf("chain %d: step size %v, path %v, %d capped; want the path beyond the cap", c, dg.StepSize, dg.PathSteps, dg.Capped)
		}
	}
	if fl := cappedFlags(res); len(fl) != 2 {
		t.Errorf("capped flags %q, want both chains", fl)
	}
}

// On a well-scaled Gaussian the adapted paths are tens of steps: no chain
// reaches the cap and nothing is flagged "capped".
func TestWellScaledGaussianIsNotCapped(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(1, 2)), 10, 0.5, 4)
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, Settings{Warmup: 300, DrawsPerChain: 300}, rand.NewPCG(6, 6), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	for c, dg := range res.Diagnostics {
		if dg.Capped != 0 || !(dg.PathSteps < 100) {
			t.Errorf("chain %d: path %v steps, %d capped; want well below the cap, none", c, dg.PathSteps, dg.Capped)
		}
	}
	if fl := cappedFlags(res); len(fl) != 0 || res.Set.Diag.Values["capped_share_max"] != 0 {
		t.Errorf("capped flags %q, share %v; want none", fl, res.Set.Diag.Values["capped_share_max"])
	}
}

// The rule's boundary and its defaults: a zero Settings caps at 1024 steps
// of 2π/ε, a fixed Steps replaces 2π/ε, and a NaN step size counts as
// capped.
func TestPathCappedBoundary(t *testing.T) {
	var s Settings
	at := 2 * math.Pi / DefaultMaxSteps
	for _, c := range []struct {
		s    Settings
		eps  float64
		want bool
	}{
		{s, at, true}, {s, at * 1.001, false}, {s, at * 0.5, true}, {s, math.NaN(), true}, {s, 0, true},
		{Settings{MaxSteps: 64}, 2 * math.Pi / 63, false}, {Settings{MaxSteps: 64}, 2 * math.Pi / 65, true},
		{Settings{Steps: 1024}, 1, true}, {Settings{Steps: 1023}, 1e-9, false},
		{Settings{IntegrationTime: 1}, 1.0 / 1000, false},
	} {
		if got := c.s.PathCapped(c.eps); got != c.want {
			t.Errorf("%+v at ε = %v: capped %v, want %v", c.s, c.eps, got, c.want)
		}
	}
}
