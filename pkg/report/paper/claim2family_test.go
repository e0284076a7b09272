package paper

import (
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// TestClaim2Families: claim 2 reads its series within families of one
// dataset whose LMO scores candidates alike. Two families on one dataset
// (full-data and minibatch scoring, different costs) and a converged BNN
// reference: the family table gives each family's gradient evaluations,
// its count of linear series and its reference's worst split, and the
// reason names every family.
func TestClaim2Families(t *testing.T) {
	pf := false
	curve := func(rate float64) []report.Row {
		var r []report.Row
		for n := 1; n <= 40; n++ {
			r = append(r, report.Row{Step: n, Metric: "mmd2", Value: 0.5 * math.Exp(-rate*float64(n))})
		}
		return r
	}
	cell := func(exp, method, ds string, split int, settings map[string]any, grads int64, rate float64) *report.Cell {
		c := memCell(exp, method, "mmdfw", ds, split, 40, curve(rate)...)
		c.Prov.Settings, c.Prov.GradEvals = settings, grads
		c.Summary = map[string]any{"reference": map[string]any{"kind": "hmc", "diagnostics": map[string]any{
			"max_rhat": 1.002 + 0.001*float64(split), "min_ess": 900.0 - 10*float64(split), "flagged": false}}}
		if ds == "bnn" {
			c.Summary["reference"].(map[string]any)["predictions"] = map[string]any{"inputs": 20.0, "max_rhat": 1.004, "min_ess": 700.0, "flagged": pf}
		}
		return c
	}
	full := map[string]any{"weights": "equal"}
	mini := map[string]any{"weights": "equal", "batch": 100.0}
	raw := map[string]any{"weights": "bq", "z": "pool", "pool_sampler": "hmc", "raw_weights": true}
	var cells []*report.Cell
	for s := 1; s <= 2; s++ {
		cells = append(cells,
			cell("rff", "lr-full", "cov", s, full, 3e8, 0.3),
			cell("fig1b", "mini", "cov", s, mini, 1e7, 0.001),
			cell("fig1b", "mini-2", "cov", s, mini, 2e7, 0.3),
			cell("bnn-rate", "bq-raw", "bnn", s, raw, 5e6, 0.3))
	}
	c := claim2(&report.Results{Metrics: reporttest.Meanings, Cells: cells})
	var fam *ClaimTable
	for i := range c.Tables {
		if strings.HasPrefix(c.Tables[i].Title, "By family") {
			fam = &c.Tables[i]
		}
	}
	if fam == nil {
		t.Fatalf("no family table:\n%s", c.Markdown())
	}
	want := [][]string{
		{"cov", "minibatch of 100 rows", "1e+07–2e+07", "1 / 2", "mini-2", "mini", "0",
			"parameters: max R̂ 1.004, min ESS 880 (2 splits)", string(NotSupported)},
		{"bnn", "full-data", "5e+06", "1 / 1", "bq-raw", "–", "0",
			"parameters: max R̂ 1.004, min ESS 880 (2 splits); predictions at 20 inputs: max R̂ 1.004, min ESS 700", string(Supported)},
		{"cov", "full-data", "3e+08", "1 / 1", "lr-full", "–", "0",
			"parameters: max R̂ 1.004, min ESS 880 (2 splits)", string(Supported)},
	}
	if len(fam.Rows) != len(want) {
		t.Fatalf("%d family rows, want %d:\n%s", len(fam.Rows), len(want), c.Markdown())
	}
	for i, w := range want {
		if strings.Join(fam.Rows[i], " | ") != strings.Join(w, " | ") {
			t.Errorf("family row %d:\n got %q\nwant %q", i, fam.Rows[i], w)
		}
	}
	for _, w := range []string{"cov, minibatch of 100 rows (1e+07–2e+07 gradient evaluations): 1 of 2 linear",
		"cov, full-data (3e+08 gradient evaluations): 1 of 1 linear"} {
		if !strings.Contains(c.Why, w) {
			t.Errorf("reason lacks %q: %s", w, c.Why)
		}
	}
	if c.Verdict != NotSupported {
		t.Errorf("verdict %s, want %s (a family has a series that is not linear)", c.Verdict, NotSupported)
	}
	if md := c.Markdown(); !strings.Contains(md, "| bq-raw | RBF | bq (z from an HMC pool, raw weights) |") {
		t.Errorf("raw BQ weights not named:\n%s", md)
	}
}

// claim2SplitCells builds a BNN dataset of five splits whose MMD-FW series
// falls geometrically in fmmd2 on the splits listed in good and stays flat
// on the others, each split's reference flagged in parameters, and flagged
// on the predictions except on the splits in good.
func claim2SplitCells(good map[int]bool) []*report.Cell {
	var cells []*report.Cell
	for s := 0; s < 5; s++ {
		var rows []report.Row
		for n := 1; n <= 40; n++ {
			f := 0.5 * math.Exp(-0.3*float64(n))
			if !good[s] {
				f = 0.5 // an unconverged reference: no fall
			}
			rows = append(rows, report.Row{Step: n, Metric: "mmd2", Value: 0.5 / float64(n)},
				report.Row{Step: n, Metric: "fmmd2", Value: f})
		}
		c := memCell("bnn-rate", "fw-equal", "mmdfw", "bnn", s, 40, rows...)
		c.Prov.Settings, c.Prov.GradEvals = map[string]any{"weights": "equal"}, 1000*int64(s+1)
		c.Summary = map[string]any{"reference": map[string]any{"kind": "hmc",
			"diagnostics": map[string]any{"max_rhat": 1.5, "min_ess": 7.0, "flagged": true},
			"predictions": map[string]any{"inputs": 20.0, "max_rhat": 1.002, "min_ess": 2600.0, "flagged": !good[s]}}}
		cells = append(cells, c)
	}
	return cells
}

// TestClaim2TrustedSplits: a BNN reference flagged in parameters on every
// split and on the predictions on splits 2–4 only. The series is read in
// fmmd2 on splits 0 and 1 (where it falls geometrically), counted, and its
// row names the splits it rests on and the three left out; with a single
// trustworthy split it stays listed against the flagged reference.
func TestClaim2TrustedSplits(t *testing.T) {
	c := claim2(&report.Results{Metrics: reporttest.Meanings, Cells: claim2SplitCells(map[int]bool{0: true, 1: true})})
	if len(c.Rows) != 1 {
		t.Fatalf("%d rows, want 1:\n%s", len(c.Rows), c.Markdown())
	}
	row := c.Rows[0]
	if want := "RBF kernel on predictions at 20 test inputs (fmmd2, splits 0, 1 of 5; 3 splits with a flagged reference left out (2, 3, 4))"; row[6] != want {
		t.Errorf("MMD² in: got %q\nwant %q", row[6], want)
	}
	if row[14] != "yes" || row[15] != "yes" {
		t.Errorf("linear %q, counted %q; want yes, yes (fmmd2 falls at rate 0.3 on splits 0, 1):\n%s", row[14], row[15], c.Markdown())
	}
	if got := atof(row[9]); math.Abs(got-0.3) > 1e-9 {
		t.Errorf("rate %g, want 0.3 (the flat splits 2–4 left out)", got)
	}
	// Gradient evaluations: mean over splits 0 and 1 only (1000 and 2000).
	if row[16] != "1500" {
		t.Errorf("gradient evaluations %q, want 1500", row[16])
	}
	for _, w := range []string{"1 of 1 counted", "1 counted on the splits whose reference is trustworthy",
		"bnn, full-data (1500 gradient evaluations): 1 of 1 linear (1 on fmmd2, splits 0, 1 of 5; 3 splits with a flagged reference left out (2, 3, 4))"} {
		if !strings.Contains(c.Why, w) {
			t.Errorf("reason lacks %q: %s", w, c.Why)
		}
	}
	if strings.Contains(c.Why, "listed") || c.Verdict != Supported {
		t.Errorf("verdict %s, reason %s; want supported, nothing listed", c.Verdict, c.Why)
	}

	one := claim2(&report.Results{Metrics: reporttest.Meanings, Cells: claim2SplitCells(map[int]bool{0: true})})
	if len(one.Rows) != 1 || one.Rows[0][15] != "no (flagged reference)" || !strings.Contains(one.Rows[0][6], "flagged in 5 of 5 splits") {
		t.Errorf("one trustworthy split: want the series listed against the flagged reference:\n%s", one.Markdown())
	}
}
