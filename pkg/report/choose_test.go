package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// ruleCell is a done cell of experiment "tune" whose rows are given as
// step → grad evals and metric values.
func ruleCell(method, kind string, split, n int, settings map[string]any, snaps ...map[string]float64) *Cell {
	var rows []Row
	for _, s := range snaps {
		for m, v := range s {
			if m == "step" || m == "g" {
				continue
			}
			rows = append(rows, Row{Step: int(s["step"]), GradEvals: int64(s["g"]), Metric: m, Value: v})
		}
	}
	c := memCell("tune", method, kind, "covertype", split, n, rows...)
	c.Prov.Settings = settings
	return c
}

// ruleResults are the cells of a tuning experiment with the given rules.
func ruleResults(t harness.MetricTable, cells []*Cell, rules ...harness.Choose) *Results {
	return &Results{Metrics: t, Cells: cells, Declared: map[string]Declaration{"tune": {Role: harness.RoleTuning,
		Metrics: []string{"mmd2", "accuracy", "test_ll"}, Choose: rules}}}
}

// Under cells = "geomean" a method's particle counts make one
// configuration whose split value is the geometric mean of its cells'
// final values; a mean within 1 % of the best ties, and the tie goes to
// fewer gradient evaluations (summed over the cells).
func TestChooseGeomeanTieByCost(t *testing.T) {
	var cells []*Cell
	// Final MMD² at N = 5 and N = 20 per method: a 0.04 and 0.01
	// (geometric mean 0.02), b 0.0402 and 0.01 (0.020050, within 1 %) at
	// half a's cost, c 0.09 and 0.04 (0.06). An earlier snapshot, better
	// everywhere, is not read.
	final := map[string][2]float64{"a": {0.04, 0.01}, "b": {0.0402, 0.01}, "c": {0.09, 0.04}}
	cost := map[string]float64{"a": 100, "b": 50, "c": 10}
	for _, m := range []string{"a", "b", "c"} {
		for sp := 1000; sp <= 1001; sp++ {
			for i, n := range []int{5, 20} {
				cells = append(cells, ruleCell("svgd-"+m, "svgd", sp, n, map[string]any{"step": m},
					map[string]float64{"step": 1, "g": 1, "mmd2": 1e-6, "accuracy": 0.9},
					map[string]float64{"step": 10, "g": cost[m] * float64(n), "mmd2": final[m][i], "accuracy": 0.8}))
			}
		}
	}
	// A kind the rule does not read.
	cells = append(cells, ruleCell("sgld", "sgld", 1000, 5, nil, map[string]float64{"step": 1, "g": 1, "mmd2": 1e-9}))
	rule := harness.Choose{Name: "fig", Kinds: []string{"svgd"}, Metric: "mmd2", Cells: "geomean", TieRelative: 0.01,
		Then: []string{harness.ChooseGradEvals, "accuracy", "mmd2"}}
	g := TuningGrids(ruleResults(reporttest.Meanings, cells, rule), "tune")
	if len(g) != 1 || g[0].Kind != "svgd" || len(g[0].Configs) != 3 || fmt.Sprint(g[0].Splits) != "[1000 1001]" {
		t.Fatalf("grids %+v", g)
	}
	b := g[0].Configs[1]
	if want := math.Sqrt(0.0402 * 0.01); !near(b.Split["mmd2"][1001], want, 1e-12) || !near(b.Stats["mmd2"].Mean, want, 1e-12) {
		t.Errorf("svgd-b mmd2 %v (mean %v), want the geometric mean %v", b.Split["mmd2"], b.Stats["mmd2"].Mean, want)
	}
	if got := b.Stats[harness.ChooseGradEvals].Mean; got != 50*25 {
		t.Errorf("svgd-b gradient evaluations %v, want 1250 (summed over its cells)", got)
	}
	if g[0].Chosen != 1 || !strings.Contains(g[0].Reason, "tied within 1 % of the best mean mmd2: svgd-a, svgd-b") ||
		!strings.Contains(g[0].Reason, "fewer grad_evals keeps svgd-b") {
		t.Errorf("chosen %d (%s), want svgd-b by fewer gradient evaluations", g[0].Chosen, g[0].Reason)
	}
	// Without a tolerance the lowest mean wins outright.
	rule.TieRelative = 0
	g = TuningGrids(ruleResults(reporttest.Meanings, cells, rule), "tune")
	if g[0].Chosen != 0 || g[0].Reason != "" {
		t.Errorf("no tolerance: chosen %d (%s), want svgd-a", g[0].Chosen, g[0].Reason)
	}
}

