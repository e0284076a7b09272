package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
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
	tb := MakeTable(&Results{Metrics: testMeanings, Cells: []*Cell{a, b, ols}}, "table1")
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
	md := tb.Markdown()
	for _, want := range []string{"**1x** = 100",
		// The floor is a row of its own, the same at every budget.
		"| boston | ols | 4.5 ± 0 | 4.5 ± 0 | 4.5 ± 0 | -2.9 ± 0 | -2.9 ± 0 | -2.9 ± 0 | 1 |",
		"| boston | svgd | 51.0 ± 1.4 | 31.0 ± 1.4 | 11.0 ± 1.4 |",
		"- 1x: boston: svgd 31 (OLS 4.5)"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// Claim 5 under budgets: the fair protocol judges 1× the reference budget
// against every SVGD arm; the paper's protocol reads the final snapshots
// within the seconds SVGD took for 1× (all 0 here: MMD-FW's last snapshot,
// RMSE 2, against SVGD's 3.02 at 1×).
func TestClaim5Protocols(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	fw := budgetCell("mmdfw", "mmdfw", 0, grads, []float64{5, 3, 4, 1, 2}, []float64{5, 3.0, 4, 1, 2})
	ref := budgetCell("svgd", "svgd", 0, grads, []float64{5, 4, 3, 2, 1}, []float64{5, 4, 3.02, 2, 1})
	tuned := budgetCell("svgd-tuned", "svgd", 0, grads, []float64{5, 4, 2, 2, 1}, []float64{5, 4, 2, 2, 1})
	// At 1× (100): MMD-FW's dev-best snapshot has test RMSE 3.0, LL −3.0;
	// the reference arm's 3.02 (level 3.02 + 1% = 3.05), the tuned arm's 2
	// (level 2.02).
	c := claim5(&Results{Metrics: testMeanings, Cells: []*Cell{fw, ref}})
	if c.Verdict != Supported || c.Paper != Supported || c.Difference != "" {
		t.Errorf("reference arm only: fair %s, paper %s, difference %q\n%s", c.Verdict, c.Paper, c.Difference, c.Markdown())
	}
	c = claim5(&Results{Metrics: testMeanings, Cells: []*Cell{fw, ref, tuned}})
	if c.Verdict != NotSupported {
		t.Errorf("with the tuned arm: fair %s, want %s\n%s", c.Verdict, NotSupported, c.Markdown())
	}
	if !strings.Contains(c.Markdown(), "| fair | boston | mmdfw | svgd-tuned |") {
		t.Errorf("no tuned-arm row:\n%s", c.Markdown())
	}
}

// Claim 1: MMD-FW first in seconds but not in gradient evaluations gives
// the two protocols different verdicts, and the report says why.
func TestClaim1Protocols(t *testing.T) {
	fw := memCell("fig2a", "mmdfw", "mmdfw", "naval", 0, 20,
		Row{Seconds: 1, GradEvals: 1000, Metric: "rmse", Value: 2}, Row{Seconds: 2, GradEvals: 2000, Metric: "rmse", Value: 1})
	sv := memCell("fig2a", "svgd", "svgd", "naval", 0, 20,
		Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3}, Row{Seconds: 4, GradEvals: 400, Metric: "rmse", Value: 1})
	c := claim1(&Results{Metrics: testMeanings, Cells: []*Cell{fw, sv}})
	if c.Paper != Supported || c.Verdict != NotSupported || c.Difference == "" {
		t.Errorf("paper %s, fair %s, difference %q; want supported, not supported and a reason\n%s", c.Paper, c.Verdict, c.Difference, c.Markdown())
	}
	// SVGD's final RMSE 1 relaxed by 1%: MMD-FW reaches 1.01 at 1.99 s, SVGD at 3.985 s.
	for _, r := range c.Rows {
		if r[0] == "paper" && (r[6] != "1.01" || r[10] != "yes") {
			t.Errorf("paper row %v", r)
		}
		if r[0] == "fair" && r[10] != "no" {
			t.Errorf("fair row %v", r)
		}
	}
}

// Claim 4 compares SP on KSD² as on MMD²: SP worse on MMD² but better on
// KSD² is not "SP worse in every comparison".
func TestClaim4KSD(t *testing.T) {
	greedy := func(method, kind string, mmd, ksd float64) *Cell {
		var rows []Row
		for n := 1; n <= 3; n++ {
			rows = append(rows, Row{Step: n, Metric: "mmd2", Value: mmd / float64(n)}, Row{Step: n, Metric: "ksd2", Value: ksd / float64(n)})
		}
		return memCell("fig1b", method, kind, "covertype", 1, 3, rows...)
	}
	sp := greedy("sp", "sp", 10, 1)
	fw := greedy("mmdfw", "mmdfw", 1, 10)
	c := claim4(&Results{Metrics: testMeanings, Cells: []*Cell{sp, fw}})
	var mmd, ksd int
	for _, r := range c.Rows {
		switch {
		case strings.Contains(r[2], "MMD²"):
			mmd++
			if r[5] != "yes" {
				t.Errorf("MMD² row %v: SP is worse", r)
			}
		case strings.Contains(r[2], "KSD²"):
			ksd++
			if r[5] != "no" {
				t.Errorf("KSD² row %v: SP is better", r)
			}
		}
	}
	if mmd != 1 || ksd != 1 || c.Verdict != NotSupported || c.Paper != c.Verdict {
		t.Errorf("%d MMD² and %d KSD² rows, verdict %s (paper %s)\n%s", mmd, ksd, c.Verdict, c.Paper, c.Markdown())
	}
}

