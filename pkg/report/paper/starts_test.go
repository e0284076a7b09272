package paper

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// The start classes of SVGD from a trained network and of the start-only
// baselines.
func TestStartOfTrainedAndBaselines(t *testing.T) {
	for _, tc := range []struct {
		kind, key, value, class string
	}{
		{"svgd", "init", "trained", startTrained},
		{"svgd", "init", "model", startModel},
		{"mmdfw", "start", "trained", startTrained},
		{"mmdfw", "start", "model", startModel},
		{"start", "start", "trained", startTrained},
		{"start", "start", "ensemble", startTrained},
		{"start", "start", "map", startMAP},
		{"start", "start", "laplace", startMAP},
		{"start", "start", "prior", startPrior},
		{"sgld", "init", "map", startMAP},
		{"sgld", "init", "prior", startPrior},
		{"sgld", "init", "laplace", startMAP},
		{"mmdfw", "start", "prior", startPrior},
		{"svgd", "init", "laplace", startMAP},
	} {
		c := withSettings(memCell("table1", "m", tc.kind, "boston", 0, 1), map[string]any{tc.key: tc.value})
		if _, cl := StartOf(c, true); cl != tc.class {
			t.Errorf("%s %s = %q: class %q, want %q", tc.kind, tc.key, tc.value, cl, tc.class)
		}
	}
}

// startArm is one arm of the fixture: method, kind, start setting and the
// RMSE it reports on split 0 (split s: × (1 + 0.1 s)).
type startArm struct {
	method, kind, key, start string
	rmse                     float64
}

// startCells returns Table 1 cells of the arms on three splits: every
// snapshot reports the arm's RMSE (dev and test alike, test LL its
// negative), a start-only baseline one snapshot at 25 gradient
// evaluations.
func startCells(arms []startArm) []*report.Cell {
	var cells []*report.Cell
	for _, a := range arms {
		cells = append(cells, splits3(func(s int) *report.Cell {
			k := a.rmse * (1 + 0.1*float64(s))
			grads := []int64{25, 50, 100, 200, 400}
			if a.kind == "start" {
				grads = grads[:1]
			}
			v := make([]float64, len(grads))
			for i := range v {
				v[i] = k
			}
			return withSettings(budgetCell(a.method, a.kind, s, grads, v, v), map[string]any{a.key: a.start})
		})...)
	}
	return cells
}

// The fixture: at each start (the network's initialisation, a trained
// network) an MMD-FW and an SVGD arm as accurate as each other, the
// trained ones three times as accurate as the others; the trained
// network alone a little worse than the trained arms, a deep ensemble
// better than them.
var startFixture = []startArm{
	{"mmdfw", "mmdfw", "start", "model", 3},
	{"mmdfw-model-tuned", "mmdfw", "start", "model", 3},
	{"mmdfw-trained", "mmdfw", "start", "trained", 1},
	{"svgd", "svgd", "init", "model", 3},
	{"svgd-model-tuned", "svgd", "init", "model", 3},
	{"svgd-trained", "svgd", "init", "trained", 1},
	{"start-trained", "start", "start", "trained", 1.2},
	{"start-ensemble", "start", "start", "ensemble", 0.9},
}

func startResults(arms []startArm) *report.Results {
	return declare(&report.Results{Metrics: reporttest.Meanings, Cells: startCells(arms)}, "table1", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd"},
		harness.ProtocolFair:  {"mmdfw-model-tuned", "mmdfw-trained", "svgd-model-tuned", "svgd-trained"},
	})
}

