package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// runCheck is a run-time check that only raises a flag
// (harness.RunCheck): the report says, for every check the registry
// describes (Results.Checks), on how many cells it was evaluated, and does
// not let "not evaluated" pass for "not flagged" (docs/DECISIONS.md,
// "Run-time checks that were not evaluated").
type runCheck = harness.RunCheck

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
