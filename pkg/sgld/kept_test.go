package sgld

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// stdGauss is N(0, I) in d dimensions with full gradients.
func stdGauss(d int) target.Func {
	return target.Func{D: d, F: func(x, g []float64) float64 {
		var lp float64
		for j, v := range x {
			g[j] = -v
			lp -= v * v / 2
		}
		return lp
	}}
}

// hasFlag reports whether the set carries the flag code.
func hasFlag(set particle.Set, code string) bool {
	return slices.ContainsFunc(set.Diag.Flags, func(f particle.Flag) bool { return f.Code == code })
}

// maxMeanErr returns the largest |mean| of the set's coordinates: its
// mean error in standard deviations on N(0, I).
func maxMeanErr(set particle.Set) float64 {
	n, d := set.X.Dims()
	e := 0.0
	for j := range d {
		m := 0.0
		for i := range n {
			m += set.X.At(i, j)
		}
		e = math.Max(e, math.Abs(m/float64(n)))
	}
	return e
}

// The set that Keep cuts from the monitored draws (zero settings but for
// Keep 25: four chains, 100 draws) holds autocorrelated draws, worth far
// fewer than 100 independent ones: on N(0, I₂₀) its mean error exceeds
// 0.5 sd (five standard errors of 100 independent draws) on some seeds,
// although the chains pass their monitor. Every such set is flagged
// "kept"; the flag's false alarms (sets within 0.5 sd, flagged) are
// counted and bounded. Without the flag (before it existed) the off sets
// were silent.
func TestKeptFlagsAutocorrelatedSet(t *testing.T) {
	const d, seeds, bound = 20, 20, 0.5
	off, alarms := 0, 0
	var essMax float64
	for seed := range uint64(seeds) {
		s := Settings{Keep: 25}
		set, err := sampler.Set(Run(context.Background(), stdGauss(d), particle.Start{X0: make([]float64, d)}, s, rand.NewPCG(seed, 99), nil))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if set.Len() != 100 {
			t.Fatalf("seed %d: %d draws, want 100", seed, set.Len())
		}
		for _, k := range []string{"kept_mean_z", "kept_ess_bulk_min", "kept_rhat_max", "monitored_draws"} {
			if _, ok := set.Diag.Values[k]; !ok {
				t.Fatalf("seed %d: no %q in %v", seed, k, set.Diag.Values)
			}
		}
		e, z := maxMeanErr(set), set.Diag.Values["kept_mean_z"]
		ess := set.Diag.Values["kept_ess_bulk_min"]
		essMax = math.Max(essMax, ess)
		flagged := hasFlag(set, "kept")
		if flagged != (z > FlagKeptZ) {
			t.Errorf("seed %d: flag %v with z %.3g (bound %g)", seed, flagged, z, FlagKeptZ)
		}
		switch {
		case e > bound && !flagged:
			t.Errorf("seed %d: mean error %.3g sd > %g, not flagged (z %.3g, ESS %.3g, ceiling %v)", seed, e, bound, z, ess, set.Diag.Flagged())
		case e > bound:
			off++
		case flagged:
			alarms++
			// A false alarm is a near miss, never a set far inside.
			if e < 0.3 {
				t.Errorf("seed %d: mean error %.3g sd flagged (z %.3g)", seed, e, z)
			}
		}
		t.Logf("seed %d: mean error %.3f, z %.2f, kept ESS %.1f, R̂ %.3f, monitored %v, flags %q", seed, e, z, ess,
			set.Diag.Values["kept_rhat_max"], set.Diag.Values["monitored_draws"], set.Diag.Reason())
	}
	t.Logf("%d of %d sets off (flagged), %d close sets flagged; largest kept ESS %.1f", off, seeds, alarms, essMax)
	if off == 0 {
		t.Fatalf("no set off by more than %g sd in %d seeds: the test shows nothing", bound, seeds)
	}
	// The kept draws' ESS is a fraction of the 100 draws on every seed.
	if essMax > 50 {
		t.Errorf("largest kept bulk ESS %.1f of 100: the draws are less autocorrelated than this test assumes", essMax)
	}
	// A close set is flagged when its z exceeds 4 while its error (within
	// about 0.05 of z/√100 here) stays below 5/√100: 5 of the 20 seeds.
	if alarms > seeds/3 {
		t.Errorf("%d of %d close sets flagged, want at most %d", alarms, seeds, seeds/3)
	}
}

// Kept draws nearly independent (Thin 400: one draw every 400 iterations,
// far beyond the chains' autocorrelation) are as good as independent: z is
// about |N(0, 1)| per coordinate and no seed is flagged. Without Keep, or
// with the monitor reading the set itself (MonitorKept), the set is what
// the monitor checked and nothing of "kept" is recorded.
func TestKeptNoFalseAlarm(t *testing.T) {
	const d, seeds = 5, 20
	var z2 float64
	for seed := range uint64(seeds) {
		s := Settings{Keep: 25, Thin: 400}
		set, err := sampler.Set(Run(context.Background(), stdGauss(d), particle.Start{X0: make([]float64, d)}, s, rand.NewPCG(seed, 7), nil))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		z := set.Diag.Values["kept_mean_z"]
		z2 += z * z
		if hasFlag(set, "kept") {
			t.Errorf("seed %d: flagged: %s", seed, set.Diag.Reason())
		}
		t.Logf("seed %d: mean error %.3f, z %.2f, kept ESS %.1f, R̂ %.3f, flags %q", seed, maxMeanErr(set), z,
			set.Diag.Values["kept_ess_bulk_min"], set.Diag.Values["kept_rhat_max"], set.Diag.Reason())
	}
	// z is the largest of d about |N(0, 1)|: its mean square is near
	// E[max of 5 χ²₁] ≈ 3.6 (rather than the 5·5.3 of ESS 20 draws).
	if ms := z2 / seeds; ms > 8 {
		t.Errorf("mean z² %.3g, want about 3.6 for independent draws", ms)
	}
	for _, s := range []Settings{{}, {Keep: 25, Monitor: MonitorKept, Iterations: 4000}} {
		set, err := sampler.Set(Run(context.Background(), stdGauss(d), particle.Start{X0: make([]float64, d)}, s, rand.NewPCG(1, 7), nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"kept_mean_z", "kept_ess_bulk_min", "kept_rhat_max", "monitored_draws"} {
			if _, ok := set.Diag.Values[k]; ok {
				t.Errorf("Keep %d, monitor %q: %q recorded", s.Keep, s.Monitor, k)
			}
		}
	}
}