// A contrast between arms of the same start counts; one across starts is
// shown and takes no part in the verdict, although it goes against the
// claim (mmdfw-model-tuned against svgd-trained: three times the RMSE).
func TestSameStartCountedAcrossStartsNot(t *testing.T) {
	c := claim5(startResults(startFixture))
	if c.Verdict != Supported {
		t.Fatalf("fair: %s (%s), want supported from the same-start contrasts\n%s", c.Verdict, c.Why, c.Markdown())
	}
	var across, same, worseAcross int
	for i := range c.Contrasts {
		k := &c.Contrasts[i]
		if k.A.Method == "mmdfw" {
			continue // the paper's
		}
		if k.AcrossStarts() {
			across++
			if k.Counted() || !strings.Contains(k.OutcomeText(), "not counted") {
				t.Errorf("%s vs %s across starts: counted %v, outcome %q", k.A.Method, k.B.Method, k.Counted(), k.OutcomeText())
			}
			if k.Outcome == Worse {
				worseAcross++
			}
			continue
		}
		same++
		if !k.Counted() || k.Outcome != Better {
			t.Errorf("%s vs %s same start: counted %v, outcome %s", k.A.Method, k.B.Method, k.Counted(), k.Outcome)
		}
	}
	// Fair: two MMD-FW arms × three SVGD arms (the paper's is read too) ×
	// RMSE and test LL: 2·2 same-start pairs, 1·2 + 1·1 across (model
	// MMD-FW against trained SVGD; trained MMD-FW against two model SVGD).
	if same != 2*3 || across != 2*3 || worseAcross == 0 {
		t.Errorf("same-start %d, across %d (worse %d); want 6, 6 and some worse across", same, across, worseAcross)
	}
	for _, v := range c.Verdicts {
		if v.Protocol == fair && v.Axis == axisGrads && (v.Tally.AcrossStarts != 6 || v.Tally.Worse != 0) {
			t.Errorf("fair tally %+v: want 6 across starts, none worse", v.Tally)
		}
	}
	// Every pair across starts: the evidence cannot decide.
	only := startResults([]startArm{startFixture[1], startFixture[5]})
	only.Declared["table1"] = report.Declaration{Arms: map[string][]string{harness.ProtocolFair: {"mmdfw-model-tuned", "svgd-trained"}}}
	if c := claim5(only); c.Verdict != CannotDecide || !strings.Contains(c.Why, "differ in start") {
		t.Errorf("across starts only: %s (%s), want cannot decide: start", c.Verdict, c.Why)
	}
}

// Each arm against its start alone: the trained arms (RMSE 1) beat the
// trained network alone (1.2) by 1.2× and lose to the deep ensemble
// (0.9); an arm that does not beat its start alone is named.
func TestGainOverStart(t *testing.T) {
	res := startResults(startFixture)
	gs := gainContrasts(res, []struct{ id, metric string }{{"table1", "rmse"}}, fairConfig)
	got := map[[2]string]*Contrast{}
	for i := range gs {
		got[[2]string{gs[i].A.Method, gs[i].B.Method}] = &gs[i]
	}
	for _, tc := range []struct {
		arm, base string
		ratio     float64
		out       Outcome
	}{
		{"mmdfw-trained", "start-trained", 1.2, Better},
		{"svgd-trained", "start-trained", 1.2, Better},
		{"mmdfw-trained", "start-ensemble", 0.9, Worse},
	} {
		k := got[[2]string{tc.arm, tc.base}]
		if k == nil {
			t.Fatalf("no gain contrast of %s over %s in %v", tc.arm, tc.base, got)
		}
		if r := math.Exp(k.Stats.Mean); math.Abs(r-tc.ratio) > 1e-12 || k.Outcome != tc.out || k.Stats.N != 3 || !k.Counted() {
			t.Errorf("%s over %s: ratio %v over %d splits, %s (counted %v); want %v, %s", tc.arm, tc.base, r, k.Stats.N, k.Outcome, k.Counted(), tc.ratio, tc.out)
		}
	}
	// The start-only baselines are of the trained class: the arms from the
	// network's initialisation have none.
	for p := range got {
		if strings.Contains(p[0], "model") {
			t.Errorf("a gain contrast of %s, which has no start-only baseline of its class", p[0])
		}
	}
	// Worse than its start alone: the trained network alone at 0.9.
	arms := append([]startArm(nil), startFixture...)
	arms[6].rmse = 0.9
	c := claim5(startResults(arms))
	if !strings.Contains(c.StartGain, "mmdfw-trained (trained network) does not beat its start alone (start-trained) on 1 of 1 datasets") {
		t.Errorf("start gain sentence: %s", c.StartGain)
	}
	if !strings.Contains(c.Markdown(), "Gain over its start") || !strings.Contains(c.Markdown(), "worse than its start alone") {
		t.Errorf("claim 5 has no gain table:\n%s", c.Markdown())
	}
	if c := claim5(startResults(startFixture[:6])); !strings.Contains(c.StartGain, "not measured") {
		t.Errorf("without baselines: %q", c.StartGain)
	}
}

