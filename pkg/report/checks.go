package report

import (
	"fmt"
	"slices"
	"strings"
)

// runCheck is a check that a method evaluates at run time and whose
// outcome is a flag only: it changes no number and no cache key, so a cell
// computed before the check entered the code stays cached without it, and
// reads as unflagged though a rerun might flag it. The report says, for
// every such check, on how many cells it was evaluated, and does not let
// "not evaluated" pass for "not flagged" (docs/DECISIONS.md, "Run-time
// checks that were not evaluated").
type runCheck struct {
	// Flag is the flag code the check raises.
	Flag string
	// Kinds are the method kinds that evaluate it (Provenance.Kind).
	Kinds []string
	// Methods names those methods in the report's text.
	Methods string
	// Key is the diagnostic value (particle.Diagnostics.Values) that the
	// check records whenever it runs, flagged or not: its presence proves
	// the check was evaluated on the cell.
	Key string
	// Reach says when the check runs and records no Key: a cell without
	// Key was computed before the check or lies out of its reach, which
	// the cell alone does not tell apart (neither its time nor its
	// revision does: a cell may be computed after the check entered the
	// code on a branch without it).
	Reach string
	// About is a one-line description of the check.
	About string
}

// runChecks are the run-time checks whose evaluation the report counts.
// A method check that only raises a flag registers here: its flag code,
// the kinds that run it and the value it records whenever it runs.
var runChecks = []runCheck{
	{
		Flag:    "narrow",
		Kinds:   []string{"mmdfw", "sp"},
		Methods: "MMD-FW, Stein Points",
		Key:     "spread_min",
		Reach:   "N ≤ d or d > 200: no spread spectrum",
		About:   "the smallest eigenvalue of the set's Stein spread matrix below half what N independent draws reach (metric.DiagnoseNarrow)",
	},
	{
		Flag:    "kept",
		Kinds:   []string{"sgld"},
		Methods: "SGLD",
		Key:     "kept_mean_z",
		Reach:   "runs that do not cut a kept set out of more monitored draws (a fixed iteration count, Monitor \"kept\" or no Keep)",
		About:   "the kept draws' mean further from the monitored draws' mean than 4 standard errors of as many independent draws (sgld.FlagKeptZ)",
	},
	{
		Flag:    "stray",
		Kinds:   []string{"svgd"},
		Methods: "SVGD",
		Key:     "score_share",
		Reach:   "minibatch runs or N < 8",
		About:   "one particle carrying more than svgd.StrayShare of the set's summed squared score",
	},
}

// checkCount is the evaluation of one run-time check over some cells.
type checkCount struct {
	Check runCheck
	// Cells are the finished cells of the check's kinds; Evaluated those
	// that record its Key; Missing the others (computed before the check
	// or out of its reach).
	Cells, Evaluated, Missing int
}

// countChecks returns, for every registered run-time check with a finished
// cell of its kinds among cells, on how many it was evaluated.
func countChecks(cells []*Cell, checks []runCheck) []checkCount {
	var out []checkCount
	for _, ck := range checks {
		n := checkCount{Check: ck}
		for _, c := range Done(cells) {
			if !slices.Contains(ck.Kinds, c.Prov.Kind) {
				continue
			}
			n.Cells++
			if _, ok := pdbDiag(c, ck.Key); ok {
				n.Evaluated++
			} else {
				n.Missing++
			}
		}
		if n.Cells > 0 {
			out = append(out, n)
		}
	}
	return out
}

// Line states how far the check was evaluated, in one line.
func (n checkCount) Line() string {
	ck := n.Check
	s := fmt.Sprintf("%s (%s): evaluated on %d of %d cells", ck.Flag, ck.Methods, n.Evaluated, n.Cells)
	if n.Missing > 0 {
		s += fmt.Sprintf("; the other %d record no `%s`: computed before the check, or out of its reach (%s); "+
			"it changes labels, never numbers, and `repro run --force --cells …` re-evaluates", n.Missing, ck.Key, ck.Reach)
	}
	return s
}

// writeChecks writes one line per run-time check that applies to cells
// (countChecks), each prefixed by "- ".
func writeChecks(b *strings.Builder, counts []checkCount) {
	for _, n := range counts {
		b.WriteString("- " + n.Line() + ".\n")
	}
}

// notEvaluated returns the counts of the checks not evaluated on some cell.
func notEvaluated(counts []checkCount) []checkCount {
	var out []checkCount
	for _, n := range counts {
		if n.Missing > 0 {
			out = append(out, n)
		}
	}
	return out
}
