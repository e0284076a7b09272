package paper

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// rmseCell is a table1 cell of run budget 400 gradient evaluations
// (reference budget 100) whose snapshots at 25, 50, 100, 200 and 400
// gradient evaluations, 1 s apart, have the given test RMSE, and the same
// development RMSE.
func rmseCell(method, kind string, split int, rmse []float64) *report.Cell {
	grads := []int64{25, 50, 100, 200, 400}
	c := budgetCell(method, kind, split, grads, rmse, rmse)
	for i := range c.Rows {
		c.Rows[i].Seconds = float64(c.Rows[i].Step)
	}
	return c
}

// constantCell is the constant predictor of a table1 split.
func constantCell(split int, rmse float64) *report.Cell {
	return memCell("table1", "constant", "constant", "boston", split, 1, report.Row{Step: 1, Metric: "rmse", Value: rmse}, report.Row{Step: 1, Metric: "test_ll", Value: -4})
}

// A diverged comparator gives no level: where the SVGD arm's value at its
// chosen snapshot is worse than the constant predictor's, that split is
// left out of claim 1 and the row says so; the development-selected
// snapshot of the same run, before it diverged, is a level.
func TestDivergedComparator(t *testing.T) {
	var cells []*report.Cell
	for s := 0; s < 3; s++ {
		last := 1.3
		if s == 0 {
			last = 30 // collapses late, past the constant predictor's 9
		}
		cells = append(cells,
			rmseCell("svgd", "svgd", s, []float64{5, 2, 1.5, 1.2, last}),
			rmseCell("mmdfw", "mmdfw", s, []float64{3, 1.1, 1.1, 1.1, 1.1}),
			constantCell(s, 9))
	}
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells}
	cfg := paperConfig
	cfg.Axis, cfg.Budget = axisGrads, BudgetLevels[2]
	k, ok := costContrast(res, "table1", "boston", "rmse", "mmdfw", "svgd", cfg)
	if !ok || len(k.Splits) != 2 || k.Splits[0] != 1 || !strings.Contains(notesText(&k), "SVGD diverged (worse than the constant predictor of table1) on split 0 (30") {
		t.Errorf("final snapshot at 4×: splits %v, notes %q; want split 0 left out as diverged", k.Splits, notesText(&k))
	}
	if !near(k.levels[0], 1.3*1.01, 1e-12) {
		t.Errorf("level of split 1: %v, want 1.313", k.levels[0])
	}
	cfg.Snap = snapDev
	k, _ = costContrast(res, "table1", "boston", "rmse", "mmdfw", "svgd", cfg)
	if len(k.Splits) != 3 || !near(k.levels[0], 1.2*1.01, 1e-12) || strings.Contains(notesText(&k), "diverged") {
		t.Errorf("development-selected at 4×: splits %v, levels %v, notes %q; want the three splits at level 1.212", k.Splits, k.levels, notesText(&k))
	}
	// Claim 5 leaves the diverged split out too: MMD-FW's 1.1 against a
	// comparator worse than the mean predictor says nothing.
	cs := accuracyContrasts(res, "table1", "boston", "mmdfw", "svgd", cfg.with(snapFinal))
	if len(cs[0].Splits) != 2 || !strings.Contains(notesText(&cs[0]), "SVGD diverged") {
		t.Errorf("claim 5: splits %v, notes %q", cs[0].Splits, notesText(&cs[0]))
	}
	// Diverged everywhere: not computable, and so said.
	for _, c := range cells {
		if c.Prov.Method == "svgd" {
			c.Rows[len(c.Rows)-3].Value = 50 // the last snapshot's RMSE
		}
	}
	k, _ = costContrast(res, "table1", "boston", "rmse", "mmdfw", "svgd", cfg.with(snapFinal))
	if k.Skip != "SVGD diverged on every split" || k.Counted() {
		t.Errorf("diverged everywhere: skip %q", k.Skip)
	}
}

// with returns cfg with the snapshot rule rule.
func (c protocolConfig) with(rule string) protocolConfig { c.Snap = rule; return c }