// The swap table changes the start: from the paper's protocol (the
// model-init arms), the trained arms; without a trained SVGD arm that row
// is not computable.
func TestSwapStartRow(t *testing.T) {
	row := func(c Claim, from, value string) *SwapRow {
		for i, r := range c.Swaps {
			if r.From == from && r.Factor == "start" && strings.HasSuffix(r.Value, value) {
				return &c.Swaps[i]
			}
		}
		return nil
	}
	c := claim5(startResults(startFixture))
	r := row(c, paper, "the arms that start from the trained network")
	if r == nil || r.Tally.Better != 2 || r.Tally.Counted() != 2 {
		t.Fatalf("paper → trained start: %+v\n%s", r, c.Markdown())
	}
	if r := row(c, fair, "the arms that start from the model init"); r == nil || r.Tally.AcrossStarts != 0 || r.Tally.Counted() != 4 {
		t.Errorf("fair → model init start: %+v", r)
	}
	var noSVGD []startArm
	for _, a := range startFixture {
		if a.method != "svgd-trained" {
			noSVGD = append(noSVGD, a)
		}
	}
	c = claim5(startResults(noSVGD))
	if r := row(c, paper, "the arms that start from the trained network"); r == nil || r.Verdict != NotMeasured || r.Tally.NotComputable != 2 {
		t.Errorf("paper → trained start without a trained SVGD arm: %+v", r)
	}
	if c := claim1(startResults(startFixture)); row(c, paper, "the arms that start from the trained network") == nil {
		t.Errorf("claim 1 has no start row:\n%s", c.Markdown())
	}
}

// Table 1 gives every arm with its start, the start-only baselines among
// them, and each method's gain over its start alone at each budget.
func TestTable1StartRows(t *testing.T) {
	tb := MakeTable(startResults(startFixture), "table1")
	md := tb.Markdown()
	for _, want := range []string{
		"| start |",
		"| boston | start-trained | trained network alone |",
		"| boston | start-ensemble | deep ensemble of trained networks |",
		"| boston | svgd-trained | draws around a trained network |",
		"| 1.2 [1.2, 1.2] vs start-trained |",
		"RMSE gain over its start alone 1x",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Table 1 lacks %q:\n%s", want, md)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(tb.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs[1:] {
		if r[1] == "mmdfw-trained" && r[2] == "1x" {
			found = true
			if r[9] != "trained network" || r[10] != "start-trained" || math.Abs(atof(r[11])-1.2) > 1e-12 {
				t.Errorf("CSV row %v: want start trained network, baseline start-trained, gain 1.2", r)
			}
		}
		if r[1] == "mmdfw-model-tuned" && r[11] != "" {
			t.Errorf("CSV row %v: a gain without a baseline of its start", r)
		}
	}
	if !found {
		t.Errorf("CSV has no mmdfw-trained 1x row:\n%s", tb.CSV())
	}
}

// Which start validation chose: per tuning experiment and kind, the start
// of the chosen configuration on each dataset, and the starts offered.
func TestChosenStarts(t *testing.T) {
	cell := func(method, ds, init string, split int, rmse float64) *report.Cell {
		c := memCell("tune", method, "svgd", ds, split, 20, report.Row{Step: 1, GradEvals: 10, Metric: "rmse", Value: rmse})
		return withSettings(c, map[string]any{"init": init})
	}
	var cells []*report.Cell
	for s := 0; s < 2; s++ {
		cells = append(cells,
			cell("svgd-model", "boston", "model", s, 3), cell("svgd-trained", "boston", "trained", s, 2),
			cell("svgd-model", "yacht", "model", s, 1), cell("svgd-trained", "yacht", "trained", s, 2))
	}
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells, Declared: map[string]report.Declaration{"tune": {Role: harness.RoleTuning, Metrics: []string{"rmse"}}}}
	got := strings.Join(chosenStarts(res), " ")
	want := "tune, kind svgd: offered model init draws and draws around a trained network; chosen draws around a trained network on 1 (boston); model init draws on 1 (yacht)."
	if got != want {
		t.Errorf("chosen starts:\n%s\nwant\n%s", got, want)
	}
}

