package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

// budgetCell is a table1 cell of run budget 400 gradient evaluations
// (reference budget 100: ¼× = 25, 1× = 100, 4× = 400) with snapshots at
// the given gradient counts and their dev and test RMSE.
func budgetCell(method, kind string, split int, grads []int64, dev, test []float64) *Cell {
	var rows []Row
	for i, g := range grads {
		rows = append(rows,
			Row{Step: i + 1, GradEvals: g, Metric: "rmse", Value: test[i]},
			Row{Step: i + 1, GradEvals: g, Metric: "test_ll", Value: -test[i]},
			Row{Step: i + 1, GradEvals: g, Metric: "dev_rmse", Value: dev[i]},
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
	ols := memCell("table1", "ols", "ols", "boston", 0, 1, Row{Step: 1, Metric: "rmse", Value: 4.5}, Row{Step: 1, Metric: "test_ll", Value: -2.9})
	tb := MakeTable(&Results{Cells: []*Cell{a, b, ols}}, "table1")
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
	if strings.Join(recs[0], ",") != "dataset,method,budget,budget_grad_evals,rmse_mean,rmse_sd,test_ll_mean,test_ll_sd,splits" {
		t.Fatalf("header %v", recs[0])
	}
	got := map[string]bool{}
	for _, r := range recs[1:] {
		got[strings.Join(r, ",")] = true
	}
	for _, w := range []string{
		"boston,svgd,0.25x,25,51,1.4142135623730951,-51,1.4142135623730951,2",
		"boston,svgd,1x,100,31,1.4142135623730951,-31,1.4142135623730951,2",
		"boston,svgd,4x,400,11,1.4142135623730951,-11,1.4142135623730951,2",
		"boston,ols,1x,100,4.5,0,-2.9,0,1",
	} {
		if !got[w] {
			t.Errorf("CSV lacks %q:\n%s", w, tb.CSV())
		}
	}
	if len(recs) != 1+2*3 {
		t.Errorf("%d CSV records, want 7", len(recs))
	}
	if md := tb.Markdown(); !strings.Contains(md, "**1x** (100 gradient evaluations)") {
		t.Errorf("Markdown:\n%s", md)
	}
}
