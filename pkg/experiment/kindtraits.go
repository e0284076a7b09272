package experiment

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
)

// The traits the report reads of each method kind (harness.DescribeKind):
// the report names no method, so whatever it says of one kind and not of
// another is said here.
//
//	legend order: mmdfw, svgd, sp, sgld, then every other kind by method
//	              name
//	one particle per step: mmdfw and sp, whose step n holds n particles
//	series: an mmdfw cell with random features is measured in its own
//	        kernel (the method's MMD² statistic, StatMMD2Kernel), one whose
//	        LMO follows the exact direction is a control, the twin of the
//	        series of the paper's direction with the same kernel
//	flags: mmdfw and sp count "ceiling" only when the set is worse than N
//	       independent draws (ceilingFlags); hmc's R̂, ESS and draws count
//	       only on enough draws, and a stuck or capped chain is read from
//	       the recorded adaptation (hmcFlags); hmc runs no check of a
//	       particle set
//	run-time checks: narrow (mmdfw, sp), kept (sgld), stray (svgd)
func registerTraits(r *harness.Registry) {
	r.DescribeKind(KindMMDFW, harness.KindTraits{Legend: 1, OneParticlePerStep: true, Series: mmdfwSeries,
		Flags: ceilingFlags, FlagNote: ceilingNote})
	r.DescribeKind(KindSVGD, harness.KindTraits{Legend: 2})
	r.DescribeKind(KindSP, harness.KindTraits{Legend: 3, OneParticlePerStep: true, Flags: ceilingFlags, FlagNote: ceilingNote})
	r.DescribeKind(KindSGLD, harness.KindTraits{Legend: 4})
	r.DescribeKind(KindHMC, harness.KindTraits{Flags: hmcFlags, FlagNote: hmcNote, NoSetChecks: true})
	// The run-time checks that only raise a flag, whose evaluation the
	// report counts (docs/DECISIONS.md, "Run-time checks that were not
	// evaluated"): a new such check registers here, with the kinds that
	// run it and the value it records whenever it runs.
	r.DescribeCheck(harness.RunCheck{
		Flag:    "narrow",
		Kinds:   []string{KindMMDFW, KindSP},
		Methods: "MMD-FW, Stein Points",
		Key:     "spread_min",
		Reach:   "N ≤ d or d > 200: no spread spectrum",
		About:   "the smallest eigenvalue of the set's Stein spread matrix below half what N independent draws reach (metric.DiagnoseNarrow)",
	})
	r.DescribeCheck(harness.RunCheck{
		Flag:    "kept",
		Kinds:   []string{KindSGLD},
		Methods: "SGLD",
		Key:     "kept_mean_z",
		Reach:   "runs that do not cut a kept set out of more monitored draws (a fixed iteration count, Monitor \"kept\" or no Keep)",
		About:   "the kept draws' mean further from the monitored draws' mean than 4 standard errors of as many independent draws (sgld.FlagKeptZ)",
	})
	r.DescribeCheck(harness.RunCheck{
		Flag:    "stray",
		Kinds:   []string{KindSVGD},
		Methods: "SVGD",
		Key:     "score_share",
		Reach:   "minibatch runs or N < 8",
		About:   "one particle carrying more than svgd.StrayShare of the set's summed squared score",
	})
}

// The legend notes of an MMD-FW series measured in its own random-feature
// kernel, and of one whose LMO follows the exact direction.
const (
	ownKernelNote = "own RFF kernel"
	exactLMONote  = "exact LMO"
)

// mmdfwSettings decodes an MMD-FW cell's recorded settings into the
// package's own type; ok is false for settings that do not decode. The
// recorded "start" is the wiring's start selector (MMDFWConfig.Start),
// which shadows mmdfw.Settings.First (its key too) and is dropped.
func mmdfwSettings(settings any) (s mmdfw.Settings, ok bool) {
	b, err := json.Marshal(settings)
	if err != nil {
		return s, false
	}
	var rec struct {
		Start string `json:"start"`
		mmdfw.Settings
	}
	if string(b) != "null" {
		if err := json.Unmarshal(b, &rec); err != nil {
			return s, false
		}
	}
	return rec.Settings, true
}

