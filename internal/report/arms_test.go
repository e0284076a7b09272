package report

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/harness"
)

// declare returns res with the arms of experiment id declared: arms maps
// a protocol to its methods.
func declare(res *Results, id string, arms map[string][]string) *Results {
	if res.Declared == nil {
		res.Declared = map[string]Declaration{}
	}
	res.Declared[id] = Declaration{Arms: arms}
	return res
}

// Claim 1 reads the declared arms: the paper's MMD-FW arm is the declared
// one, not the first by name, and the fair protocol's SVGD arms are the
// declared SVGD methods only.
func TestClaim1DeclaredArms(t *testing.T) {
	cells := func() []*Cell {
		return []*Cell{
			memCell("fig2a", "mmdfw", "mmdfw", "naval", 0, 20,
				Row{Seconds: 1, GradEvals: 1000, Metric: "rmse", Value: 2}, Row{Seconds: 8, GradEvals: 8000, Metric: "rmse", Value: 1}),
			memCell("fig2a", "mmdfw-fast", "mmdfw", "naval", 0, 20,
				Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 2}, Row{Seconds: 2, GradEvals: 200, Metric: "rmse", Value: 1}),
			memCell("fig2a", "svgd", "svgd", "naval", 0, 20,
				Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3}, Row{Seconds: 4, GradEvals: 400, Metric: "rmse", Value: 1}),
			memCell("fig2a", "svgd-x", "svgd", "naval", 0, 20,
				Row{Seconds: 0.5, GradEvals: 50, Metric: "rmse", Value: 1}, Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 0.5}),
		}
	}
	// Undeclared: the first by name (the slow mmdfw) against svgd, and in
	// gradient evaluations against both SVGD arms.
	c := claim1(&Results{Metrics: testMeanings, Cells: cells()})
	if c.Paper != NotSupported || c.Verdict != NotSupported {
		t.Errorf("undeclared: paper %s, fair %s\n%s", c.Paper, c.Verdict, c.Markdown())
	}
	if !strings.Contains(c.Markdown(), "| fair | fig2a | naval | rmse | mmdfw | svgd-x |") {
		t.Errorf("undeclared: the fair protocol lacks the second SVGD arm\n%s", c.Markdown())
	}
	res := declare(&Results{Metrics: testMeanings, Cells: cells()}, "fig2a", map[string][]string{
		harness.ProtocolPaper: {"mmdfw-fast", "svgd"},
		harness.ProtocolFair:  {"mmdfw-fast"},
	})
	c = claim1(res)
	if c.Paper != Supported || c.Verdict != Supported {
		t.Errorf("declared: paper %s, fair %s, want supported twice\n%s", c.Paper, c.Verdict, c.Markdown())
	}
	for _, r := range c.Rows {
		if r[4] != "mmdfw-fast" || r[5] != "svgd" {
			t.Errorf("declared: row %v compares %s with %s, want mmdfw-fast with svgd", r, r[4], r[5])
		}
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
	cells := []*Cell{
		budgetCell("mmdfw", "mmdfw", 0, grads, []float64{5, 3, 4, 1, 2}, []float64{5, 3, 4, 1, 2}),
		budgetCell("mmdfw-stein", "mmdfw", 0, grads, []float64{5, 4, 2, 1, 2}, []float64{5, 4, 1.5, 1, 2}),
		budgetCell("svgd", "svgd", 0, grads, []float64{5, 4, 3, 2, 1}, []float64{5, 4, 3.02, 2, 1}),
		budgetCell("svgd-tuned", "svgd", 0, grads, []float64{5, 4, 2, 2, 1}, []float64{5, 4, 2, 2, 1}),
		budgetCell("svgd-other", "svgd", 0, grads, []float64{5, 4, 1, 2, 1}, []float64{5, 4, 1, 2, 1}),
	}
	if c := claim5(&Results{Metrics: testMeanings, Cells: cells}); c.Verdict != NotSupported {
		t.Errorf("undeclared: fair %s, want %s (mmdfw against every SVGD arm)\n%s", c.Verdict, NotSupported, c.Markdown())
	}
	res := declare(&Results{Metrics: testMeanings, Cells: cells}, "table1", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd"},
		harness.ProtocolFair:  {"mmdfw-stein", "svgd-tuned"},
	})
	c := claim5(res)
	if c.Verdict != Supported || c.Paper != Supported {
		t.Errorf("declared: fair %s, paper %s; want supported under both (the paper's arms within SVGD's seconds: 2 against 3.02)\n%s", c.Verdict, c.Paper, c.Markdown())
	}
	md := c.Markdown()
	for _, want := range []string{"| fair | boston | mmdfw-stein | svgd |", "| fair | boston | mmdfw-stein | svgd-tuned |"} {
		if !strings.Contains(md, want) {
			t.Errorf("declared: no row %q\n%s", want, md)
		}
	}
	if strings.Contains(md, "svgd-other") || len(c.Rows) != 3 {
		t.Errorf("declared: an undeclared arm or a wrong number of rows\n%s", md)
	}
}

