package paper

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// declare returns res with the arms of experiment id declared: arms maps
// a protocol to its methods.
func declare(res *report.Results, id string, arms map[string][]string) *report.Results {
	if res.Declared == nil {
		res.Declared = map[string]report.Declaration{}
	}
	res.Declared[id] = report.Declaration{Arms: arms}
	return res
}

// withSettings sets a cell's recorded settings.
func withSettings(c *report.Cell, s map[string]any) *report.Cell {
	c.Prov.Settings = s
	return c
}

// splits3 returns the cells f makes for splits 0, 1 and 2.
func splits3(f func(split int) *report.Cell) []*report.Cell {
	return []*report.Cell{f(0), f(1), f(2)}
}

// armsOf returns the arms (A, B) of the contrasts of one protocol's own
// verdict.
func armsOf(c Claim) map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, k := range c.Contrasts {
		out[[2]string{k.A.Method, k.B.Method}] = true
	}
	return out
}

// Claim 1 reads the declared arms: the paper's MMD-FW arm is the declared
// one, not the first by name, and the fair protocol's SVGD arms are the
// declared SVGD methods only.
func TestClaim1DeclaredArms(t *testing.T) {
	cells := func() []*report.Cell {
		var out []*report.Cell
		for _, m := range []struct {
			name, kind string
			rows       func(e float64) []report.Row
		}{
			{"mmdfw", "mmdfw", func(e float64) []report.Row {
				return []report.Row{{Seconds: 1, GradEvals: 1000, Metric: "rmse", Value: 2 + e}, {Seconds: 8, GradEvals: 8000, Metric: "rmse", Value: 1 + e}}
			}},
			{"mmdfw-fast", "mmdfw", func(e float64) []report.Row {
				return []report.Row{{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 2 + e}, {Seconds: 2, GradEvals: 200, Metric: "rmse", Value: 1 + e}}
			}},
			{"svgd", "svgd", func(e float64) []report.Row {
				return []report.Row{{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3 + e}, {Seconds: 4, GradEvals: 400, Metric: "rmse", Value: 1 + e}}
			}},
			{"svgd-x", "svgd", func(e float64) []report.Row {
				return []report.Row{{Seconds: 0.5, GradEvals: 50, Metric: "rmse", Value: 1 + e}, {Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 0.5 + e}}
			}},
		} {
			out = append(out, splits3(func(s int) *report.Cell {
				return memCell("fig2a", m.name, m.kind, "naval", s, 20, m.rows(0.01*float64(s))...)
			})...)
		}
		return out
	}
	// Undeclared: the first by name (the slow mmdfw) against svgd, and in
	// gradient evaluations against both SVGD arms.
	c := claim1(&report.Results{Metrics: reporttest.Meanings, Cells: cells()})
	if c.Paper != NotSupported || c.Verdict != NotSupported {
		t.Errorf("undeclared: paper %s, fair %s\n%s", c.Paper, c.Verdict, c.Markdown())
	}
	if a := armsOf(c); !a[[2]string{"mmdfw", "svgd-x"}] || !a[[2]string{"mmdfw", "svgd"}] {
		t.Errorf("undeclared: arms %v, want mmdfw against svgd and svgd-x", a)
	}
	res := declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells()}, "fig2a", map[string][]string{
		harness.ProtocolPaper: {"mmdfw-fast", "svgd"},
		harness.ProtocolFair:  {"mmdfw-fast"},
	})
	c = claim1(res)
	if c.Paper != Supported || c.Verdict != Supported {
		t.Errorf("declared: paper %s (%s), fair %s (%s), want supported twice\n%s", c.Paper, c.PaperWhy, c.Verdict, c.Why, c.Markdown())
	}
	if a := armsOf(c); len(a) != 1 || !a[[2]string{"mmdfw-fast", "svgd"}] {
		t.Errorf("declared: arms %v, want mmdfw-fast against svgd only", a)
	}
	if len(c.Rows) != 2 {
		t.Errorf("declared: %d rows, want one per protocol\n%s", len(c.Rows), c.Markdown())
	}
	if !strings.Contains(c.Rule, "`protocols`") {
		t.Errorf("rule does not say how arms are declared: %s", c.Rule)
	}
}