// accuracyCell is a fig1a cell on Covertype: accuracy acc on split s
// (× (1 + 0.001 s)) at each of grads, a start-only baseline one snapshot.
func accuracyCell(method, kind, key, start string, s int, acc float64) *report.Cell {
	grads := []int64{25, 50, 100}
	if kind == "start" {
		grads = grads[:1]
	}
	var rows []report.Row
	for i, g := range grads {
		rows = append(rows, report.Row{Step: i + 1, GradEvals: g, Metric: "accuracy", Value: acc * (1 + 0.001*float64(s))})
	}
	return withSettings(memCell("fig1a", method, kind, "covertype", s, 100, rows...), map[string]any{key: start})
}

// On Covertype each arm pairs with the start-only baselines of its class:
// SVGD from the prior with the prior draws alone, SVGD from Laplace draws
// and MMD-FW from the MAP with the MAP alone (first) and the Laplace draws;
// no arm is set against a baseline of another start. Accuracy gains are
// arm − baseline (0.01 here), outside the band of 0.001.
func TestGainOverStartCovertype(t *testing.T) {
	arms := []struct {
		method, kind, key, start string
		acc                      float64
	}{
		{"mmdfw", "mmdfw", "start", "map", 0.75},
		{"svgd", "svgd", "init", "prior", 0.70},
		{"svgd-tuned", "svgd", "init", "laplace", 0.75},
		{"start-map", "start", "start", "map", 0.74},
		{"start-laplace", "start", "start", "laplace", 0.76},
		{"start-prior", "start", "start", "prior", 0.50},
	}
	var cells []*report.Cell
	for _, a := range arms {
		cells = append(cells, splits3(func(s int) *report.Cell { return accuracyCell(a.method, a.kind, a.key, a.start, s, a.acc) })...)
	}
	res := declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1a", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd"},
		harness.ProtocolFair:  {"mmdfw", "svgd", "svgd-tuned"},
	})
	gs := gainContrasts(res, []struct{ id, metric string }{{"fig1a", "accuracy"}}, fairConfig)
	got := map[[2]string]*Contrast{}
	for i := range gs {
		got[[2]string{gs[i].A.Method, gs[i].B.Method}] = &gs[i]
	}
	want := map[[2]string]Outcome{
		{"mmdfw", "start-map"}:          Better,
		{"mmdfw", "start-laplace"}:      Worse,
		{"svgd-tuned", "start-map"}:     Better,
		{"svgd-tuned", "start-laplace"}: Worse,
		{"svgd", "start-prior"}:         Better,
	}
	if len(got) != len(want) {
		t.Errorf("%d gain contrasts, want %d: %v", len(got), len(want), got)
	}
	for p, out := range want {
		k := got[p]
		if k == nil {
			t.Errorf("no gain contrast of %s over %s", p[0], p[1])
			continue
		}
		if k.Stats.N != 3 || k.AcrossStarts() || !k.Counted() || k.Outcome != out {
			t.Errorf("%s over %s: %d splits, across starts %v, counted %v, %s; want 3, false, true, %s", p[0], p[1], k.Stats.N, k.AcrossStarts(), k.Counted(), k.Outcome, out)
		}
		if p == [2]string{"svgd", "start-prior"} && math.Abs(k.Stats.Mean-(0.70-0.50)*(1+0.001)) > 1e-12 {
			t.Errorf("svgd over start-prior: mean gain %v, want 0.2002", k.Stats.Mean)
		}
	}
	// The first baseline of the MAP class is the MAP alone.
	if bs := startBaselines(res, "fig1a", "covertype", startMAP); len(bs) != 2 || bs[0] != "start-map" {
		t.Errorf("MAP-class baselines %v, want start-map first", bs)
	}
}