// mmdfwSeries is MMD-FW's series traits: a random-feature series is
// measured in its own kernel (its reported MMD², exact in the
// random-feature space when z is exact); a series whose LMO follows the
// exact direction (the closed-form ∇μ_p, Gaussian targets only) rather
// than the paper's approximate one ("self" by default, or "frozen") is a
// control of Frank-Wolfe's own rate, whose twin has the same kernel (RBF
// or random features, the same feature count) and bandwidth.
func mmdfwSeries(settings any) harness.SeriesTraits {
	s, ok := mmdfwSettings(settings)
	if !ok {
		return harness.SeriesTraits{}
	}
	var t harness.SeriesTraits
	if s.Kernel == mmdfw.RFFKernel {
		t.OwnMetric, t.OwnNote = harness.StatPrefix+mmdfw.StatMMD2Kernel, ownKernelNote
		t.Twin = fmt.Sprintf("rff features=%d bandwidth=%v", s.Features, s.Bandwidth)
	} else {
		t.Twin = fmt.Sprintf("rbf bandwidth=%v", s.Bandwidth)
	}
	if s.Direction == mmdfw.Exact {
		t.Control = exactLMONote
	}
	return t
}

// diagValue returns the recorded diagnostic value name of p.
func diagValue(p *harness.Provenance, name string) (float64, bool) {
	if p.Diagnostics == nil {
		return 0, false
	}
	v, ok := p.Diagnostics.Values[name]
	return float64(v), ok
}

// recordedFlags returns the flag codes p records, in their order.
func recordedFlags(p *harness.Provenance) []string {
	var out []string
	if d := p.Diagnostics; d != nil {
		for _, f := range d.Flags {
			out = append(out, f.Code)
		}
	}
	return out
}

// ceilingNote is the FlagNote of MMD-FW and Stein Points (ceilingFlags).
const ceilingNote = `MMD-FW's and Stein Points' "ceiling" (N reached before the KSD² of 1,000 independent draws), ` +
	`counted only when the set is worse in KSD² than N independent draws`

// ceilingFlags is the Flags trait of MMD-FW and Stein Points, whose KSD
// stop asks for the KSD² of 1,000 independent draws, so that at N ≤ 1,000
// the "ceiling" flag is raised by N itself (docs/DECISIONS.md, "Flags that
// the cell's N forces"). It counts the flag when the set at its ceiling is
// worse than N independent draws in KSD² (the recorded ksd_size, the
// number of independent draws with the set's KSD², below the set's size):
// metric.CeilingFlagged, the rule by which the methods raise it at run
// time, applied here to cells made before they did. Every other flag
// counts as recorded.
func ceilingFlags(p *harness.Provenance, _ map[string]any) []string {
	size, ok := diagValue(p, "particles")
	if !ok {
		size, ok = diagValue(p, "points") // Stein Points' name for it before it was "particles"
	}
	if !ok {
		size = float64(p.Steps)
	}
	var out []string
	for _, f := range recordedFlags(p) {
		if ks, ok := diagValue(p, "ksd_size"); f == "ceiling" && ok && !metric.CeilingFlagged(ks, int(size)) {
			continue
		}
		out = append(out, f)
	}
	return out
}

const (
	// StuckStepRatio is the ratio of an HMC chain's adapted step size to
	// the largest chain's below which the chain counts as stuck
	// (hmcFlags). On the posteriordb benchmark's 195 HMC cells the ratio
	// is below 10⁻¹⁸ on the three whose stuck chain moved nothing, 2·10⁻⁴
	// to 10⁻² on seven of low_dim_gauss_mix's (one chain at the 1,024-step
	// cap, moving slowly) and above 0.5 on every other cell: 10⁻⁶ lies in
	// the gap. The slow chains are not all harmless (on seeds 100–109 two
	// of three such cells end about 15 reference sd off): they are judged
	// by "capped", not by this ratio.
	StuckStepRatio = 1e-6
	// MinChainDraws is the number of HMC draws in all below which
	// hmcFlags does not count "rhat", "ess" and "draws": pkg/hmc's
	// DefaultMinESS, the ESS that fewer draws cannot reach.
	MinChainDraws = hmc.DefaultMinESS
)

