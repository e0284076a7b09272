package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// A tuning grid is ranked in the direction the registry gives, whatever
// the metric's name: coverage and r2 are better larger, neg_ll smaller
// (a rule read from names would rank the first two backwards, and take
// neg_ll for a log-likelihood), sd_ratio nearer 1. A metric without a
// Meaning chooses none, and the section says why.
func TestTuningRanksByMeaning(t *testing.T) {
	meanings := harness.MetricTable{
		"coverage": {Label: "90% interval coverage on {rows} rows", Better: harness.HigherBetter, Reads: harness.ReadsEvaluation},
		"r2":       {Label: "{rows} R²", Better: harness.HigherBetter, Reads: harness.ReadsEvaluation},
		"neg_ll":   {Label: "negative {rows} log-likelihood (nats)", Better: harness.LowerBetter, Reads: harness.ReadsEvaluation},
		"sd_ratio": {Label: "sd ratio to the reference", Better: harness.NearerBetter, Ideal: 1, Reads: harness.ReadsReference},
	}
	// Configuration b is the best by every metric: the largest coverage
	// and R², the smallest negative log-likelihood, the sd ratio nearest 1
	// (c's is the largest, a's the smallest).
	values := map[string]map[string]float64{
		"coverage": {"a": 0.70, "b": 0.95, "c": 0.80},
		"r2":       {"a": 0.30, "b": 0.90, "c": 0.50},
		"neg_ll":   {"a": 2.00, "b": 0.50, "c": 1.00},
		"sd_ratio": {"a": 0.50, "b": 1.10, "c": 1.30},
		"mystery":  {"a": 1, "b": 2, "c": 3},
	}
	for metric, by := range values {
		var cells []*Cell
		for _, m := range []string{"a", "b", "c"} {
			c := memCell("tune", m, "svgd", "own", 1000, 20, Row{Step: 1, Metric: metric, Value: by[m]})
			c.Prov.Settings = map[string]any{"step": by[m]}
			cells = append(cells, c)
		}
		res := &Results{Cells: cells, Metrics: meanings,
			Declared: map[string]Declaration{"tune": {Role: harness.RoleTuning, Metrics: []string{metric}}}}
		g := TuningGrids(res, "tune")
		if len(g) != 1 || len(g[0].Configs) != 3 {
			t.Fatalf("%s: grids %+v", metric, g)
		}
		var md strings.Builder
		writeTuning(&md, res, Options{Figures: "figures"}, Head{Against: "the paper", Claims: true})
		if metric == "mystery" {
			if g[0].Chosen != -1 || !strings.Contains(g[0].Unranked, `"mystery" has no registered meaning`) {
				t.Errorf("an unregistered metric: chosen %d (%q), want none and the reason", g[0].Chosen, g[0].Unranked)
			}
			if !strings.Contains(md.String(), `None chosen: metric "mystery" has no registered meaning`) {
				t.Errorf("the tuning section does not say why none is chosen:\n%s", md.String())
			}
			continue
		}
		if g[0].Chosen != 1 || g[0].Configs[1].Method != "b" {
			t.Errorf("%s (%v): chosen %d, want 1 (b)", metric, meanings[metric].Better, g[0].Chosen)
		}
		if !strings.Contains(md.String(), "Chosen: `b`") {
			t.Errorf("%s: the tuning section does not choose b:\n%s", metric, md.String())
		}
	}
}

// A figure's y axis is labelled in the words the registry gives, with the
// rows the experiment's metrics evaluate, and drawn on the scale it gives;
// a metric without a meaning is labelled by its name, marked so, on a
// linear axis.
func TestAxisLabelFromMeaning(t *testing.T) {
	meanings := harness.MetricTable{
		"coverage": {Label: "90% interval coverage on {rows} rows", Better: harness.HigherBetter, Reads: harness.ReadsEvaluation},
		"method:spread": {Label: "particle spread (method-reported)", Better: harness.LowerBetter, Log: true,
			Reads: harness.ReadsMethod},
	}
	var cells []*Cell
	for split := 1; split <= 2; split++ {
		var rows []Row
		for i := 1; i <= 5; i++ {
			v := 0.1 * float64(i+split)
			rows = append(rows, Row{Step: i, Seconds: float64(i), Metric: "coverage", Value: v},
				Row{Step: i, Seconds: float64(i), Metric: "method:spread", Value: v},
				Row{Step: i, Seconds: float64(i), Metric: "mystery", Value: v})
		}
		c := memCell("mine", "svgd", "svgd", "own", split, 10, rows...)
		c.Prov.KeyDoc.Eval.Rows = harness.RowsValidation
		cells = append(cells, c)
	}
	res := &Results{Cells: cells, Metrics: meanings, Figures: map[string][]harness.Figure{"mine": {
		{ID: "mine", Title: "Mine", X: harness.XSeconds, Y: harness.Metrics{"coverage", "method:spread", "mystery"}, Band: harness.BandSD},
	}}}
	dir := t.TempDir()
	if _, err := Plot(res, dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, label, not string }{
		{"mine-coverage.svg", "90% interval coverage on validation rows", "(log scale)"},
		{"mine-method-spread.svg", "particle spread (method-reported) (log scale)", "method:spread"},
		{"mine-mystery.svg", "mystery" + Unregistered, "(log scale)"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(c.label)) || bytes.Contains(b, []byte(c.not)) {
			t.Errorf("%s: want the label %q and not %q", c.file, c.label, c.not)
		}
	}
}
