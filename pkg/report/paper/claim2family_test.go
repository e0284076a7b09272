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