// hmcNote is the FlagNote of HMC (hmcFlags).
var hmcNote = fmt.Sprintf(`HMC's R̂ and ESS on fewer than %g draws in all `+
	`(the arm keeps ⌈N/4⌉ per chain; at these draws R̂ does not tell a stuck chain from chains that mix), `+
	`whose place takes "stuck", a chain whose adapted step size is below %g of the largest chain's`,
	float64(MinChainDraws), StuckStepRatio)

// stepSizes returns the adapted step sizes of an HMC cell's chains
// (summary.per_chain), none when it records none.
func stepSizes(summary map[string]any) []float64 {
	pc, _ := summary["per_chain"].([]any)
	var out []float64
	for _, ch := range pc {
		if m, ok := ch.(map[string]any); ok {
			if s, ok := m["step_size"].(float64); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// chainStuck reports whether a chain adapted a step size below
// StuckStepRatio times the largest chain's.
func chainStuck(steps []float64) bool {
	if len(steps) < 2 {
		return false
	}
	top := slices.Max(steps)
	for _, v := range steps {
		if !(v >= StuckStepRatio*top) {
			return true
		}
	}
	return false
}

// chainCapped reports whether a chain adapted a step size at which its
// nominal path reaches the recorded max_steps (hmc.Settings.PathCapped on
// the recorded settings, zero fields at their defaults). It is false when
// the settings do not decode.
func chainCapped(settings any, steps []float64) bool {
	var s hmc.Settings
	b, err := json.Marshal(settings)
	if err != nil {
		return false
	}
	if string(b) != "null" && json.Unmarshal(b, &s) != nil {
		return false
	}
	for _, eps := range steps {
		if s.PathCapped(eps) {
			return true
		}
	}
	return false
}

// hmcFlags is HMC's Flags trait. An HMC cell keeps the last ⌈N/4⌉ draws of
// each of m chains, and pkg/hmc judges them as it judges a reference run:
// bulk ESS ≥ 400 (hmc.DefaultMinESS), which fewer than 400 draws cannot
// reach, and R̂ ≤ 1.01, a bound that means something only beside that ESS
// (Vehtari et al., 2021). On the posteriordb benchmark's cells, chains that
// agree with the reference have R̂ up to 1.22 at 25 draws per chain and
// 1.74 at 8, where a chain stuck at one point has 1.74 and 1.71: at these
// draws R̂ does not tell them apart. So "rhat", "ess" and "draws" (no R̂
// below 4 draws per chain) count only when the cell kept at least
// MinChainDraws draws in all. In their place, the failure seen at every N
// is read from the chains' adaptation, which the cell records
// (summary.per_chain): "stuck", a chain whose adapted step size is below
// StuckStepRatio times the largest chain's (arma11's chains that warm-up
// left where the moving-average recursion explodes: step sizes of 10⁻¹⁸ to
// 10⁻⁸² against 0.6, every draw at one point), and "capped", a chain whose
// adapted step size puts its nominal path integration_time/ε at or beyond
// max_steps (hmc.Settings.PathCapped, the rule by which pkg/hmc flags
// "capped" at run time, applied here to the recorded step sizes and
// settings so that cells run before the flag existed are judged alike).
// Such a chain's trajectories are cut short and it explores slowly: on
// low_dim_gauss_mix, seeds 100–109, cells with a chain at the cap end 15
// reference sd off or close, and short-run R̂ does not tell them apart. A
// cell that records "capped" counts it once; a stuck chain, at the cap
// too, counts as "stuck". "divergences" and "constant" count as recorded.
func hmcFlags(p *harness.Provenance, summary map[string]any) []string {
	// The draws in all: per chain (the diagnostics' iterations) times the
	// chains (the summary's, else those of per_chain).
	steps := stepSizes(summary)
	n, _ := diagValue(p, "iterations")
	m := float64(len(steps))
	if ch, ok := summary["chains"].(float64); ok {
		m = ch
	}
	few := !(n*m >= MinChainDraws)
	var out []string
	for _, f := range recordedFlags(p) {
		if few && (f == "rhat" || f == "ess" || f == "draws") {
			continue
		}
		out = append(out, f)
	}
	if chainStuck(steps) {
		out = append(out, "stuck")
	}
	// A stuck chain is at the cap too: it is named stuck alone.
	if !slices.Contains(out, "capped") && !slices.Contains(out, "stuck") && chainCapped(p.Settings, steps) {
		out = append(out, "capped")
	}
	return out
}