// A difference the splits share and an unpaired comparison misses: SP is
// worse than MMD-FW by 0.005 on every split, while the splits differ from
// one another by 0.01; the difference of the means is below the pooled
// sd of the arms, but the paired interval lies above the band.
func TestPairedDifferenceUnpairedMisses(t *testing.T) {
	var cells []*report.Cell
	var fw, sp []float64
	for s := 1; s <= 5; s++ {
		base := 0.84 + 0.01*float64(s%3) + 0.002*float64(s)
		d := 0.005 + 0.0003*float64(s%2)
		fw, sp = append(fw, base), append(sp, base-d)
		for _, a := range []struct {
			m, k string
			v    float64
		}{{"mmdfw", "mmdfw", base}, {"sp", "sp", base - d}} {
			c := memCell("fig1a", a.m, a.k, "covertype", s, 100,
				report.Row{Step: 1, GradEvals: 100, Metric: "accuracy", Value: a.v - 0.01}, report.Row{Step: 100, GradEvals: 10000, Metric: "accuracy", Value: a.v})
			if a.k == "sp" {
				withSettings(c, map[string]any{"map": true})
			}
			cells = append(cells, c)
		}
	}
	mf, sf := report.MeanSD(fw)
	ms, ss := report.MeanSD(sp)
	if pooled := math.Sqrt((sf*sf + ss*ss) / 2); mf-ms >= pooled {
		t.Fatalf("fixture: the unpaired difference %v is not below the pooled sd %v", mf-ms, pooled)
	}
	k, ok := spContrast(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1a", "covertype", "accuracy", "mmdfw", "sp", false)
	if !ok || k.Outcome != Better || k.Stats.Pos != 5 || !(k.Stats.Lo > AccuracyBand) {
		t.Errorf("paired: %s, interval [%v, %v], %d+; want better (SP worse) on all 5", k.Outcome, k.Stats.Lo, k.Stats.Hi, k.Stats.Pos)
	}
}

// A contrast whose arms start differently is shown and not counted, and a
// claim whose contrasts all are cannot be decided; on the seconds axis a
// different run setting of the timed cells confounds it too.
func TestConfoundedContrast(t *testing.T) {
	build := func(fwStart string, jobs int) []*report.Cell {
		var cells []*report.Cell
		for s := 0; s < 3; s++ {
			e := 0.01 * float64(s)
			fw := withSettings(rmseCell("mmdfw-trained", "mmdfw", s, []float64{1 + e, 1 + e, 1 + e, 1 + e, 1 + e}), map[string]any{"start": fwStart})
			sv := withSettings(rmseCell("svgd", "svgd", s, []float64{3, 2, 1.5 + e, 1.4, 1.3}), map[string]any{"init": "model"})
			for _, c := range []*report.Cell{fw, sv} {
				c.Prov.KeyDoc.Timed, c.Prov.Jobs, c.Prov.Threads = true, 1, 2
			}
			fw.Prov.Jobs, fw.Prov.Threads = jobs, 2/jobs
			cells = append(cells, fw, sv)
		}
		return cells
	}
	c := claim5(&report.Results{Metrics: reporttest.Meanings, Cells: build("trained", 1)})
	if c.Verdict != CannotDecide || !strings.Contains(c.Why, "differ in start in 2 of 2") {
		t.Errorf("trained start: %s (%s), want cannot decide: start", c.Verdict, c.Why)
	}
	for _, k := range c.Contrasts {
		if k.Counted() || len(k.Confounds) != 1 || k.Confounds[0] != "start: trained network vs model init draws" {
			t.Errorf("contrast %s: confounds %v", k.What, k.Confounds)
		}
		if k.Outcome != Better {
			t.Errorf("contrast %s: %s; the numbers are still computed and shown", k.What, k.Outcome)
		}
	}
	// The same start: counted and supported on both axes.
	c = claim5(&report.Results{Metrics: reporttest.Meanings, Cells: build("model", 1)})
	if c.Verdict != Supported || c.Paper != Supported {
		t.Errorf("model start: fair %s (%s), paper %s (%s)", c.Verdict, c.Why, c.Paper, c.PaperWhy)
	}
	// MMD-FW run two at a time, SVGD one at a time: the seconds axis is
	// confounded by the timing, the gradient axis is not.
	c = claim5(&report.Results{Metrics: reporttest.Meanings, Cells: build("model", 2)})
	for _, v := range c.Verdicts {
		want := Supported
		if v.Axis == axisSeconds {
			want = CannotDecide
		}
		if v.Verdict != want {
			t.Errorf("%s on %s: %s (%s), want %s", v.Protocol, v.Axis, v.Verdict, v.Why, want)
		}
	}
}

// The claim-2 labels are the run's: an unset weight rule on a Gaussian
// target ran BQ with the exact z, elsewhere Stein weights; BQ without a z
// draws an SGLD pool (an HMC pool when asked).
func TestResolveMMDFW(t *testing.T) {
	cell := func(settings map[string]any, ref string) *report.Cell {
		c := memCell("rff", "m", "mmdfw", "ds", 1, 10)
		c.Prov.Settings = settings
		c.Summary = map[string]any{"reference": map[string]any{"kind": ref}}
		return c
	}
	for _, tc := range []struct {
		settings map[string]any
		ref      string
		want     MMDFWRun
	}{
		{map[string]any{"start": "map", "raw_weights": true}, "exact", MMDFWRun{Weights: "bq", Z: "exact", Kernel: "RBF", Direction: "self", Score: "full-data"}},
		{map[string]any{"kernel": "rff", "features": 50.0}, "exact", MMDFWRun{Weights: "bq", Z: "exact", Kernel: "RFF, D = 50", Direction: "self", Score: "full-data"}},
		{map[string]any{"start": "map"}, "hmc", MMDFWRun{Weights: "stein", Kernel: "RBF", Direction: "self", Score: "full-data"}},
		{map[string]any{"weights": "bq", "batch": 100.0}, "hmc", MMDFWRun{Weights: "bq", Z: "SGLD pool", Kernel: "RBF", Direction: "self", Score: "minibatch of 100 rows"}},
		{map[string]any{"weights": "bq", "z": "pool", "pool_sampler": "hmc"}, "hmc", MMDFWRun{Weights: "bq", Z: "HMC pool", Kernel: "RBF", Direction: "self", Score: "full-data"}},
		{map[string]any{"weights": "equal", "kernel": "rff"}, "exact", MMDFWRun{Weights: "equal", Z: "exact", Kernel: "RFF, D = 200", Direction: "self", Score: "full-data"}},
		{map[string]any{"direction": "exact", "weights": "bq", "z": "exact"}, "exact", MMDFWRun{Weights: "bq", Z: "exact", Kernel: "RBF", Direction: "exact", Score: "full-data"}},
	} {
		got, ok := ResolveMMDFW(cell(tc.settings, tc.ref))
		if !ok || got != tc.want {
			t.Errorf("%v on %s: %+v, want %+v", tc.settings, tc.ref, got, tc.want)
		}
	}
	if w := (MMDFWRun{Weights: "equal", Z: "exact"}).WeightsText(); w != "equal" {
		t.Errorf("equal weights with a z: %q, want equal (the z is not used)", w)
	}
}

// A tree of one split (the quick profile) says in its verdict table that
// its numbers decide nothing, and decides nothing.
func TestOneSplitDecidesNothing(t *testing.T) {
	var cells []*report.Cell
	cells = append(cells, rmseCell("mmdfw", "mmdfw", 0, []float64{3, 1, 1, 1, 1}), rmseCell("svgd", "svgd", 0, []float64{5, 4, 3, 2, 1}))
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells}
	for _, c := range cells {
		c.Prov.Profile = "quick"
	}
	var b bytes.Buffer
	if err := report.Write(&b, res, report.Options{Figures: "figures", Plugins: withPaper}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**These results come from one split per contrast (the quick profile): their numbers show that the pipeline works and decide nothing.**") {
		t.Error("the report does not say that one split decides nothing")
	}
	// Every verdict of the table and of the claims' sections reads "one
	// split: no verdict", whatever the rule would say, and no value is
	// given as ± 0.
	out := b.String()
	for _, bad := range []string{"**" + string(NotSupported) + "**", "**" + string(Supported) + "**", "**" + string(CannotDecide) + "**", " ± 0 ", " ± 0|"} {
		if strings.Contains(out, bad) {
			t.Errorf("a one-split report prints %q", bad)
		}
	}
	if n := strings.Count(out, noVerdict); n < 4 {
		t.Errorf("%q printed %d times, want every verdict", noVerdict, n)
	}
	for _, c := range []Claim{claim1(res), claim5(res)} {
		for _, v := range c.Verdicts {
			if v.Verdict != CannotDecide || !strings.Contains(v.Why, "one split") {
				t.Errorf("claim %d %s %s: %s (%s)", c.Number, v.Protocol, v.Axis, v.Verdict, v.Why)
			}
		}
	}
}

