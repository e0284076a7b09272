package report

import (
	"slices"
)

// pdbDiag returns the recorded diagnostic value name of c.
func pdbDiag(c *Cell, name string) (float64, bool) {
	if c.Prov.Diagnostics == nil {
		return 0, false
	}
	v, ok := c.Prov.Diagnostics.Values[name]
	return float64(v), ok
}

// pdbFlags returns the flag codes of c that the posteriordb section
// counts: those its kind's KindTraits.Flags says tell something of the run
// at the cell's N (docs/DECISIONS.md, "Flags that the cell's N forces"),
// else every flag it recorded, in the order recorded.
func pdbFlags(c *Cell) []string {
	if c.Traits.Flags != nil {
		return c.Traits.Flags(c.Prov, c.Summary)
	}
	var out []string
	if d := c.Prov.Diagnostics; d != nil {
		for _, f := range d.Flags {
			out = append(out, f.Code)
		}
	}
	return out
}

// PDBFlags returns the flag codes of a posteriordb cell that the report's
// section counts (the recorded flags less those the cell's N forces, plus
// what its kind reads of its summary: KindTraits.Flags).
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
// not clean. The cells of a kind that runs none of them
// (KindTraits.NoSetChecks: HMC, judged by its chains) have none.
func pdbUnchecked(c *Cell) []string {
	if c.Traits.NoSetChecks {
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
// count, those the benchmark's set-up raises at the cell's N (KindTraits.Flags:
// R̂ and ESS on too few draws, a ceiling no worse than N independent draws): the
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