// mmdCell is a fig1b cell on Covertype, split s, N particles: MMD² v
// (× (1 + 0.01 s)) at its final snapshot, or, for a greedy arm (steps),
// v·10/step at each step 1 … 10.
func mmdCell(method, kind, key, start string, s, n int, v float64, greedy bool) *report.Cell {
	f := 1 + 0.01*float64(s)
	var rows []report.Row
	if greedy {
		for st := 1; st <= 10; st++ {
			rows = append(rows, report.Row{Step: st, GradEvals: int64(100 * st), Metric: "mmd2", Value: v * 10 / float64(st) * f})
		}
	} else {
		rows = []report.Row{{Step: 1, GradEvals: 100, Metric: "mmd2", Value: v * f}}
	}
	return withSettings(memCell("fig1b", method, kind, "covertype", s, n, rows...), map[string]any{key: start})
}

// Claim 3's gain over the start on fig1b: each arm at each SVGD particle
// count against the baselines of its class, the MAP alone at every N.
func TestMMDGainOverStart(t *testing.T) {
	var cells []*report.Cell
	for s := 0; s < 3; s++ {
		cells = append(cells,
			mmdCell("mmdfw", "mmdfw", "start", "map", s, 10, 0.1, true), // 0.2 at step 5, 0.1 at 10
			mmdCell("start-map", "start", "start", "map", s, 1, 1, false))
		for _, n := range []int{5, 10} {
			cells = append(cells,
				mmdCell("svgd", "svgd", "init", "prior", s, n, 0.5, false),
				mmdCell("svgd-tuned", "svgd", "init", "laplace", s, n, 0.5, false),
				mmdCell("start-laplace", "start", "start", "laplace", s, n, 0.4, false),
				mmdCell("start-prior", "start", "start", "prior", s, n, 1, false))
		}
	}
	res := declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1b", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd"},
		harness.ProtocolFair:  {"mmdfw", "svgd", "svgd-tuned"},
	})
	type key struct {
		arm, base, what string
	}
	got := map[key]*Contrast{}
	gs := mmdGainContrasts(res, fairConfig)
	for i := range gs {
		got[key{gs[i].A.Method, gs[i].B.Method, gs[i].What}] = &gs[i]
	}
	for _, tc := range []struct {
		k     key
		ratio float64
		out   Outcome
	}{
		{key{"mmdfw", "start-map", "MMD² at N = 5"}, 5, Better},
		{key{"mmdfw", "start-map", "MMD² at N = 10"}, 10, Better},
		{key{"mmdfw", "start-laplace", "MMD² at N = 5"}, 2, Better},
		{key{"svgd", "start-prior", "MMD² at N = 10"}, 2, Better},
		{key{"svgd-tuned", "start-map", "MMD² at N = 5"}, 2, Better},
		{key{"svgd-tuned", "start-laplace", "MMD² at N = 10"}, 0.8, Worse},
	} {
		k := got[tc.k]
		if k == nil {
			t.Errorf("no contrast %v", tc.k)
			continue
		}
		if r := math.Exp(k.Stats.Mean); math.Abs(r-tc.ratio) > 1e-9 || k.Outcome != tc.out || k.Stats.N != 3 || k.AcrossStarts() {
			t.Errorf("%v: ratio %v, %s over %d splits (across starts %v); want %v, %s, 3, false", tc.k, r, k.Outcome, k.Stats.N, k.AcrossStarts(), tc.ratio, tc.out)
		}
	}
	// Three arms; mmdfw and svgd-tuned against two baselines, svgd against
	// one; two particle counts each.
	if len(gs) != (2+2+1)*2 {
		t.Errorf("%d gain contrasts, want 10: %v", len(gs), got)
	}
	c := claim3(res)
	if !strings.Contains(c.StartGain, "svgd-tuned (Laplace draws at the MAP) beats its start alone (start-map) on all 2 comparisons") {
		t.Errorf("claim 3 start gain sentence: %s", c.StartGain)
	}
	if !strings.Contains(c.Markdown(), "Gain over its start") {
		t.Errorf("claim 3 has no gain table:\n%s", c.Markdown())
	}
}