// An arm that never reaches the level is given its whole run's cost, a
// bound in its favour: that cannot make it faster. Never reaching it on
// any split is worse when its whole run cost more than the other's cost to
// the level; when its whole run cost less, the bound decides nothing: the
// contrast is inconclusive, not worse, and each such split is excluded
// from the pooled estimate as a bound.
func TestCensoredCost(t *testing.T) {
	build := func(reachOn map[int]bool, runGrads int64) []*report.Cell {
		var cells []*report.Cell
		for s := 0; s < 3; s++ {
			e := 0.01 * float64(s)
			end := 2.0 // stops short of SVGD's 1.01
			if reachOn[s] {
				end = 0.5
			}
			cells = append(cells,
				memCell("fig2a", "mmdfw", "mmdfw", "naval", s, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3 + e}, report.Row{Seconds: 2, GradEvals: runGrads, Metric: "rmse", Value: end}),
				memCell("fig2a", "svgd", "svgd", "naval", s, 20, report.Row{Seconds: 1, GradEvals: 1000, Metric: "rmse", Value: 3 + e}, report.Row{Seconds: 40, GradEvals: 40000, Metric: "rmse", Value: 1}))
		}
		return cells
	}
	// MMD-FW's whole run (200) is cheaper than SVGD's cost to the level
	// (about 40,000): a bound, inconclusive.
	k, _ := costContrast(&report.Results{Metrics: reporttest.Meanings, Cells: build(nil, 200)}, "fig2a", "naval", "rmse", "mmdfw", "svgd", fairConfig)
	if k.Outcome != Inconclusive || !(k.Stats.Lo > math.Log(CostBand)) {
		t.Errorf("never reached in a cheaper run: %s with interval [%v, %v]; want inconclusive", k.Outcome, k.Stats.Lo, k.Stats.Hi)
	}
	for i := range k.D {
		if !strings.HasPrefix(k.ExcludedAt(i), ExclBound) {
			t.Errorf("split %d: excluded %q, want a bound", k.Splits[i], k.ExcludedAt(i))
		}
	}
	// Its whole run (80,000) costs more than SVGD's cost to the level:
	// worse.
	k, _ = costContrast(&report.Results{Metrics: reporttest.Meanings, Cells: build(nil, 80000)}, "fig2a", "naval", "rmse", "mmdfw", "svgd", fairConfig)
	if k.Outcome != Worse || !(k.Stats.Hi < -math.Log(CostBand)) || k.ExcludedAt(0) != "" {
		t.Errorf("never reached in a dearer run: %s with interval [%v, %v], excluded %q; want worse, kept", k.Outcome, k.Stats.Lo, k.Stats.Hi, k.ExcludedAt(0))
	}
	k, _ = costContrast(&report.Results{Metrics: reporttest.Meanings, Cells: build(map[int]bool{0: true, 1: true}, 200)}, "fig2a", "naval", "rmse", "mmdfw", "svgd", fairConfig)
	if k.Outcome != Inconclusive || !strings.Contains(notesText(&k), "never reaches the level on split 2") {
		t.Errorf("never reached on split 2: %s, notes %q; want inconclusive", k.Outcome, notesText(&k))
	}
	k, _ = costContrast(&report.Results{Metrics: reporttest.Meanings, Cells: build(map[int]bool{0: true, 1: true, 2: true}, 200)}, "fig2a", "naval", "rmse", "mmdfw", "svgd", fairConfig)
	if k.Outcome != Better {
		t.Errorf("reached on every split: %s", k.Outcome)
	}
}

