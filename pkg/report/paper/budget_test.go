package paper

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// budgetCell is a table1 cell of run budget 400 gradient evaluations
// (reference budget 100: ¼× = 25, 1× = 100, 4× = 400) with snapshots at
// the given gradient counts and their dev and test RMSE.
func budgetCell(method, kind string, split int, grads []int64, dev, test []float64) *report.Cell {
	var rows []report.Row
	for i, g := range grads {
		rows = append(rows,
			report.Row{Step: i + 1, GradEvals: g, Metric: "rmse", Value: test[i]},
			report.Row{Step: i + 1, GradEvals: g, Metric: "test_ll", Value: -test[i]},
			report.Row{Step: i + 1, GradEvals: g, Metric: "dev_rmse", Value: dev[i]},
		)
	}
	c := memCell("table1", method, kind, "boston", split, 20, rows...)
	c.Prov.KeyDoc.Budget.GradEvals = 400
	return c
}

// At each budget a cell reports the snapshot within it whose development
// RMSE is best, and that snapshot's test metrics, even where another
// snapshot has a better test RMSE.
func TestTableAtBudgets(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	dev := []float64{5, 3, 4, 1, 2}
	a := budgetCell("svgd", "svgd", 0, grads, dev, []float64{50, 30, 1, 10, 20})
	b := budgetCell("svgd", "svgd", 1, grads, dev, []float64{52, 32, 3, 12, 22})
	// A baseline without a gradient budget or development metric: its one
	// snapshot at every budget.
	ols := memCell("table1", "ols", "ols", "boston", 0, 1, report.Row{Step: 1, Metric: "rmse", Value: 4.5}, report.Row{Step: 1, Metric: "test_ll", Value: -2.9})
	tb := MakeTable(&report.Results{Metrics: reporttest.Meanings, Cells: []*report.Cell{a, b, ols}}, "table1")
	want := map[string]float64{"0.25x": 51, "1x": 31, "4x": 11}
	for _, lv := range BudgetLevels {
		s := tb.AtBudget[lv.Label]["boston"]["svgd"]["rmse"]
		if !near(s.Mean, want[lv.Label], 1e-12) || !near(s.SD, 1.4142135623730951, 1e-12) || len(s.Values) != 2 {
			t.Errorf("%s: rmse %v ± %v over %d, want %v ± √2 over 2", lv.Label, s.Mean, s.SD, len(s.Values), want[lv.Label])
		}
		if ll := tb.AtBudget[lv.Label]["boston"]["svgd"]["test_ll"]; !near(ll.Mean, -want[lv.Label], 1e-12) {
			t.Errorf("%s: test LL %v, want the selected snapshot's %v", lv.Label, ll.Mean, -want[lv.Label])
		}
		if o := tb.AtBudget[lv.Label]["boston"]["ols"]["rmse"]; o.Mean != 4.5 {
			t.Errorf("%s: ols %v", lv.Label, o.Mean)
		}
	}
	if g := tb.BudgetGradEvals(BudgetLevels[1]); g != 100 {
		t.Errorf("1x budget %d, want 100", g)
	}
	recs, err := csv.NewReader(bytes.NewReader(tb.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "dataset,method,budget,budget_grad_evals,rmse_mean,rmse_sd,test_ll_mean,test_ll_sd,splits,start,start_baseline,rmse_gain_over_start" {
		t.Fatalf("header %v", recs[0])
	}
	got := map[string]bool{}
	for _, r := range recs[1:] {
		got[strings.Join(r, ",")] = true
	}
	for _, w := range []string{
		"boston,svgd,0.25x,25,51,1.4142135623730951,-51,1.4142135623730951,2,model init draws,,",
		"boston,svgd,1x,100,31,1.4142135623730951,-31,1.4142135623730951,2,model init draws,,",
		"boston,svgd,4x,400,11,1.4142135623730951,-11,1.4142135623730951,2,model init draws,,",
		"boston,ols,1x,100,4.5,0,-2.9,0,1,,,",
	} {
		if !got[w] {
			t.Errorf("CSV lacks %q:\n%s", w, tb.CSV())
		}
	}
	if len(recs) != 1+2*3 {
		t.Errorf("%d CSV records, want 7", len(recs))
	}
	md := tb.Markdown()
	for _, want := range []string{"**1x** = 100",
		// The floor is a row of its own, the same at every budget.
		"| boston | ols | – | 4.5 | 4.5 | 4.5 | -2.9 | -2.9 | -2.9 | – | – | – | 1 |",
		"| boston | svgd | model init draws | 51.0 ± 1.4 | 31.0 ± 1.4 | 11.0 ± 1.4 |",
		"- 1x: boston: svgd 31 (OLS 4.5)"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// Claim 1: MMD-FW first in seconds but not in gradient evaluations gives
// the two protocols different verdicts, and the swap table says that the
// cost axis decides.
func TestClaim1Protocols(t *testing.T) {
	cells := splits3(func(s int) *report.Cell {
		e := 0.01 * float64(s)
		return memCell("fig2a", "mmdfw", "mmdfw", "naval", s, 20,
			report.Row{Seconds: 1, GradEvals: 1000, Metric: "rmse", Value: 2 + e}, report.Row{Seconds: 2, GradEvals: 2000, Metric: "rmse", Value: 1 + e})
	})
	cells = append(cells, splits3(func(s int) *report.Cell {
		e := 0.01 * float64(s)
		return memCell("fig2a", "svgd", "svgd", "naval", s, 20,
			report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3 + e}, report.Row{Seconds: 4, GradEvals: 400, Metric: "rmse", Value: 1 + e})
	})...)
	c := claim1(&report.Results{Metrics: reporttest.Meanings, Cells: cells})
	if c.Paper != Supported || c.Verdict != NotSupported {
		t.Errorf("paper %s, fair %s; want supported, not supported\n%s", c.Paper, c.Verdict, c.Markdown())
	}
	if !strings.Contains(c.Difference, "cost axis (compute seconds → gradient evaluations: not supported") {
		t.Errorf("the swap sentence does not name the cost axis: %s", c.Difference)
	}
	// SVGD's final RMSE 1 + e relaxed by 1 %: MMD-FW reaches it at
	// 1.99 s (1,990 gradient evaluations), SVGD at 3.985 s (398.5).
	k := c.Contrasts[0]
	if len(k.Splits) != 3 || !near(k.levels[0], 1.01, 1e-12) || !near(k.aCost[0].secs, 1.99, 1e-9) || !near(k.bCost[0].grads, 398.5, 1e-9) {
		t.Errorf("paper contrast: splits %v, level %v, MMD-FW %+v, SVGD %+v", k.Splits, k.levels, k.aCost, k.bCost)
	}
	// Each protocol is read on both axes: four rows in the verdict table.
	if len(c.Verdicts) != 4 || c.Verdicts[0].Axis != axisSeconds || c.Verdicts[1].Verdict != NotSupported {
		t.Errorf("verdicts %+v", c.Verdicts)
	}
}

// Claim 5 on the seconds axis: per split the budget is the compute seconds
// the SVGD arm took to spend 1× the reference budget (its last snapshot
// within it); the final rule reads MMD-FW's last snapshot within those
// seconds, whatever the development rows say.
func TestClaim5SecondsBudget(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	timed := func(c *report.Cell, secs []float64) *report.Cell {
		for i := range c.Rows {
			c.Rows[i].Seconds = secs[c.Rows[i].Step-1]
		}
		return c
	}
	var cells []*report.Cell
	for split, off := range []float64{0, 1} {
		// SVGD spends 1× (100 gradient evaluations) in 2 s (split 0) or 3 s.
		sv := timed(budgetCell("svgd", "svgd", split, grads, []float64{1, 1, 1, 1, 1}, []float64{9, 8, 7 + off, 6, 5}),
			[]float64{1 + off, 1.5 + off, 2 + off, 3 + off, 4 + off})
		// MMD-FW is slower per gradient: within 2 s (3 s) it has reached
		// its second (third) snapshot.
		fw := timed(budgetCell("mmdfw", "mmdfw", split, grads, []float64{9, 1, 9, 9, 9}, []float64{4, 3, 2, 1, 0.5}),
			[]float64{1, 2, 3, 10, 20})
		cells = append(cells, sv, fw)
	}
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells}
	cs := accuracyContrasts(res, "table1", "boston", "mmdfw", "svgd", paperConfig)
	if len(cs) != 2 {
		t.Fatalf("%d contrasts, want RMSE and test LL", len(cs))
	}
	r := cs[0]
	if len(r.BVal) != 2 || r.BVal[0] != 7 || r.BVal[1] != 8 {
		t.Errorf("SVGD at 1×: %v, want [7 8]", r.BVal)
	}
	if r.AVal[0] != 3 || r.AVal[1] != 2 {
		t.Errorf("MMD-FW within SVGD's seconds: %v, want [3 2] (last snapshots within 2 s and 3 s, not the development-best)", r.AVal)
	}
	if l := cs[1]; l.AVal[0] != -3 || l.AVal[1] != -2 {
		t.Errorf("MMD-FW test LL %v, want [-3 -2]", l.AVal)
	}
	// On the gradient axis with development rows, MMD-FW's dev-best
	// snapshot within 100 (its second: RMSE 3).
	cs = accuracyContrasts(res, "table1", "boston", "mmdfw", "svgd", fairConfig)
	if a := cs[0].AVal; a[0] != 3 || a[1] != 3 {
		t.Errorf("MMD-FW at 1×, development-selected: %v, want [3 3]", a)
	}
}

// Claim 4 compares SP on KSD² as on MMD²: SP worse on MMD² but better on
// KSD² is not supported, at equal N and at equal cost.
func TestClaim4KSD(t *testing.T) {
	cells := spCells(map[string][3]float64{"sp": {10, 1, 100}, "mmdfw": {1, 10, 100}})
	c := claim4(&report.Results{Metrics: reporttest.Meanings, Cells: cells})
	var mmd, ksd int
	for _, k := range c.Contrasts {
		switch {
		case strings.HasPrefix(k.What, "MMD²"):
			mmd++
			if k.Outcome != Better {
				t.Errorf("%s: %s, want better (SP worse)", k.What, k.Outcome)
			}
		case strings.HasPrefix(k.What, "KSD²"):
			ksd++
			if k.Outcome != Worse {
				t.Errorf("%s: %s, want worse (SP better)", k.What, k.Outcome)
			}
		}
	}
	// Two of each per protocol.
	if mmd != 4 || ksd != 4 || c.Verdict != NotSupported || c.Paper != c.Verdict {
		t.Errorf("%d MMD² and %d KSD² contrasts, verdict %s (paper %s)\n%s", mmd, ksd, c.Verdict, c.Paper, c.Markdown())
	}
}

// The floors of Table 1 (kinds ols and constant) are rows of the table and
// the CSV at every budget, and the report lists, per budget and dataset,
// the BNN methods not below OLS's RMSE: never a floor itself.
func TestTableFloors(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	same := []float64{5, 4, 3, 2, 1}
	cells := []*report.Cell{
		// svgd: 6 at ¼×, 4 at 1×, 2 at 4×; mmdfw: 4.5 at ¼× (equal to
		// OLS: not below), 3 after.
		budgetCell("svgd", "svgd", 0, grads, same, []float64{6, 5, 4, 3, 2}),
		budgetCell("mmdfw", "mmdfw", 0, grads, []float64{5, 4, 3, 3, 3}, []float64{4.5, 4, 3, 3, 3}),
		memCell("table1", "least-squares", "ols", "boston", 0, 1, report.Row{Metric: "rmse", Value: 4.5}, report.Row{Metric: "test_ll", Value: -2.9}),
		memCell("table1", "mean", "constant", "boston", 0, 1, report.Row{Metric: "rmse", Value: 9}, report.Row{Metric: "test_ll", Value: -3.6}),
	}
	tb := MakeTable(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "table1")
	nb := tb.NotBelowOLS()
	if got := fmt.Sprint(nb["0.25x"]["boston"], nb["1x"]["boston"], nb["4x"]["boston"]); got != "[mmdfw svgd] [] []" {
		t.Errorf("not below OLS at ¼×, 1×, 4×: %s, want [mmdfw svgd] [] []", got)
	}
	md := tb.Markdown()
	for _, want := range []string{
		"| boston | least-squares | – | 4.5 | 4.5 | 4.5 |",
		"| boston | mean | – | 9 | 9 | 9 | -3.6 | -3.6 | -3.6 | – | – | – | 1 |",
		"- 0.25x: boston: mmdfw 4.5, svgd 6 (OLS 4.5)",
		"- 1x: none",
		"- 4x: none",
		"closed-form floors",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(tb.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	floors := map[string]int{}
	for _, r := range recs[1:] {
		if r[1] == "least-squares" || r[1] == "mean" {
			floors[r[1]]++
			if r[3] == "" || (r[1] == "mean" && (r[4] != "9" || r[6] != "-3.6")) {
				t.Errorf("floor row %v", r)
			}
		}
	}
	if floors["least-squares"] != 3 || floors["mean"] != 3 || len(recs) != 1+4*3 {
		t.Errorf("floor rows %v, %d records; want 3 each, 13\n%s", floors, len(recs), tb.CSV())
	}
	// Without an OLS row there is no list.
	if tb := MakeTable(&report.Results{Metrics: reporttest.Meanings, Cells: cells[:2]}, "table1"); tb.NotBelowOLS() != nil || strings.Contains(tb.Markdown(), "Not below OLS") {
		t.Errorf("a list without an OLS row:\n%s", tb.Markdown())
	}
}
