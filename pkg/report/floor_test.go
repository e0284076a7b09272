package report

import (
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// refCell is a done memCell whose summary records a reference: parameter
// space flagged or not, predictions flagged or not (nil: none recorded),
// and floors by metric.
func refCell(exp, method, ds string, split int, flagged bool, predFlagged *bool, floors map[string]any, rows ...Row) *Cell {
	c := memCell(exp, method, "mmdfw", ds, split, 0, rows...)
	ref := map[string]any{"kind": "hmc", "draws": 1000.0, "diagnostics": map[string]any{"max_rhat": 4.5, "min_ess": 4.0, "flagged": flagged}}
	if floors != nil {
		ref["floors"] = floors
	}
	if predFlagged != nil {
		ref["predictions"] = map[string]any{"inputs": 100.0, "max_rhat": 1.004, "min_ess": 900.0, "flagged": *predFlagged}
	}
	c.Summary = map[string]any{"reference": ref}
	return c
}

// TestReferenceFloorMean: the floor of a metric is the geometric mean over
// splits of what the cells record (one value per split, whatever the
// SummaryNumber of cells); a metric without floors has none.
func TestReferenceFloorMean(t *testing.T) {
	cells := []*Cell{
		refCell("fig2b", "a", "naval", 0, true, nil, map[string]any{"mmd2": 1e-3, "fmmd2": 0.5}),
		refCell("fig2b", "b", "naval", 0, true, nil, map[string]any{"mmd2": 1e-3, "fmmd2": 0.5}),
		refCell("fig2b", "a", "naval", 1, true, nil, map[string]any{"mmd2": 4e-3}),
		refCell("fig2b", "a", "other", 0, true, nil, map[string]any{"mmd2": 1.0}),
	}
	if v, n := ReferenceFloor(cells, "naval", "mmd2"); n != 2 || math.Abs(v-2e-3) > 1e-15 {
		t.Errorf("mmd2 floor %v over %d splits, want 0.002 over 2", v, n)
	}
	if v, n := ReferenceFloor(cells, "naval", "fmmd2"); n != 1 || v != 0.5 {
		t.Errorf("fmmd2 floor %v over %d splits, want 0.5 over 1", v, n)
	}
	if _, n := ReferenceFloor(cells, "naval", "mmd2_exact"); n != 0 {
		t.Errorf("mmd2_exact has a floor over %d splits", n)
	}
	// The line and its legend entry, on log axes.
	series := ParticleSeries([]*Cell{refCell("fig2b", "a", "naval", 0, true, nil, nil,
		Row{Step: 1, Metric: "mmd2", Value: 0.5}, Row{Step: 10, Metric: "mmd2", Value: 0.05})}, "naval", "mmd2")
	p := newFig("t", "x", "y", true, true)
	e := addFloor(p, cells, "naval", "mmd2", "MMD² to the reference", series)
	if len(e) != 1 || !strings.HasPrefix(e[0].text, FloorLabel+", MMD² to the reference between the reference's two halves: 0.002 (2 splits)") {
		t.Errorf("floor entries %+v", e)
	}
	if e := addFloor(p, cells, "naval", "mmd2_exact", "exact MMD²", series); e != nil {
		t.Errorf("a floor drawn for a metric without one: %+v", e)
	}
}

// TestRefDiagsPredictions: the prediction diagnostics a cell records reach
// the reference table, beside the parameter-space ones.
func TestRefDiagsPredictions(t *testing.T) {
	pf := false
	res := &Results{Metrics: reporttest.Meanings, Cells: []*Cell{
		refCell("fig2b", "a", "naval", 0, true, nil, nil),
		refCell("fig2b", "b", "naval", 0, true, &pf, nil),
	}}
	d := RefDiags(res)
	if len(d) != 1 || d[0].Pred == nil || d[0].Pred.MaxRhat != 1.004 || d[0].Pred.MinESS != 900 || d[0].Pred.Flagged || d[0].Pred.Inputs != 100 {
		t.Fatalf("diagnostics %+v", d)
	}
	var b strings.Builder
	writeRefDiags(&b, res, Options{})
	if !strings.Contains(b.String(), "| naval | 0 | fig2b | 4.5 | 4 | yes |  | 100 | 1.004 | 900 | no |") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestDeviationNamesPredictions: the deviation that lists a flagged
// reference says how it fares on the predictions.
func TestDeviationNamesPredictions(t *testing.T) {
	for _, pf := range []bool{false, true} {
		res := &Results{Metrics: reporttest.Meanings, Cells: []*Cell{refCell("fig2b", "a", "naval", 0, true, &pf, nil)}}
		var b strings.Builder
		writeDeviations(&b, res, "the paper", Options{})
		want := "On the network's predictions at 100 test inputs (fmmd2) it is not flagged (max R̂ 1.004, min ESS 900)"
		if pf {
			want = "On the network's predictions at 100 test inputs (fmmd2) it is flagged too (max R̂ 1.004, min ESS 900)."
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("predictions flagged %v: deviations\n%s", pf, b.String())
		}
	}
}
