package paper

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// TestSharedStarts reads, on constructed cells, which arms share a start
// artefact and whether MMD-FW's first snapshot is the network alone: split
// 0 shares one artefact and agrees, split 1 has an SVGD arm that read
// another network and an MMD-FW whose first snapshot differs.
func TestSharedStarts(t *testing.T) {
	with := func(c *report.Cell, key, start string) *report.Cell {
		m := map[string]any{"start_artefact": key, "train_grad_evals": float64(90000), "train_seconds": 0.5}
		if start != "" {
			m["start"] = start
		}
		c.Summary = map[string]any{"method": m}
		return c
	}
	row := func(g int64, v float64) report.Row {
		return report.Row{Step: 1, GradEvals: g, Metric: "rmse", Value: v}
	}
	res := &report.Results{Cells: []*report.Cell{
		with(memCell("table1", "mmdfw-trained", "mmdfw", "boston", 0, 2500, row(90000, 2.5), report.Row{Step: 2, GradEvals: 1e5, Metric: "rmse", Value: 2.4}), "trained/boston/s0/m0-a", ""),
		with(memCell("table1", "svgd-trained", "svgd", "boston", 0, 20, row(90000, 2.6)), "trained/boston/s0/m0-a", ""),
		with(memCell("table1", "start-trained", "start", "boston", 0, 0, row(90000, 2.5)), "trained/boston/s0/m0-a", "trained"),
		with(memCell("table1", "mmdfw-trained", "mmdfw", "boston", 1, 2500, row(90000, 2.7)), "trained/boston/s1/m0-a", ""),
		with(memCell("table1", "svgd-trained", "svgd", "boston", 1, 20, row(80000, 2.6)), "trained/boston/s1/m0-b", ""),
		with(memCell("table1", "start-trained", "start", "boston", 1, 0, row(90000, 2.5)), "trained/boston/s1/m0-a", "trained"),
		memCell("table1", "svgd", "svgd", "boston", 0, 20, row(0, 9)),
	}}
	ss := SharedStarts(res)
	if len(ss) != 1 {
		t.Fatalf("%d experiments, want 1", len(ss))
	}
	s := ss[0]
	if s.Splits != 2 || s.Shared != 1 || len(s.Differ) != 1 || s.Differ[0] != "boston split 1" {
		t.Errorf("splits %d, shared %d, differ %v; want 2, 1, [boston split 1]", s.Splits, s.Shared, s.Differ)
	}
	if s.First != 2 || s.FirstEqual != 1 || len(s.FirstDiffer) != 1 || s.FirstDiffer[0] != "boston split 1" {
		t.Errorf("first snapshots %d, equal %d, differ %v; want 2, 1, [boston split 1]", s.First, s.FirstEqual, s.FirstDiffer)
	}
	if strings.Join(s.Methods, ",") != "mmdfw-trained,start-trained,svgd-trained" {
		t.Errorf("methods %v", s.Methods)
	}
	if s.StartGrads != 90000 || s.StartSeconds != 0.5 {
		t.Errorf("start cost %g gradient evaluations, %g s; want 90000 and 0.5", s.StartGrads, s.StartSeconds)
	}
	var b strings.Builder
	WriteSharedStarts(&b, res)
	if !strings.Contains(b.String(), "on 1 of 2 dataset splits") || !strings.Contains(b.String(), "(not on boston split 1)") {
		t.Errorf("paragraph %q", b.String())
	}
}
