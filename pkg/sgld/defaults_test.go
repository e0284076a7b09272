package sgld_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
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
		set, err := sgld.Settings{}.Run(context.Background(), testutil.AsFunc(c.g), particle.Start{X0: make([]float64, c.g.Dim())}, rand.NewPCG(1, 2), rec)
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
	set, err := sgld.Settings{Iterations: 1500}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
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
	set, err := sgld.Settings{A: 1.5, Frame: sampler.Frame{Stop: sgld.StopFixed}, Iterations: 4000}.Run(context.Background(), std, particle.Start{X0: []float64{0}}, rand.NewPCG(3, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	eps := set.Diag.Values["step"]
	t.Logf("adapted step %.3g from the ceiling 1.5", eps)
	if !(eps > 0.05 && eps < 1.2) {
		t.Errorf("adapted step %v, want below the ceiling 1.5", eps)
	}
	kept, err := sgld.Settings{Frame: sampler.Frame{Stop: sgld.StopFixed}, Iterations: 4000}.Run(context.Background(), std, particle.Start{X0: []float64{0}}, rand.NewPCG(3, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := kept.Diag.Values["step"]; e < 0.99*sgld.DefaultWhitenedStep || e > sgld.DefaultWhitenedStep {
		t.Errorf("adapted step %v on a well-fitted target, want about the ceiling %v", e, sgld.DefaultWhitenedStep)
	}
}

// TestBurnInRejects: the adaptive burn-in rejects a move to a point whose
// log density is −∞ (outside a support) or whose Metropolis log ratio is
// below RejectLogRatio, keeping the previous state and halving the step.
// On the banana of samplertest, whose tails make a step of 0.1 posterior
// standard deviations unstable (without the rejections the known suite's
// run reaches log p = −∞ at iteration 6), the zero settings run. On half-line Gammas
// with a step ceiling of 3 posterior standard deviations, the same chains
// with a constant step leave the support within the burn-in, an error;
// the adaptive ones do not: on Gamma(10, 1) they end without an error or a
// draw outside the support, and on Gamma(3, 1), whose density at the
// boundary falls only as x², the contract's error comes after the burn-in.
func TestBurnInRejects(t *testing.T) {
	banana := samplertest.KnownTargetByName("banana")
	for seed := uint64(0); seed < 3; seed++ {
		set, err := sgld.Settings{Frame: sampler.Frame{Stop: sgld.StopFixed}, Iterations: 2000}.Run(context.Background(), banana,
			particle.Start{X0: banana.X0}, rand.NewPCG(seed, 7), nil)
		if err != nil {
			t.Fatalf("banana, seed %d: %v", seed, err)
		}
		t.Logf("banana, seed %d: %v moves of the burn-in rejected, step %.3g", seed, set.Diag.Values["burnin_rejected"], set.Diag.Values["step"])
		if !(set.Diag.Values["burnin_rejected"] > 0) {
			t.Errorf("banana, seed %d: no move of the burn-in rejected", seed)
		}
	}

	for _, shape := range []float64{10, 3} {
		// Gamma(shape, 1) on x > 0: mode shape − 1, Laplace sd √(shape − 1).
		gamma := target.Func{D: 1, F: func(x, g []float64) float64 {
			if !(x[0] > 0) {
				g[0] = 0
				return math.Inf(-1)
			}
			g[0] = (shape-1)/x[0] - 1
			return (shape-1)*math.Log(x[0]) - x[0]
		}}
		const burn = 1000
		for seed := uint64(1); seed <= 3; seed++ {
			s := sgld.Settings{InitScale: sgld.NoInitScale, A: 3, Frame: sampler.Frame{Stop: sgld.StopFixed}, Iterations: 3000, BurnIn: burn}
			set, err := s.Run(context.Background(), gamma, particle.Start{X0: []float64{shape - 1}}, rand.NewPCG(seed, 2), nil)
			var nf *particle.NonFiniteError
			switch {
			case shape == 3 && errors.As(err, &nf):
				if nf.Iteration <= burn+1 {
					t.Errorf("Gamma(%g), seed %d: %v, within the burn-in", shape, seed, err)
				}
			case err != nil:
				t.Errorf("Gamma(%g), seed %d: %v", shape, seed, err)
			default:
				t.Logf("Gamma(%g), seed %d: %v moves of the burn-in rejected, step %.3g", shape, seed,
					set.Diag.Values["burnin_rejected"], set.Diag.Values["step"])
				if !(set.Diag.Values["burnin_rejected"] > 0) {
					t.Errorf("Gamma(%g), seed %d: no move of the burn-in rejected", shape, seed)
				}
				for i := 0; i < set.Len(); i++ {
					if x := set.X.At(i, 0); !(x > 0) {
						t.Fatalf("Gamma(%g), seed %d: draw %d at %v, outside the support", shape, seed, i, x)
					}
				}
			}
			s.Schedule = sgld.ScheduleConstant
			_, err = s.Run(context.Background(), gamma, particle.Start{X0: []float64{shape - 1}}, rand.NewPCG(seed, 2), nil)
			if !errors.As(err, &nf) || nf.Iteration > burn {
				t.Errorf("Gamma(%g), seed %d, a constant step: error %v, want a non-finite log density in the burn-in", shape, seed, err)
			}
		}
	}
}

// TestMonitorReadsEveryDraw: with Keep = 25 (a set of 100 from four chains)
// StopConverged's monitor reads every draw since the burn-in, so the run
// stops once the chains agree, at the iteration the same run without Keep
// stops, and returns the last 25 draws of each of its chains. Reading the
// kept draws alone (MonitorKept, the rule before) tests 12 draws per chain,
// whose bulk ESS cannot reach 400: that run goes to its ceiling, flagged,
// with 13 draws per chain.
func TestMonitorReadsEveryDraw(t *testing.T) {
	g := testutil.Gauss5(t)
	run := func(keep int, monitor sgld.Monitor) particle.Set {
		t.Helper()
		set, err := sgld.Settings{Iterations: 20000, Keep: keep, Monitor: monitor}.Run(context.Background(), testutil.AsFunc(g), particle.Start{X0: make([]float64, 5)}, rand.NewPCG(1, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	all, kept, full := run(25, ""), run(25, sgld.MonitorKept), run(0, "")
	it := all.Diag.Values["iterations"]
	t.Logf("MonitorAll: %v iterations, %d particles, flags %q; MonitorKept: %v iterations, %d particles, flags %q",
		it, all.X.RawMatrix().Rows, all.Diag.Reason(), kept.Diag.Values["iterations"], kept.X.RawMatrix().Rows, kept.Diag.Reason())
	// The last 25 draws of each chain are autocorrelated: this set lies
	// 4.7 standard errors of 100 independent draws from the monitored
	// draws' mean, flagged "kept": its mean of coordinate 0 is 1.52 where
	// the target's is 1 (sd 1), an error of 5.2 standard errors of 100
	// independent draws, silent before the flag; no other flag.
	m0 := 0.0
	for i := range 100 {
		m0 += all.X.At(i, 0) / 100
	}
	t.Logf("MonitorAll: the set's mean of coordinate 0 is %.3f (target 1, sd 1)", m0)
	for _, f := range all.Diag.Flags {
		if f.Code != "kept" {
			t.Errorf("MonitorAll: flag %s: %s", f.Code, f.Reason)
		}
	}
	if !(it < 20000) || all.X.RawMatrix().Rows != 100 {
		t.Errorf("MonitorAll: %v iterations, %d particles, flags %q; want converged before the ceiling with 100", it, all.X.RawMatrix().Rows, all.Diag.Reason())
	}
	if full.Diag.Values["iterations"] != it || full.Diag.Values["rhat_max"] != all.Diag.Values["rhat_max"] {
		t.Errorf("without Keep: %v iterations, R̂ %v; with Keep %v, %v: the monitor must not depend on Keep",
			full.Diag.Values["iterations"], full.Diag.Values["rhat_max"], it, all.Diag.Values["rhat_max"])
	}
	// The set is the last 25 draws of each chain of the run without Keep.
	per := full.X.RawMatrix().Rows / 4
	for c := 0; c < 4; c++ {
		for k := 0; k < 25; k++ {
			want, got := full.X.RawRowView(c*per+per-25+k), all.X.RawRowView(c*25+k)
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("chain %d, draw %d of the set: %v, want %v (the last 25 of the chain)", c, k, got, want)
				}
			}
		}
	}
	if !kept.Diag.Flagged() || kept.Diag.Flags[0].Code != "ceiling" || kept.X.RawMatrix().Rows != 52 {
		t.Errorf("MonitorKept: flags %q, %d particles; want the ceiling's with 52", kept.Diag.Reason(), kept.X.RawMatrix().Rows)
	}
}
