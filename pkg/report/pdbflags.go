package report

import (
	"encoding/json"
	"slices"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/metric"
)

// The flags of the posteriordb benchmark that its set-up raises whatever
// the run, and what the section counts in their place (docs/DECISIONS.md,
// "Flags that the cell's N forces"). The cells record every flag their
// method raised; pdbFlags decides which of them say something about the
// run at the cell's N:
//
//   - HMC's arm keeps the last ⌈N/4⌉ draws of each of m chains, and pkg/hmc
//     judges them as it judges a reference run: bulk ESS ≥ 400
//     (hmc.DefaultMinESS), which fewer than 400 draws cannot reach, and
//     R̂ ≤ 1.01, a bound that means something only beside that ESS
//     (Vehtari et al., 2021). On the benchmark's cells, chains that agree
//     with the reference have R̂ up to 1.22 at 25 draws per chain and 1.74
//     at 8, where a chain stuck at one point has 1.74 and 1.71: at these
//     draws R̂ does not tell them apart. So "rhat", "ess" and "draws" (no
//     R̂ below 4 draws per chain) count only when the cell kept at least
//     hmc.DefaultMinESS draws in all. In their place, the failure seen at
//     every N is read from the chains' adaptation, which the cell records
//     (summary.per_chain): "stuck", a chain whose adapted step size is
//     below PDBStuckStep times the largest chain's (arma11's chains that
//     warm-up left where the moving-average recursion explodes: step sizes
//     of 10⁻¹⁸ to 10⁻⁸² against 0.6, every draw at one point), and
//     "capped", a chain whose adapted step size puts its nominal path
//     integration_time/ε at or beyond max_steps (hmc.Settings.PathCapped,
//     the rule by which pkg/hmc flags "capped" at run time, applied here to
//     the recorded step sizes and settings so that cells run before the
//     flag existed are judged alike). Such a chain's trajectories are cut
//     short and it explores slowly: on low_dim_gauss_mix, seeds 100–109,
//     cells with a chain at the cap end 15 reference sd off or close, and
//     short-run R̂ does not tell them apart. A cell that records "capped"
//     counts it once; a stuck chain, at the cap too, counts as "stuck". "divergences" and "constant" count as recorded.
//   - MMD-FW's and Stein Points' KSD stop asks for the KSD² of 1,000
//     independent draws, so at N ≤ 1,000 the "ceiling" flag is raised by N
//     itself. The section counts it when the set at its ceiling is worse
//     than N independent draws in KSD² (the recorded ksd_size, the number
//     of independent draws with the set's KSD², below the set's size):
//     metric.CeilingFlagged, the rule by which the methods raise it at run
//     time, applied here to cells made before they did.
//
// Every other flag counts as recorded.
const (
	// PDBStuckStep is the ratio of a chain's adapted step size to the
	// largest chain's below which the chain counts as stuck. On the
	// benchmark's 195 HMC cells the ratio is below 10⁻¹⁸ on the three whose
	// stuck chain moved nothing, 2·10⁻⁴ to 10⁻² on seven of
	// low_dim_gauss_mix's (one chain at the 1,024-step cap, moving slowly)
	// and above 0.5 on every other cell: 10⁻⁶ lies in the gap. The slow
	// chains are not all harmless (on seeds 100–109 two of three such
	// cells end about 15 reference sd off): they are judged by "capped",
	// not by this ratio.
	PDBStuckStep = 1e-6
	// PDBMinDraws is the number of HMC draws in all below which the
	// section does not count "rhat", "ess" and "draws": pkg/hmc's
	// DefaultMinESS, the ESS that fewer draws cannot reach.
	PDBMinDraws = 400
)

// pdbDiag returns the recorded diagnostic value name of c.
func pdbDiag(c *Cell, name string) (float64, bool) {
	if c.Prov.Diagnostics == nil {
		return 0, false
	}
	v, ok := c.Prov.Diagnostics.Values[name]
	return float64(v), ok
}