// The swap table finds the factor that decides: here the MMD-FW arm (the
// paper's is slow, the fair one fast, both from the same start), and the
// sentence and the outcome paragraph say so.
func TestSwapTableNamesTheArm(t *testing.T) {
	var cells []*report.Cell
	for s := 0; s < 3; s++ {
		e := 0.01 * float64(s)
		cells = append(cells,
			rmseCell("mmdfw", "mmdfw", s, []float64{9, 8, 7 + e, 6, 5}),
			rmseCell("mmdfw-fast", "mmdfw", s, []float64{1 + e, 1 + e, 1 + e, 1 + e, 1 + e}),
			rmseCell("svgd", "svgd", s, []float64{5, 3, 2 + e, 1.5, 1.2}))
	}
	res := declare(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "table1", map[string][]string{harness.ProtocolPaper: {"mmdfw", "svgd"}, harness.ProtocolFair: {"mmdfw-fast"}})
	claims := []Claim{claim1(res), claim5(res)}
	for _, c := range claims {
		if c.Paper != NotSupported || c.Verdict != Supported {
			t.Errorf("claim %d: paper %s (%s), fair %s (%s)", c.Number, c.Paper, c.PaperWhy, c.Verdict, c.Why)
		}
		if !strings.Contains(c.Difference, "From the paper's protocol (not supported; 0 better, 2 worse, 0 inconclusive), the verdict changes with the MMD-FW arm (the paper's MMD-FW arm → the fair MMD-FW arm: supported") &&
			!strings.Contains(c.Difference, "the verdict changes with the MMD-FW arm (the paper's MMD-FW arm → the fair MMD-FW arm: supported") {
			t.Errorf("claim %d: difference %q does not name the arm", c.Number, c.Difference)
		}
		if strings.Contains(c.Difference, "cost axis (") {
			t.Errorf("claim %d: the cost axis is named as deciding: %q", c.Number, c.Difference)
		}
	}
	if o := TallyOutcome(claims); !strings.Contains(o, "for claim 1: only the MMD-FW arm (not supported → supported)") {
		t.Errorf("outcome paragraph: %s", o)
	}
}