// With n = 100 a greedy method is read at step 100 of its 200-particle
// cell and another at its 100-particle cell; an absolute tie that cost
// leaves goes to the better accuracy, then to the better metric itself.
func TestChooseSnapshotTieBreaks(t *testing.T) {
	var cells []*Cell
	// test_ll at step 100 (and a better one at 200, not read), accuracy
	// at 100: p −0.3300, 0.85; q −0.3302, 0.85; r −0.3305, 0.84; s −0.34.
	at100 := map[string][2]float64{"p": {-0.3300, 0.85}, "q": {-0.3302, 0.85}, "r": {-0.3305, 0.84}, "s": {-0.34, 0.9}}
	for _, m := range []string{"p", "q", "r", "s"} {
		for sp := 1000; sp <= 1001; sp++ {
			cells = append(cells, ruleCell("mmdfw-"+m, "mmdfw", sp, 200, map[string]any{"noise": m},
				map[string]float64{"step": 50, "g": 50, "test_ll": -1, "accuracy": 0.5},
				map[string]float64{"step": 100, "g": 100, "test_ll": at100[m][0], "accuracy": at100[m][1]},
				map[string]float64{"step": 200, "g": 200, "test_ll": map[string]float64{"p": -0.5, "q": -0.1, "r": -0.5, "s": -0.5}[m], "accuracy": 0.5}))
		}
		// SVGD: the N = 100 cell is read, the N = 50 one is not.
		cells = append(cells, ruleCell("svgd-"+m, "svgd", 1000, 50, map[string]any{"step": m}, map[string]float64{"step": 9, "g": 1, "test_ll": 0, "accuracy": 1}))
		cells = append(cells, ruleCell("svgd-"+m, "svgd", 1000, 100, map[string]any{"step": m}, map[string]float64{"step": 9, "g": 1, "test_ll": at100[m][0] - 0.01, "accuracy": 0.5}))
	}
	rule := harness.Choose{Name: "fig1a", Metric: "test_ll", N: 100, TieAbsolute: 0.001, Then: []string{harness.ChooseGradEvals, "accuracy", "test_ll"}}
	g := TuningGrids(ruleResults(reporttest.Meanings, cells, rule), "tune")
	if len(g) != 2 || g[0].Kind != "mmdfw" || g[1].Kind != "svgd" {
		t.Fatalf("grids %+v", g)
	}
	mm := g[0]
	if mm.Chosen != 0 || mm.Configs[1].Stats["test_ll"].Mean != -0.3302 ||
		mm.Reason != "tied within 0.001 of the best mean test_ll: mmdfw-p, mmdfw-q, mmdfw-r; fewer grad_evals keeps all; better mean accuracy keeps mmdfw-p, mmdfw-q; better mean test_ll keeps mmdfw-p" {
		t.Errorf("mmdfw: chosen %d (%s)", mm.Chosen, mm.Reason)
	}
	sv := g[1]
	if len(sv.Configs) != 4 || sv.Configs[0].N != 100 || fmt.Sprint(sv.Splits) != "[1000]" || sv.Configs[0].Stats["test_ll"].Mean != -0.34 || sv.Chosen != 0 {
		t.Errorf("svgd grid %+v", sv)
	}
	// Direction comes from the registered meaning, not the name: a
	// registry that calls test_ll lower-is-better chooses s.
	flipped := harness.MetricTable{}
	for k, v := range reporttest.Meanings {
		flipped[k] = v
	}
	m := flipped["test_ll"]
	m.Better = harness.LowerBetter
	flipped["test_ll"] = m
	if g := TuningGrids(ruleResults(flipped, cells, rule), "tune"); g[0].Chosen != 3 || g[0].Reason != "" {
		t.Errorf("lower-is-better test_ll: chosen %d (%s), want mmdfw-s", g[0].Chosen, g[0].Reason)
	}
	// A metric without a meaning chooses nothing and says why.
	delete(flipped, "test_ll")
	if g := TuningGrids(ruleResults(flipped, cells, rule), "tune"); g[0].Chosen != -1 || !strings.Contains(g[0].Unranked, "test_ll") {
		t.Errorf("unregistered metric: chosen %d, unranked %q", g[0].Chosen, g[0].Unranked)
	}
	// The report states the rule, the per-split values and the reason.
	var b strings.Builder
	writeTuning(&b, ruleResults(reporttest.Meanings, cells, rule), Options{}, Head{})
	md := b.String()
	for _, want := range []string{
		"**covertype, kind mmdfw, rule fig1a** (4 configurations): best mean test_ll at n = 100",
		"ties go to fewer gradient evaluations, then the better mean accuracy, then the better mean test_ll, then the first in legend order",
		"| configuration | settings that differ | test_ll, split 1000 | test_ll, split 1001 | mean test_ll | mean grad_evals | mean accuracy | chosen |",
		"| mmdfw-q | noise=q | -0.3302 | -0.3302 | -0.3302 | 100 | 0.85 |  |",
		"Chosen by rule fig1a: `mmdfw-p` (noise=p), mean validation test_ll -0.33. Decided by the tie-breaks: tied within 0.001",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// Under across = "datasets", per = "start" and ties = "file-order", each
// dataset ranks the configurations of one start (equal values share the
// mean of their places; a dataset where one lacks the value ranks none of
// them), the smallest mean rank wins per start with ties to the first
// listed in the file, and the per-start choices are ranked against each
// other the same way.
func TestChooseAcrossMeanRankTie(t *testing.T) {
	// RMSE per dataset, split 0 (and 1: the same values, so the split mean
	// is the value). File order: z-model-1, a-model-2, m-trained-1,
	// b-trained-2; legend order sorts by name.
	rmse := map[string]map[string]float64{
		// Model: a, b split the first places, c is equal (1.5 each):
		// mean ranks 1.5 and 1.5, a tie that file order gives to
		// z-model-1 (legend order to a-model-2). d only z-model-1 has.
		"z-model-1": {"a": 1.0, "b": 2.0, "c": 3.0, "d": 7},
		"a-model-2": {"a": 2.0, "b": 1.0, "c": 3.0},
		// Trained: m-trained-1 ranks 1, 2, 1 (4/3), b-trained-2 2, 1, 2.
		"m-trained-1": {"a": 0.5, "b": 0.9, "c": 2.0},
		"b-trained-2": {"a": 0.6, "b": 0.8, "c": 2.5},
	}
	file := []string{"z-model-1", "a-model-2", "m-trained-1", "b-trained-2"}
	var cells []*Cell
	for _, m := range file {
		init := "model"
		if strings.Contains(m, "trained") {
			init = "trained"
		}
		for ds, v := range rmse[m] {
			for sp := 0; sp < 2; sp++ {
				c := memCell("tune", m, "svgd", ds, sp, 20, Row{Step: 1, GradEvals: 10, Metric: "rmse", Value: 9}, Row{Step: 2, GradEvals: 20, Metric: "rmse", Value: v})
				c.Prov.Settings = map[string]any{"init": init, "step": m}
				cells = append(cells, c)
			}
		}
	}
	results := func(r harness.Choose) *Results {
		return &Results{Metrics: reporttest.Meanings, Cells: cells, Declared: map[string]Declaration{"tune": {Role: harness.RoleTuning,
			Metrics: []string{"rmse"}, Choose: []harness.Choose{r}, Methods: file}}}
	}
	rule := harness.Choose{Name: "rank", Metric: "rmse", Across: harness.ChooseAcrossDatasets, Combine: harness.ChooseMeanRank,
		Per: harness.ChoosePerStart, Ties: harness.ChooseFileOrder}
	res := results(rule)
	grids := TuningGrids(res, "tune")
	if len(grids) != 1 || grids[0].Across == nil {
		t.Fatalf("grids %+v, want one across the datasets", grids)
	}
	g := grids[0]
	a := g.Across
	var names []string
	for _, c := range g.Configs {
		names = append(names, c.Method)
	}
	if got := strings.Join(names, " "); got != strings.Join(file, " ") {
		t.Fatalf("configurations %s, want file order", got)
	}
	if got := strings.Join(a.Groups, " "); got != "model trained" {
		t.Errorf("starts %s", got)
	}
	wantMean := []float64{1.5, 1.5, 4.0 / 3, 5.0 / 3}
	for i, w := range wantMean {
		if math.Abs(a.MeanRank[i]-w) > 1e-12 {
			t.Errorf("%s: mean rank %g, want %g (ranks %v)", names[i], a.MeanRank[i], w, a.Rank[i])
		}
	}
	if a.Rank[0]["c"] != 1.5 || a.Rank[1]["c"] != 1.5 {
		t.Errorf("equal values on c: ranks %g and %g, want 1.5 each", a.Rank[0]["c"], a.Rank[1]["c"])
	}
	if _, ok := a.Rank[0]["d"]; ok || a.Value[0]["d"] != 7 {
		t.Errorf("d, which a-model-2 lacks: rank %v, value %v; want no rank, value 7", a.Rank[0], a.Value[0])
	}
	if a.PerGroup[0] != 0 || a.PerGroup[1] != 2 {
		t.Errorf("per-start choices %v, want [0 2]", a.PerGroup)
	}
	if !strings.Contains(a.PerReason[0], "tied between z-model-1, a-model-2; the first listed in the file") || a.PerReason[1] != "" {
		t.Errorf("per-start reasons %q", a.PerReason)
	}
	if g.Chosen != 2 || a.FinalMean[0] != 2 || a.FinalMean[1] != 1 {
		t.Errorf("chosen %d, final mean ranks %v; want m-trained-1 (2) at 1 against 2", g.Chosen, a.FinalMean)
	}
	var b strings.Builder
	writeTuning(&b, res, Options{}, Head{})
	for _, want := range []string{
		"| z-model-1 | init=model, step=z-model-1 | model | 1 (1) | 2 (2) | 1.5 (3) | – (7) | 1.500 | yes |  |",
		"| trained | m-trained-1 | 1 (0.5) | 1 (0.9) | 1 (2) | – | 1.000 | **yes** |",
		"Chosen by rule rank for every dataset: `m-trained-1` (init=trained, step=m-trained-1). Per start: model: `z-model-1` (mean rank 1.5 tied between z-model-1, a-model-2; the first listed in the file); trained: `m-trained-1`.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Tuning section lacks %q:\n%s", want, b.String())
		}
	}
	// Legend order gives the model tie to a-model-2; without per, the
	// four rank together and m-trained-1 wins outright.
	rule.Ties = ""
	g = TuningGrids(results(rule), "tune")[0]
	if c := g.Configs[g.Across.PerGroup[0]].Method; c != "a-model-2" {
		t.Errorf("legend order: model choice %s, want a-model-2", c)
	}
	// A per-dataset rule under which all four tie goes, with ties =
	// "file-order", to z-model-1 on every dataset.
	perDS := harness.Choose{Name: "per-ds", Metric: "rmse", TieAbsolute: 100, Ties: harness.ChooseFileOrder}
	for _, g := range TuningGrids(results(perDS), "tune") {
		if g.Chosen < 0 || g.Configs[g.Chosen].Method != "z-model-1" || len(g.Configs) > 1 && !strings.HasSuffix(g.Reason, "the first listed in the file") {
			t.Errorf("per-dataset rule on %s: chosen %d (%s)", g.Dataset, g.Chosen, g.Reason)
		}
	}
	rule.Per, rule.Ties = "", harness.ChooseFileOrder
	g = TuningGrids(results(rule), "tune")[0]
	if len(g.Across.Groups) != 1 || g.Configs[g.Chosen].Method != "m-trained-1" || g.Across.FinalMean != nil {
		t.Errorf("without per: groups %q, chosen %d", g.Across.Groups, g.Chosen)
	}
}