// Claim 3 counts each protocol's arms and says which protocols count a
// row.
func TestClaim3DeclaredArms(t *testing.T) {
	var cells []*Cell
	for _, m := range []struct {
		name string
		v    float64
	}{{"mmdfw", 1}, {"mmdfw-b", 1e-3}} {
		var rows []Row
		for n := 1; n <= 20; n++ {
			rows = append(rows, Row{Step: n, Metric: "mmd2", Value: m.v / float64(n)})
		}
		cells = append(cells, memCell("fig1b", m.name, "mmdfw", "covertype", 1, 20, rows...))
	}
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
	if len(c.Rows) != 4 {
		t.Fatalf("undeclared: %d rows, want 4\n%s", len(c.Rows), c.Markdown())
	}
	for _, r := range c.Rows {
		want := "fair"
		if r[1] == "svgd" {
			want = "paper, fair"
		}
		if r[6] != "mmdfw" || r[7] != want {
			t.Errorf("undeclared: row %v, want MMD-FW arm mmdfw counted by %s", r, want)
		}
	}
	// The paper's MMD-FW arm declared: mmdfw-b, better than every SVGD
	// arm; the fair protocol keeps the first by name.
	c = claim3(declare(&Results{Metrics: testMeanings, Cells: cells}, "fig1b", map[string][]string{harness.ProtocolPaper: {"mmdfw-b"}}))
	if len(c.Rows) != 6 || c.Paper != NotSupported || !strings.Contains(c.PaperWhy, "0 of 2") || !strings.Contains(c.Why, "2 of 4") {
		t.Errorf("declared: %d rows, paper %s (%s), fair %s (%s)\n%s", len(c.Rows), c.Paper, c.PaperWhy, c.Verdict, c.Why, c.Markdown())
	}
	for _, r := range c.Rows {
		if (r[6] == "mmdfw-b") != (r[7] == "paper") {
			t.Errorf("declared: row %v", r)
		}
	}
}

// Claim 4 under declared arms: each protocol compares its own SP arm, so
// different declarations give different verdicts, and the report says
// why.
func TestClaim4DeclaredArms(t *testing.T) {
	greedy := func(method, kind string, mmd float64) *Cell {
		var rows []Row
		for n := 1; n <= 3; n++ {
			rows = append(rows, Row{Step: n, Metric: "mmd2", Value: mmd / float64(n)})
		}
		return memCell("fig1b", method, kind, "covertype", 1, 3, rows...)
	}
	cells := []*Cell{greedy("sp", "sp", 10), greedy("sp-map", "sp", 0.1), greedy("mmdfw", "mmdfw", 1), greedy("svgd", "svgd", 1)}
	c := claim4(&Results{Metrics: testMeanings, Cells: cells})
	if c.Verdict != Supported || c.Paper != Supported || c.Difference != "" {
		t.Errorf("undeclared: fair %s, paper %s (sp is the first by name)\n%s", c.Verdict, c.Paper, c.Markdown())
	}
	c = claim4(declare(&Results{Metrics: testMeanings, Cells: cells}, "fig1b", map[string][]string{harness.ProtocolPaper: {"sp-map"}, harness.ProtocolFair: {"sp"}}))
	if c.Verdict != Supported || c.Paper != NotSupported || c.Difference == "" || len(c.Rows) != 4 {
		t.Errorf("declared: fair %s, paper %s, difference %q, %d rows\n%s", c.Verdict, c.Paper, c.Difference, len(c.Rows), c.Markdown())
	}
}
