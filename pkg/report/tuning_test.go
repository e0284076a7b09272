package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// tuneTOML is a tuning experiment of two kinds: three SVGD configurations
// that differ in kernel and features, two SGLD ones that differ in
// particle count only. Its splits are seeds no reported experiment uses,
// so the toy datasets need no validation rows.
const tuneTOML = `
id = "tune-toy"
description = "toy grid"
role = "tuning"
datasets = ["boston"]
splits = [1000, 1001]
[eval]
metrics = ["rmse", "test_ll"]
[methods.svgd-a]
kind = "svgd"
particles = [20]
protocols = ["fair"]
settings = { kernel = "a", features = 10 }
[methods.svgd-b]
kind = "svgd"
particles = [20]
settings = { kernel = "b", features = 10 }
[methods.svgd-c]
kind = "svgd"
particles = [20]
settings = { kernel = "c", features = 30 }
[methods.sgld]
kind = "sgld"
particles = [5, 10]
`

// tuneCurves: svgd-b has the best RMSE (1.0 and 1.2 over the splits),
// svgd-c the best log-likelihood; SGLD is better at 10 particles.
func tuneCurves(c *harness.Cell) ([]reporttest.Pt, error) {
	r := map[string]float64{"svgd-a": 2, "svgd-b": 1, "svgd-c": 1.5, "sgld": 3 - float64(c.N)/10}[c.Method.Name] + 0.2*float64(c.Split-1000)
	ll := map[string]float64{"svgd-a": -3, "svgd-b": -2, "svgd-c": -1, "sgld": -4}[c.Method.Name]
	return []reporttest.Pt{{Step: 1, Sec: 1, Vals: map[string]float64{"rmse": 9, "test_ll": -9}}, {Step: 2, Sec: 2, Vals: map[string]float64{"rmse": r, "test_ll": ll}}}, nil
}

func TestTuningSection(t *testing.T) {
	res := writeTree(t, t.TempDir(), tuneCurves, tuneTOML)
	d := res.Declared["tune-toy"]
	if !res.Tuning("tune-toy") || fmt.Sprint(d.Metrics) != "[rmse test_ll]" || fmt.Sprint(d.Arms) != "map[fair:[svgd-a]]" {
		t.Fatalf("declaration %+v", d)
	}
	grids := TuningGrids(res, "tune-toy")
	if len(grids) != 2 || grids[0].Kind != "svgd" || grids[1].Kind != "sgld" {
		t.Fatalf("grids %+v", grids)
	}
	sv := grids[0]
	if len(sv.Configs) != 3 || sv.Chosen != 1 || sv.Configs[1].Method != "svgd-b" {
		t.Errorf("svgd grid: %d configurations, chosen %d; want 3, svgd-b", len(sv.Configs), sv.Chosen)
	}
	if got := fmt.Sprint(sv.Configs[0].Differs, sv.Configs[2].Differs); got != "[features=10 kernel=a] [features=30 kernel=c]" {
		t.Errorf("differing settings %s", got)
	}
	if s := sv.Configs[1].Stats["rmse"]; !near(s.Mean, 1.1, 1e-12) || !near(s.SD, 0.1414213562373095, 1e-12) || len(s.Values) != 2 {
		t.Errorf("svgd-b rmse %v ± %v over %d, want the final values 1.1 ± 0.14 over 2", s.Mean, s.SD, len(s.Values))
	}
	sg := grids[1]
	if len(sg.Configs) != 2 || sg.Chosen != 1 || sg.Configs[1].N != 10 || fmt.Sprint(sg.Configs[0].Differs) != "[N=5]" {
		t.Errorf("sgld grid %+v", sg)
	}
	var b strings.Builder
	if err := Write(&b, res, Options{Figures: "figures"}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Tuning", "### tune-toy", "toy grid.",
		"**Boston housing, kind svgd** (3 configurations; chosen by rmse)",
		"| svgd-b | features=10, kernel=b | 2 | 1.10 ± 0.14 | -2 | **yes** |",
		"Chosen: `svgd-b` (features=10, kernel=b), validation rmse 1.10 ± 0.14.",
		"| sgld (N=10) | N=10 | 2 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "## Other experiments") {
		t.Errorf("the tuning experiment is listed among the other experiments too")
	}
}

// A higher-is-better first metric chooses the largest mean.
func TestTuningHigherBetter(t *testing.T) {
	cell := func(method string, v float64) *Cell {
		c := memCell("tune", method, "svgd", "covertype", 1, 20, Row{Step: 1, Metric: "accuracy", Value: v})
		c.Prov.Settings = map[string]any{"step": v}
		return c
	}
	res := &Results{Metrics: reporttest.Meanings, Cells: []*Cell{cell("a", 0.7), cell("b", 0.9), cell("c", 0.8)},
		Declared: map[string]Declaration{"tune": {Role: harness.RoleTuning, Metrics: []string{"accuracy"}}}}
	g := TuningGrids(res, "tune")
	if len(g) != 1 || g[0].Chosen != 1 || fmt.Sprint(g[0].Configs[1].Differs) != "[step=0.9]" {
		t.Errorf("grids %+v", g)
	}
}