// Claim 3 under the fair protocol compares MMD-FW with every SVGD arm; the
// paper's protocol with the first only.
func TestClaim3Arms(t *testing.T) {
	var cells []*Cell
	var rows []Row
	for n := 1; n <= 20; n++ {
		rows = append(rows, Row{Step: n, Metric: "mmd2", Value: 1 / float64(n)})
	}
	cells = append(cells, memCell("fig1b", "mmdfw", "mmdfw", "covertype", 1, 20, rows...))
	// The reference arm is worse than MMD-FW at N = 10 and 20; the tuned
	// arm better at both.
	for _, a := range []struct {
		method string
		v      float64
	}{{"svgd", 0.5}, {"svgd-tuned", 0.01}} {
		for _, n := range []int{10, 20} {
			c := memCell("fig1b", a.method, "svgd", "covertype", 1, n, Row{Step: 100, Metric: "mmd2", Value: a.v})
			c.Prov.Cell += "/n" + strings.Repeat("x", n)
			cells = append(cells, c)
		}
	}
	c := claim3(&Results{Metrics: testMeanings, Cells: cells})
	if c.Paper != NotSupported || c.Verdict != NotSupported || len(c.Rows) != 4 {
		t.Errorf("paper %s, fair %s, %d rows; want not supported (0 of 2), not supported (2 of 4), 4 rows\n%s", c.Paper, c.Verdict, len(c.Rows), c.Markdown())
	}
	if !strings.Contains(c.Why, "2 of 4") || !strings.Contains(c.PaperWhy, "0 of 2") {
		t.Errorf("why %q; paper %q", c.Why, c.PaperWhy)
	}
	// Without the reference arm the tuned arm alone decides both.
	c = claim3(&Results{Metrics: testMeanings, Cells: append(cells[:1:1], cells[3:]...)})
	if c.Paper != Supported || c.Verdict != Supported {
		t.Errorf("tuned arm only: paper %s, fair %s\n%s", c.Paper, c.Verdict, c.Markdown())
	}
}

// The floors of Table 1 (kinds ols and constant) are rows of the table and
// the CSV at every budget, and the report lists, per budget and dataset,
// the BNN methods not below OLS's RMSE: never a floor itself.
func TestTableFloors(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	same := []float64{5, 4, 3, 2, 1}
	cells := []*Cell{
		// svgd: 6 at ¼×, 4 at 1×, 2 at 4×; mmdfw: 4.5 at ¼× (equal to
		// OLS: not below), 3 after.
		budgetCell("svgd", "svgd", 0, grads, same, []float64{6, 5, 4, 3, 2}),
		budgetCell("mmdfw", "mmdfw", 0, grads, []float64{5, 4, 3, 3, 3}, []float64{4.5, 4, 3, 3, 3}),
		memCell("table1", "least-squares", "ols", "boston", 0, 1, Row{Metric: "rmse", Value: 4.5}, Row{Metric: "test_ll", Value: -2.9}),
		memCell("table1", "mean", "constant", "boston", 0, 1, Row{Metric: "rmse", Value: 9}, Row{Metric: "test_ll", Value: -3.6}),
	}
	tb := MakeTable(&Results{Metrics: testMeanings, Cells: cells}, "table1")
	nb := tb.NotBelowOLS()
	if got := fmt.Sprint(nb["0.25x"]["boston"], nb["1x"]["boston"], nb["4x"]["boston"]); got != "[mmdfw svgd] [] []" {
		t.Errorf("not below OLS at ¼×, 1×, 4×: %s, want [mmdfw svgd] [] []", got)
	}
	md := tb.Markdown()
	for _, want := range []string{
		"| boston | least-squares | 4.5 ± 0 | 4.5 ± 0 | 4.5 ± 0 |",
		"| boston | mean | 9 ± 0 | 9 ± 0 | 9 ± 0 | -3.6 ± 0 | -3.6 ± 0 | -3.6 ± 0 | 1 |",
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
	if tb := MakeTable(&Results{Metrics: testMeanings, Cells: cells[:2]}, "table1"); tb.NotBelowOLS() != nil || strings.Contains(tb.Markdown(), "Not below OLS") {
		t.Errorf("a list without an OLS row:\n%s", tb.Markdown())
	}
}

// The paper's protocol from budgeted runs: per split, the wall-clock budget
// is the seconds the SVGD arm took to spend 1× the reference budget; both
// methods report their last snapshot within it, whatever the development
// rows say.
func TestWallClockStats(t *testing.T) {
	grads := []int64{25, 50, 100, 200, 400}
	timed := func(c *Cell, secs []float64) *Cell {
		for i := range c.Rows {
			c.Rows[i].Seconds = secs[c.Rows[i].Step-1]
		}
		return c
	}
	var cells []*Cell
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
	st := WallClockStats(cells, []string{"boston"}, []string{"rmse", "test_ll"}, "mmdfw", "svgd")
	if got := st["boston"]["svgd"]["rmse"].Values; len(got) != 2 || got[0] != 7 || got[1] != 8 {
		t.Errorf("SVGD at 1×: %v, want [7 8]", got)
	}
	if got := st["boston"]["mmdfw"]["rmse"].Values; len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Errorf("MMD-FW within SVGD's seconds: %v, want [3 2] (last snapshots within 2 s and 3 s, not the development-best)", got)
	}
	if m := st["boston"]["mmdfw"]["test_ll"].Mean; m != -2.5 {
		t.Errorf("MMD-FW test LL mean %g, want -2.5", m)
	}
}
