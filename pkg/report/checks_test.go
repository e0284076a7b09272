package report

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// checkCell is a finished cell of kind that records the diagnostic values
// named in keys (a flag "narrow" when flagged).
func checkCell(id, kind string, flagged bool, keys ...string) *Cell {
	d := &harness.Diagnostics{Values: map[string]harness.DiagValue{"kish_ess": 10}}
	for _, k := range keys {
		d.Values[k] = 0.5
	}
	if flagged {
		d.Flags = []harness.DiagFlag{{Code: "narrow", Reason: "too narrow"}}
	}
	return &Cell{Prov: &harness.Provenance{Cell: id, Method: kind + "-arm", Kind: kind, Status: harness.Done, Diagnostics: d}}
}

// A run-time check counts as evaluated on the cells of its kinds that
// record its key, and as not evaluated on the others; cells of other
// kinds, and unfinished cells, do not count.
func TestCountChecks(t *testing.T) {
	checks := []runCheck{{Flag: "narrow", Kinds: []string{"mmdfw", "sp"}, Methods: "MMD-FW, Stein Points", Key: "spread_min", Reach: "N ≤ d"}}
	failed := checkCell("e/sp/x/s3/n10", "sp", false)
	failed.Prov.Status = harness.Failed
	cells := []*Cell{
		checkCell("e/mmdfw/x/s1/n10", "mmdfw", false, "spread_min"),
		checkCell("e/mmdfw/x/s2/n10", "mmdfw", true, "spread_min"),
		checkCell("e/mmdfw/x/s3/n10", "mmdfw", false),
		checkCell("e/sp/x/s1/n10", "sp", false),
		checkCell("e/sp/x/s2/n10", "sp", false, "spread_min"),
		checkCell("e/svgd/x/s1/n10", "svgd", false),
		failed,
	}
	got := countChecks(cells, checks)
	if len(got) != 1 || got[0].Cells != 5 || got[0].Evaluated != 3 || got[0].Missing != 2 {
		t.Fatalf("countChecks = %+v, want 5 cells, 3 evaluated, 2 missing", got)
	}
	want := "narrow (MMD-FW, Stein Points): evaluated on 3 of 5 cells; the other 2 record no `spread_min`: computed before the check, " +
		"or out of its reach (N ≤ d); it changes labels, never numbers, and `repro run --force --cells …` re-evaluates"
	if l := got[0].Line(); l != want {
		t.Errorf("Line() = %q, want %q", l, want)
	}
	if len(notEvaluated(got)) != 1 {
		t.Error("a check missing on some cell is not listed as not evaluated")
	}

	// Every cell of its kinds records the key: evaluated everywhere.
	all := countChecks(cells[:2], checks)
	if len(all) != 1 || all[0].Missing != 0 || len(notEvaluated(all)) != 0 {
		t.Errorf("countChecks on evaluated cells = %+v, want none missing", all)
	}
	if l := all[0].Line(); l != "narrow (MMD-FW, Stein Points): evaluated on 2 of 2 cells" {
		t.Errorf("Line() = %q", l)
	}
	// No cell of its kinds: the check is not mentioned.
	if n := countChecks(cells[5:6], checks); len(n) != 0 {
		t.Errorf("countChecks without cells of the check's kinds = %+v, want none", n)
	}
}

// The Flagged results section states, after the count, how far each
// registered check (the wiring's, Results.Checks) was evaluated, and is written even when no cell is
// flagged but a check was not evaluated on some cell.
func TestFlaggedSectionNamesUnevaluatedChecks(t *testing.T) {
	res := &Results{Cells: []*Cell{
		checkCell("e/mmdfw/x/s1/n10", "mmdfw", true, "spread_min"),
		checkCell("e/mmdfw/x/s2/n10", "mmdfw", false),
	}, Checks: wiring.Checks()}
	var b strings.Builder
	writeFlagged(&b, res, false, Options{})
	want := "\n## Flagged results\n\n1 cell(s) whose method flagged its result as not to be trusted (the figures above include them; " +
		"`repro run --strict` fails them), by flag: narrow 1. The run-time checks that only raise a flag, and the cells of their methods they were evaluated on " +
		"(a cell computed before a check was not checked by it, which is not a pass):\n\n" +
		"- narrow (MMD-FW, Stein Points): evaluated on 1 of 2 cells; the other 1 record no `spread_min`: computed before the check, " +
		"or out of its reach (N ≤ d or d > 200: no spread spectrum); it changes labels, never numbers, and `repro run --force --cells …` re-evaluates.\n\n" +
		"| cell | method | reason |\n|---|---|---|\n| `e/mmdfw/x/s1/n10` | mmdfw-arm | narrow: too narrow |\n"
	if b.String() != want {
		t.Errorf("section\n%s\nwant\n%s", b.String(), want)
	}

	// No flag, but the check was not evaluated on one cell: the section
	// says so, without a table.
	res.Cells[0] = checkCell("e/mmdfw/x/s1/n10", "mmdfw", false, "spread_min")
	b.Reset()
	writeFlagged(&b, res, false, Options{})
	if s := b.String(); !strings.Contains(s, "0 cell(s) whose method flagged") || !strings.Contains(s, "evaluated on 1 of 2 cells") || strings.Contains(s, "| cell |") {
		t.Errorf("section without flags\n%s", s)
	}

	// Evaluated on every cell and no flag: no section.
	res.Cells[1] = checkCell("e/mmdfw/x/s2/n10", "mmdfw", false, "spread_min")
	b.Reset()
	writeFlagged(&b, res, false, Options{})
	if b.Len() != 0 {
		t.Errorf("section on evaluated, unflagged cells\n%s", b.String())
	}
}

// posteriordb's section says which checks were not evaluated on some of
// its cells, and nothing when every cell was checked.
func TestPDBUnchecked(t *testing.T) {
	var b strings.Builder
	writePDBUnchecked(&b, []*Cell{checkCell("posteriordb/sp/x/s1/n10", "sp", false, "spread_min"), checkCell("posteriordb/sp/x/s2/n10", "sp", false)}, wiring.Checks())
	if s := b.String(); !strings.Contains(s, "Not every run-time check was evaluated") || !strings.Contains(s, "- narrow (MMD-FW, Stein Points): evaluated on 1 of 2 cells; the other 1 record no `spread_min`") {
		t.Errorf("posteriordb note\n%s", s)
	}
	b.Reset()
	writePDBUnchecked(&b, []*Cell{checkCell("posteriordb/sp/x/s1/n10", "sp", false, "spread_min")}, wiring.Checks())
	if b.Len() != 0 {
		t.Errorf("posteriordb note on checked cells\n%s", b.String())
	}
}