// When the splits of an arm share no time (one ends before another
// begins) there is no common grid: claim 1 still compares the arm split by split.
func TestEmptyCommonGrid(t *testing.T) {
	var cells []*report.Cell
	for s, t0 := range []float64{0.1, 0.6} {
		cells = append(cells,
			memCell("fig1a", "mmdfw", "mmdfw", "covertype", s, 100,
				report.Row{Step: 1, Seconds: t0, GradEvals: 1000, Metric: "accuracy", Value: 0.84}, report.Row{Step: 2, Seconds: t0 + 0.2, GradEvals: 1200, Metric: "accuracy", Value: 0.85}),
			withSettings(memCell("fig1a", "svgd", "svgd", "covertype", s, 100,
				report.Row{Step: 1, Seconds: 0.2, GradEvals: 500, Metric: "accuracy", Value: 0.6}, report.Row{Step: 2, Seconds: 2, GradEvals: 5000, Metric: "accuracy", Value: 0.85}),
				map[string]any{"init": "laplace"}))
	}
	ss := report.TimeSeries(cells, "covertype", "accuracy")
	if len(ss) != 2 || !ss[0].Disjoint || len(ss[0].SplitX) != 2 || len(ss[0].X) != 0 || ss[1].Disjoint {
		t.Fatalf("series %+v", ss)
	}
	k, ok := costContrast(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig1a", "covertype", "accuracy", "mmdfw", "svgd", paperConfig)
	if !ok || len(k.Splits) != 2 || k.Skip != "" {
		t.Errorf("claim 1 on the disjoint arm: %+v", k)
	}
}