// withTestLL adds to an accuracy cell a test LL row per accuracy row, of
// value accuracy − 1 (test LL gains equal the accuracy gains).
func withTestLL(c *report.Cell) *report.Cell {
	for _, r := range c.Metric("accuracy") {
		r.Metric, r.Value = "test_ll", r.Value-1
		c.Rows = append(c.Rows, r)
	}
	return c
}

// spSGLDResults is a fig1a and fig1b fixture on Covertype with the Stein
// Points and SGLD arms beside MMD-FW and SVGD: SP from its own candidate
// search (the paper's; no start-only baseline), SP from the MAP
// (undeclared: read beside the paper's arms; sp-tuned: the fair one), SGLD
// from the prior (paper) and from the MAP (fair).
func spSGLDResults() *report.Results {
	arms := []struct {
		method, kind, key, start string
		acc                      float64
	}{
		{"mmdfw", "mmdfw", "start", "map", 0.75},
		{"svgd", "svgd", "init", "prior", 0.70},
		{"sp-original", "sp", "nelder_mead_evals", "", 0.60},
		{"sp", "sp", "map", "true", 0.80},
		{"sp-tuned", "sp", "map", "true", 0.73},
		{"sgld", "sgld", "init", "prior", 0.72},
		{"sgld-tuned", "sgld", "init", "map", 0.76},
		{"start-map", "start", "start", "map", 0.74},
		{"start-laplace", "start", "start", "laplace", 0.76},
		{"start-prior", "start", "start", "prior", 0.50},
	}
	var cells []*report.Cell
	for _, a := range arms {
		cells = append(cells, splits3(func(s int) *report.Cell { return withTestLL(accuracyCell(a.method, a.kind, a.key, a.start, s, a.acc)) })...)
	}
	for s := 0; s < 3; s++ {
		cells = append(cells,
			mmdCell("mmdfw", "mmdfw", "start", "map", s, 10, 0.1, true),
			mmdCell("sp-original", "sp", "nelder_mead_evals", "", s, 10, 0.1, true),
			mmdCell("sp", "sp", "map", "true", s, 10, 0.5, true),        // 1 at step 5, 0.5 at 10
			mmdCell("sp-tuned", "sp", "map", "true", s, 10, 0.05, true), // 0.1 at step 5, 0.05 at 10
			mmdCell("start-map", "start", "start", "map", s, 1, 1, false))
		for _, n := range []int{5, 10} {
			cells = append(cells, mmdCell("svgd", "svgd", "init", "prior", s, n, 0.5, false))
		}
	}
	res := declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1a", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd", "sp-original", "sgld"},
		harness.ProtocolFair:  {"mmdfw", "svgd", "sp-tuned", "sgld-tuned"},
	})
	return declare(res, "fig1b", map[string][]string{
		harness.ProtocolPaper: {"mmdfw", "svgd", "sp-original"},
		harness.ProtocolFair:  {"mmdfw", "svgd", "sp-tuned"},
	})
}

