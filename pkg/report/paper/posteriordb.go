package paper

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The method kinds of the posteriordb benchmark (experiments/posteriordb.toml)
// whose results the paper's claims 2–4 compare.
const (
	pdbKindFW   = "mmdfw"
	pdbKindSVGD = "svgd"
	pdbKindSP   = "sp"
)

// Extend writes, at the end of the report's posteriordb section
// (report.PDBExperiment), what the benchmark says about claims 2–4 of the
// paper, as extended evidence; nothing for any other section
// (report.Extender).
func (Plugin) Extend(b *strings.Builder, res *report.Results, id string, _ report.Options) {
	if id != report.PDBExperiment {
		return
	}
	if stats := report.PDBStats(report.Done(res.Experiment(id))); len(stats) > 0 {
		writePDBClaims(b, stats)
	}
}

// writePDBClaims writes what the benchmark's stats say about claims 2–4:
// MMD-FW's slope of log MMD² against log n, MMD-FW against SVGD and Stein
// Points against MMD-FW in MMD² at each N.
func writePDBClaims(b *strings.Builder, stats []report.PDBStat) {
	b.WriteString("### Extended evidence for claims 2–4\n\n")
	b.WriteString("Read on these posteriors, not a verdict of the claims (the methods here stop by their own rules, so N is a ceiling for MMD-FW and Stein Points):\n\n")
	ns := report.PDBNs(stats)
	if sl := report.PDBSlopes(stats, pdbKindFW); len(sl) > 0 {
		fmt.Fprintf(b, "- Claim 2 (MMD² falls with N): MMD-FW's slope of log MMD² against log n (n the particles its sets ended with, ceilings N = %s) is %s (median over %d posteriors; range %s–%s; −1 is the rate of independent draws).\n",
			joinInts(ns), sig3(report.Median(sl)), len(sl), sig3(slices.Min(sl)), sig3(slices.Max(sl)))
	}
	for _, n := range ns {
		if w, of, _ := report.PDBPairs(stats, pdbKindFW, pdbKindSVGD, n); of > 0 {
			fmt.Fprintf(b, "- Claim 3 (MMD-FW below SVGD in MMD² at equal N), N = %d: MMD-FW lower on %d of %d posteriors.\n", n, w, of)
		}
	}
	for _, n := range ns {
		if w, of, r := report.PDBPairs(stats, pdbKindSP, pdbKindFW, n); of > 0 {
			fmt.Fprintf(b, "- Claim 4 (Stein Points against MMD-FW), N = %d: Stein Points lower in MMD² on %d of %d posteriors, spending %s× MMD-FW's gradient evaluations (median; the table above compares them at equal cost).\n", n, w, of, sig3(r))
		}
	}
	b.WriteString("\n")
}

// sig3 formats v with three significant digits ("–" when not finite), as
// the posteriordb section does.
func sig3(v float64) string {
	if !report.Finite(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