// Claim 5 under the fair protocol: the declared fair MMD-FW arm against
// the SVGD arms declared for either protocol (reference and tuned), not an
// undeclared third.
func TestClaim5DeclaredArms(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	arm := func(method, kind string, f float64) []*report.Cell {
		return splits3(func(s int) *report.Cell {
			k := f * (1 + 0.1*float64(s))
			v := []float64{k, k, k, k, k}
			return budgetCell(method, kind, s, grads, v, v)
		})
	}
	var cells []*report.Cell
	for _, a := range []struct {
		m, k string
		f    float64
	}{{"mmdfw", "mmdfw", 3}, {"mmdfw-stein", "mmdfw", 1}, {"svgd", "svgd", 1.02}, {"svgd-tuned", "svgd", 1}, {"svgd-other", "svgd", 0.5}} {
		cells = append(cells, arm(a.m, a.k, a.f)...)
	}
	if c := claim5(&report.Results{Metrics: reporttest.Meanings, Cells: cells}); c.Verdict != NotSupported || c.Paper != NotSupported {
		t.Errorf("undeclared: fair %s, paper %s, want %s (mmdfw, three times SVGD's RMSE)\n%s", c.Verdict, c.Paper, NotSupported, c.Markdown())
	}
	res := declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "table1", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd"},
		harness.ProtocolFair:  {"mmdfw-stein", "svgd-tuned"},
	})
	c := claim5(res)
	if c.Verdict != Supported || c.Paper != NotSupported {
		t.Errorf("declared: fair %s (%s), paper %s; want supported, not supported\n%s", c.Verdict, c.Why, c.Paper, c.Markdown())
	}
	a := armsOf(c)
	for _, want := range [][2]string{{"mmdfw-stein", "svgd"}, {"mmdfw-stein", "svgd-tuned"}, {"mmdfw", "svgd"}} {
		if !a[want] {
			t.Errorf("declared: no contrast of %v in %v", want, a)
		}
	}
	if strings.Contains(c.Markdown(), "svgd-other") || len(a) != 3 {
		t.Errorf("declared: an undeclared arm or a wrong number of arm pairs %v\n%s", a, c.Markdown())
	}
}

// mmdCells are fig1b cells: greedy MMD-FW trajectories (value/n at step n)
// and SVGD runs at N = 10 and 20, on three splits.
func mmdCells(fw map[string]float64, svgd map[string]float64, svgdInit string) []*report.Cell {
	var cells []*report.Cell
	for name, v := range fw {
		cells = append(cells, splits3(func(s int) *report.Cell {
			var rows []report.Row
			for n := 1; n <= 20; n++ {
				rows = append(rows, report.Row{Step: n, GradEvals: int64(100 * n), Metric: "mmd2", Value: v * (1 + 0.1*float64(s)) / float64(n)})
			}
			return memCell("fig1b", name, "mmdfw", "covertype", s, 20, rows...)
		})...)
	}
	for name, v := range svgd {
		for _, n := range []int{10, 20} {
			cells = append(cells, splits3(func(s int) *report.Cell {
				c := memCell("fig1b", name, "svgd", "covertype", s, n, report.Row{Step: 100, GradEvals: 1000, Metric: "mmd2", Value: v * (1 + 0.1*float64(s))})
				c.Prov.Cell += "/n" + strings.Repeat("x", n)
				return withSettings(c, map[string]any{"init": svgdInit})
			})...)
		}
	}
	return cells
}