// The Stein Points and SGLD arms are set against the start-only baselines
// of their own start class on fig1a (accuracy and test LL) and fig1b (MMD²
// at each N); SP from its own search has none, and a row says so.
func TestGainOverStartSPSGLD(t *testing.T) {
	res := spSGLDResults()
	type key struct{ proto, arm, base, what string }
	got := map[key]*Contrast{}
	for _, p := range []string{paper, fair} {
		gs := append(gainContrasts(res, []struct{ id, metric string }{{"fig1a", "accuracy"}}, protocolConfigs[p]), mmdGainContrasts(res, protocolConfigs[p])...)
		for i := range gs {
			w, _, _ := strings.Cut(gs[i].What, ",")
			got[key{p, gs[i].A.Method, gs[i].B.Method, w}] = &gs[i]
		}
	}
	for _, tc := range []struct {
		k    key
		gain float64 // mean over splits: arm − baseline, or ln(baseline/arm) for MMD²
		out  Outcome
	}{
		{key{paper, "sgld", "start-prior", "accuracy"}, (0.72 - 0.50) * 1.001, Better},
		{key{paper, "sgld", "start-prior", "test LL"}, (0.72 - 0.50) * 1.001, Better},
		{key{paper, "sp", "start-map", "accuracy"}, (0.80 - 0.74) * 1.001, Better},
		{key{paper, "sp", "start-laplace", "accuracy"}, (0.80 - 0.76) * 1.001, Better},
		{key{paper, "sp", "start-map", "MMD² at N = 5"}, 0, Inconclusive},
		{key{paper, "sp", "start-map", "MMD² at N = 10"}, math.Log(2), Better},
		{key{fair, "sp-tuned", "start-map", "accuracy"}, (0.73 - 0.74) * 1.001, Worse},
		{key{fair, "sp-tuned", "start-map", "test LL"}, (0.73 - 0.74) * 1.001, Inconclusive},
		{key{fair, "sp-tuned", "start-map", "MMD² at N = 10"}, math.Log(20), Better},
		{key{fair, "sgld-tuned", "start-map", "accuracy"}, (0.76 - 0.74) * 1.001, Better},
		{key{fair, "sgld-tuned", "start-laplace", "accuracy"}, 0, Inconclusive},
	} {
		k := got[tc.k]
		if k == nil {
			t.Errorf("no gain contrast %v", tc.k)
			continue
		}
		if k.Skip != "" || k.Stats.N != 3 || k.AcrossStarts() || math.Abs(k.Stats.Mean-tc.gain) > 1e-9 || k.Outcome != tc.out {
			t.Errorf("%v: skip %q, %d splits, across starts %v, mean %v, %s; want 3 splits, same start, %v, %s",
				tc.k, k.Skip, k.Stats.N, k.AcrossStarts(), k.Stats.Mean, k.Outcome, tc.gain, tc.out)
		}
	}
	// SP from its own search: one row per figure and metric, not
	// computable, naming the start that has no baseline.
	for _, w := range []string{"accuracy", "test LL", "MMD² at each N"} {
		k := got[key{paper, "sp-original", "–", w}]
		if k == nil || !strings.Contains(gainText(k), "no start-only baseline of its start (own candidate search)") {
			t.Errorf("sp-original %s: %v, want a row saying its start has no baseline", w, k)
		}
	}
	// No arm is set against a baseline of another class, and the fair
	// protocol does not read the paper's SP and SGLD arms.
	for k, c := range got {
		if c.B.Method != "–" && c.A.StartClass != c.B.StartClass {
			t.Errorf("%v across start classes: %s vs %s", k, c.A.StartClass, c.B.StartClass)
		}
		if k.proto == fair && (k.arm == "sp" || k.arm == "sp-original" || k.arm == "sgld") {
			t.Errorf("fair protocol reads %s", k.arm)
		}
	}
	// The tables of claims 1 and 3 list the new rows; claim 4 says what SP
	// gains over the MAP alone.
	c1, c3 := claim1(res), claim3(res)
	if md := c1.Markdown(); !strings.Contains(md, "covertype, test LL") || !strings.Contains(md, "sgld-tuned (MAP)") || !strings.Contains(md, "no start-only baseline of its start (own candidate search)") {
		t.Errorf("claim 1's gain table lacks the SGLD or SP rows:\n%s", md)
	}
	if md := c3.Markdown(); !strings.Contains(md, "sp-tuned (MAP)") {
		t.Errorf("claim 3's gain table lacks the SP rows:\n%s", md)
	}
	c := claim4(res)
	for _, want := range []string{
		"Paper's protocol: sp (MAP) does not beat its start alone (start-map) on 1 of 4 comparisons (dataset, metric and particle count)",
		"Fair protocol: sp-tuned (MAP) does not beat its start alone (start-map) on 2 of 4",
		"no start-only baseline of the start of sp-original (own candidate search) is recorded",
	} {
		if !strings.Contains(c.StartGain, want) {
			t.Errorf("claim 4 start gain lacks %q:\n%s", want, c.StartGain)
		}
	}
}