// pdbStepSizes returns the adapted step sizes of an HMC cell's chains
// (summary.per_chain), none when it records none.
func pdbStepSizes(c *Cell) []float64 {
	pc, _ := c.Summary["per_chain"].([]any)
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

// pdbStuck reports whether a chain of an HMC cell adapted a step size
// below PDBStuckStep times the largest chain's.
func pdbStuck(c *Cell) bool {
	s := pdbStepSizes(c)
	if len(s) < 2 {
		return false
	}
	top := slices.Max(s)
	for _, v := range s {
		if !(v >= PDBStuckStep*top) {
			return true
		}
	}
	return false
}

// pdbCapped reports whether a chain of an HMC cell adapted a step size at
// which its nominal path reaches the recorded max_steps
// (hmc.Settings.PathCapped on the recorded settings, zero fields at their
// defaults). It is false when the settings do not decode.
func pdbCapped(c *Cell) bool {
	var s hmc.Settings
	b, err := json.Marshal(c.Prov.Settings)
	if err != nil {
		return false
	}
	if string(b) != "null" && json.Unmarshal(b, &s) != nil {
		return false
	}
	for _, eps := range pdbStepSizes(c) {
		if s.PathCapped(eps) {
			return true
		}
	}
	return false
}

// pdbFlags returns the flag codes of c that the section counts, in the
// order recorded (see the comment above PDBESSShare).
func pdbFlags(c *Cell) []string {
	var out []string
	var recorded []string
	if d := c.Prov.Diagnostics; d != nil {
		for _, f := range d.Flags {
			recorded = append(recorded, f.Code)
		}
	}
	switch c.Prov.Kind {
	case pdbKindHMC:
		// The draws in all: per chain (the diagnostics' iterations) times
		// the chains (the summary's, else those of per_chain).
		n, _ := pdbDiag(c, "iterations")
		m := float64(len(pdbStepSizes(c)))
		if ch, ok := c.Summary["chains"].(float64); ok {
			m = ch
		}
		few := !(n*m >= PDBMinDraws)
		for _, f := range recorded {
			if few && (f == "rhat" || f == "ess" || f == "draws") {
				continue
			}
			out = append(out, f)
		}
		if pdbStuck(c) {
			out = append(out, "stuck")
		}
		// A stuck chain is at the cap too: it is named stuck alone.
		if !slices.Contains(out, "capped") && !slices.Contains(out, "stuck") && pdbCapped(c) {
			out = append(out, "capped")
		}
	case pdbKindFW, pdbKindSP:
		size, ok := pdbDiag(c, "particles")
		if !ok {
			size, ok = pdbDiag(c, "points")
		}
		if !ok {
			size = float64(c.Prov.Steps)
		}
		for _, f := range recorded {
			if ks, ok := pdbDiag(c, "ksd_size"); f == "ceiling" && ok && !metric.CeilingFlagged(ks, int(size)) {
				continue
			}
			out = append(out, f)
		}
	default:
		out = recorded
	}
	return out
}

// PDBFlags returns the flag codes of a posteriordb cell that the report's
// section counts (the recorded flags less those the cell's N forces, plus
// what it reads from HMC's adaptation; see the comment above PDBStuckStep).
func PDBFlags(c *Cell) []string { return pdbFlags(c) }

// PDBClose reports whether a set of n particles with the given largest
// |Δ mean|/sd and extreme sd ratios is close to the reference by the
// section's bounds (PDBCloseMeanErr, PDBCloseSDLow, PDBCloseSDHigh at
// PDBCloseN particles, widened at n as the errors of n independent draws).
func PDBClose(n int, meanErr, sdMin, sdMax float64) bool { return pdbClose(n, meanErr, sdMin, sdMax) }

// pdbSetChecks are the checks of a particle set that every particle
// method runs when it can (metric.DiagnoseSet): the Stein spread ratios
// ("stein": collapse, spread, stein) and the missed-mode test ("mode").
var pdbSetChecks = []struct{ code, key string }{{"stein", "stein_spread"}, {"mode", "probes"}}

// pdbUnchecked returns the set checks (pdbSetChecks) that did not run on
// the particle set of c: those its diagnostics list as unchecked, or, for
// a cell made before methods listed them but after they recorded the
// set's diagnostics (kish_ess), those whose value it does not record
// (SVGD and SGLD score no subsample of fewer than metric.MinScored
// particles). An unflagged cell with an unchecked set check is unchecked,
// not clean. HMC's cells run none of them and are judged by their chains.
func pdbUnchecked(c *Cell) []string {
	if c.Prov.Kind == pdbKindHMC {
		return nil
	}
	var out []string
	if d := c.Prov.Diagnostics; d != nil && len(d.Unchecked) > 0 {
		for _, u := range d.Unchecked {
			for _, ck := range pdbSetChecks {
				if u.Code == ck.code && !slices.Contains(out, u.Code) {
					out = append(out, u.Code)
				}
			}
		}
		return out
	}
	if _, ok := pdbDiag(c, "kish_ess"); !ok {
		return nil // no set diagnostics recorded at all
	}
	for _, ck := range pdbSetChecks {
		if _, ok := pdbDiag(c, ck.key); !ok {
			out = append(out, ck.code)
		}
	}
	return out
}

// pdbSetupFlags returns the flags cell c recorded that pdbFlags does not
// count, those the benchmark's set-up raises at the cell's N (HMC's R̂ and
// ESS on too few draws, a ceiling no worse than N independent draws): the
// posteriordb section and the flagged results both name them, so that a
// cell's flags read the same in both.
func pdbSetupFlags(c *Cell) []string {
	if c.Prov.Experiment != PDBExperiment || c.Prov.Diagnostics == nil {
		return nil
	}
	counted := pdbFlags(c)
	var out []string
	for _, f := range c.Prov.Diagnostics.Flags {
		if !slices.Contains(counted, f.Code) && !slices.Contains(out, f.Code) {
			out = append(out, f.Code)
		}
	}
	return out
}