// Claim 3 reads each protocol's arms: the paper's the declared (else the
// first by name) MMD-FW arm against the paper's SVGD arm, the fair one
// against every SVGD arm.
func TestClaim3DeclaredArms(t *testing.T) {
	cells := mmdCells(map[string]float64{"mmdfw": 1, "mmdfw-b": 1e-3}, map[string]float64{"svgd": 0.5, "svgd-tuned": 0.01}, "laplace")
	c := claim3(&report.Results{Metrics: reporttest.Meanings, Cells: cells})
	if len(c.Rows) != 6 {
		t.Fatalf("undeclared: %d rows, want 2 paper and 4 fair\n%s", len(c.Rows), c.Markdown())
	}
	// SVGD's 0.5 against MMD-FW's 0.1 and 0.05 at N = 10, 20: worse; the
	// tuned arm's 0.01 better.
	if c.Paper != NotSupported || c.Verdict != NotSupported {
		t.Errorf("undeclared: paper %s, fair %s\n%s", c.Paper, c.Verdict, c.Markdown())
	}
	if a := armsOf(c); !a[[2]string{"svgd-tuned", "mmdfw"}] || !a[[2]string{"svgd", "mmdfw"}] || len(a) != 2 {
		t.Errorf("undeclared: arms %v", a)
	}
	c = claim3(declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1b", map[string][]string{harness.ProtocolPaper: {"mmdfw-b"}, harness.ProtocolFair: {"mmdfw", "svgd-tuned"}}))
	// Paper: mmdfw-b (1e-4, 5e-5) against svgd: SVGD worse. Fair: mmdfw
	// against svgd-tuned and svgd (declared for the paper).
	for _, k := range c.Contrasts {
		if (k.B.Method == "mmdfw-b") == (k.A.Method == "svgd-tuned") {
			t.Errorf("declared: contrast %s against %s", k.A.Method, k.B.Method)
		}
	}
	// The SVGD→MMD-FW swap: with SVGD from the prior, MMD-FW from the MAP,
	// every contrast is confounded by the start.
	c = claim3(&report.Results{Metrics: reporttest.Meanings, Cells: mmdCells(map[string]float64{"mmdfw": 1}, map[string]float64{"svgd-tuned": 0.01}, "")})
	if c.Verdict != CannotDecide || !strings.Contains(c.Why, "differ in start") {
		t.Errorf("prior-started SVGD: %s (%s), want cannot decide: start", c.Verdict, c.Why)
	}
}

// spCells are greedy fig1b cells of SP and MMD-FW on two splits, MMD² and
// KSD² value/n at step n, every one started at the MAP.
func spCells(methods map[string][3]float64) []*report.Cell {
	var cells []*report.Cell
	for name, v := range methods {
		kind := "mmdfw"
		if strings.HasPrefix(name, "sp") {
			kind = "sp"
		}
		for s := 1; s <= 3; s++ {
			var rows []report.Row
			for n := 1; n <= 3; n++ {
				g := int64(n) * int64(v[2])
				rows = append(rows, report.Row{Step: n, GradEvals: g, Metric: "mmd2", Value: v[0] * (1 + 0.1*float64(s)) / float64(n)},
					report.Row{Step: n, GradEvals: g, Metric: "ksd2", Value: v[1] * (1 + 0.1*float64(s)) / float64(n)})
			}
			c := memCell("fig1b", name, kind, "covertype", s, 3, rows...)
			if kind == "sp" {
				withSettings(c, map[string]any{"map": true})
			}
			cells = append(cells, c)
		}
	}
	return cells
}

// Claim 4 under declared arms: each protocol compares its own SP arm, so
// different declarations give different verdicts.
func TestClaim4DeclaredArms(t *testing.T) {
	cells := spCells(map[string][3]float64{"sp": {10, 10, 100}, "sp-map": {0.1, 0.1, 100}, "mmdfw": {1, 1, 100}})
	c := claim4(&report.Results{Metrics: reporttest.Meanings, Cells: cells})
	if c.Verdict != Supported || c.Paper != Supported {
		t.Errorf("undeclared: fair %s, paper %s (sp is the first by name)\n%s", c.Verdict, c.Paper, c.Markdown())
	}
	c = claim4(declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1b", map[string][]string{harness.ProtocolPaper: {"sp-map"}, harness.ProtocolFair: {"sp"}}))
	if c.Verdict != Supported || c.Paper != NotSupported || len(c.Rows) != 8 {
		t.Errorf("declared: fair %s, paper %s, %d rows\n%s", c.Verdict, c.Paper, len(c.Rows), c.Markdown())
	}
}
