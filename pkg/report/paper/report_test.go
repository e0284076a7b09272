package paper

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// costToLevel reads one cell's own snapshots: the crossing is interpolated
// between the two snapshots around it, on both axes at once; a cell that
// never reaches the level returns its last snapshot's cost, unreached.
func TestCostToLevel(t *testing.T) {
	c := memCell("fig2a", "svgd", "svgd", "naval", 0, 20,
		report.Row{Step: 0, Seconds: 0, GradEvals: 0, Metric: "rmse", Value: 5},
		report.Row{Step: 1, Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 4},
		report.Row{Step: 2, Seconds: 3, GradEvals: 300, Metric: "rmse", Value: 2})
	// 3 is half-way from 4 to 2: 2 s, 200 gradient evaluations.
	if k := costToLevel(c, "rmse", 3, false); !k.reached || !near(k.secs, 2, 1e-12) || !near(k.grads, 200, 1e-12) {
		t.Errorf("cost to 3: %+v, want 2 s, 200, reached", k)
	}
	// Reached at the first snapshot (cost 0): the first positive cost, so
	// that a ratio of costs is defined.
	if k := costToLevel(c, "rmse", 6, false); !k.reached || k.secs != 1 || k.grads != 100 {
		t.Errorf("cost to 6: %+v, want the first positive cost", k)
	}
	if k := costToLevel(c, "rmse", 1, false); k.reached || k.secs != 3 || k.grads != 300 {
		t.Errorf("cost to 1: %+v, want the last snapshot, unreached", k)
	}
	// An accuracy is reached from below.
	a := memCell("fig1a", "svgd", "svgd", "covertype", 1, 20,
		report.Row{Step: 1, Seconds: 1, GradEvals: 10, Metric: "accuracy", Value: 0.5}, report.Row{Step: 2, Seconds: 2, GradEvals: 20, Metric: "accuracy", Value: 0.9})
	if k := costToLevel(a, "accuracy", 0.8, true); !k.reached || !near(k.grads, 17.5, 1e-12) {
		t.Errorf("accuracy cost: %+v, want 17.5", k)
	}
}

// Level relaxes by 1 % of the error: an RMSE upwards, an accuracy's error
// rate, a log-likelihood by 1 % of its size.
func TestLevel(t *testing.T) {
	if l := Level(reporttest.Meanings["rmse"], 3); !near(l, 3.03, 1e-14) {
		t.Errorf("RMSE level %v, want 3.03", l)
	}
	if l := Level(reporttest.Meanings["accuracy"], 0.85); !near(l, 1-0.15*1.01, 1e-14) {
		t.Errorf("accuracy level %v, want 0.8485", l)
	}
	if l := Level(reporttest.Meanings["test_ll"], -2); !near(l, -2.02, 1e-14) {
		t.Errorf("test LL level %v, want -2.02", l)
	}
}

func TestTable1Hand(t *testing.T) {
	tb := MakeTable(goodTree(t), "table1")
	if got := strings.Join(tb.Datasets, ","); got != "boston,concrete,year" {
		t.Fatalf("datasets %s", got)
	}
	for ds, byM := range reporttest.Table1Final {
		for m, fins := range byM {
			for j, metric := range Table1Metrics {
				var v []float64
				var sum float64
				for _, f := range fins {
					v = append(v, f[j])
					sum += f[j]
				}
				mean := sum / 3
				var ss float64
				for _, x := range v {
					ss += (x - mean) * (x - mean)
				}
				sd := math.Sqrt(ss / 2)
				got := tb.Stats[ds][m][metric]
				if !near(got.Mean, mean, 1e-12) || !near(got.SD, sd, 1e-12) || len(got.Values) != 3 {
					t.Errorf("%s %s %s: %v ± %v over %d; want %v ± %v over 3", ds, m, metric, got.Mean, got.SD, len(got.Values), mean, sd)
				}
			}
		}
	}
	md := tb.Markdown()
	for _, s := range []string{"Wall-clock budget per cell: 10 s", "| Boston housing | mmdfw | 3.20 ± 0.20 | -2.60 ± 0.10 | 3 |", "| Boston housing | svgd | 3.30 ± 0.20 |",
		"| year |", "skipped: data missing: year-prediction-MSD is not downloaded"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(tb.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Two datasets × two methods, one "final" row each (a wall-clock run).
	if len(recs) != 1+2*2 || strings.Join(recs[0], ",") != strings.Join(CSVHeader, ",") {
		t.Fatalf("CSV has %d records (header %v), want 5", len(recs), recs[0])
	}
	for _, r := range recs[1:] {
		if r[0] == "concrete" && r[1] == "mmdfw" {
			if r[2] != "final" || r[3] != "" || r[4] != "5.2" || !near(atof(r[5]), 0.2, 1e-12) || r[8] != "3" {
				t.Errorf("concrete mmdfw row %v; want final, rmse 5.2 ± 0.2 over 3 splits", r)
			}
		}
	}
}

func TestVerdictsSupported(t *testing.T) {
	cs := Claims(goodTree(t))
	for _, c := range cs {
		if measuredVerdict(c) != Supported || (c.Paper != Supported && c.Paper != c.Verdict) {
			t.Errorf("claim %d: %s (%s)\n%s", c.Number, c.Verdict, c.Why, c.Markdown())
		}
		if len(c.Rows) == 0 {
			t.Errorf("claim %d has no evidence", c.Number)
		}
	}
}

// TestClaim2NamesFlaggedReference: a series measured against a flagged
// reference (naval, fig2b) says so in its row and in the verdict's reason;
// one against an unflagged reference (covertype, fig1b) does not.
func TestClaim2NamesFlaggedReference(t *testing.T) {
	c := Claims(goodTree(t))[1]
	var fig2b, fig1b int
	for _, r := range c.Rows {
		switch r[0] {
		case "fig2b":
			fig2b++
			if r[6] != "RBF kernel, to the reference (flagged in 2 of 2 splits)" || r[15] != "no (flagged reference)" {
				t.Errorf("fig2b row: %q", r)
			}
		case "fig1b":
			fig1b++
			if strings.Contains(r[6], "flagged") || r[15] != "yes" {
				t.Errorf("fig1b row: %q", r)
			}
		}
	}
	if fig2b != 1 || fig1b == 0 {
		t.Fatalf("%d fig2b and %d fig1b rows\n%s", fig2b, fig1b, c.Markdown())
	}
	if !strings.Contains(c.Why, " 1 measured against a flagged reference are listed, not counted") {
		t.Errorf("reason: %s", c.Why)
	}
}

// TestClaim2OwnKernel checks that claim 2 measures an RFF series in its
// own kernel when the method reports it, and in the RBF kernel otherwise:
// the same RFF series, flattening in the RBF kernel but linear in its own,
// decides the verdict either way.
func TestClaim2OwnKernel(t *testing.T) {
	for _, withStat := range []bool{true, false} {
		curves := func(c *harness.Cell) ([]reporttest.Pt, error) {
			pts, err := reporttest.GoodCurves(c)
			for _, p := range pts {
				if !withStat {
					delete(p.Vals, report.KernelMMD2)
				}
			}
			return pts, err
		}
		res := writeTree(t, t.TempDir(), curves, reporttest.RffTOML)
		c := claim2(res)
		want := NotSupported
		if withStat {
			want = Supported
		}
		if c.Verdict != want {
			t.Errorf("with statistic %v: %s, want %s\n%s", withStat, c.Verdict, want, c.Markdown())
		}
		md := c.Markdown()
		if withStat != strings.Contains(md, "| mmdfw-rff-d50 | RFF, D = 50 | bq (z exact) | approximate (self; full-data) | own RFF kernel (`method:mmd2_kernel`) |") {
			t.Errorf("with statistic %v: RFF row\n%s", withStat, md)
		}
		if !strings.Contains(md, "| mmdfw-rbf | RBF | bq (z exact) | approximate (self; full-data) | RBF kernel, exact |") {
			t.Errorf("RBF row not in the RBF kernel:\n%s", md)
		}
		if !strings.Contains(c.Rule, "`method:mmd2_kernel`") {
			t.Errorf("rule does not name the statistic: %s", c.Rule)
		}
		dir := t.TempDir()
		if _, err := report.Plot(res, dir, withPaper...); err != nil {
			t.Fatal(err)
		}
		svg, _ := os.ReadFile(filepath.Join(dir, "rff.svg"))
		for _, s := range []string{"own RFF kernel", "Common RBF kernel"} {
			if withStat != bytes.Contains(svg, []byte(s)) {
				t.Errorf("with statistic %v: rff.svg contains %q: %v", withStat, s, !withStat)
			}
		}
	}
}

func TestVerdictsNotSupported(t *testing.T) {
	res := writeTree(t, t.TempDir(), badCurves, reporttest.AllTOML...)
	for _, c := range Claims(res) {
		if measuredVerdict(c) != NotSupported {
			t.Errorf("claim %d: %s (%s)\n%s", c.Number, c.Verdict, c.Why, c.Markdown())
		}
	}
}

func TestVerdictsNotMeasured(t *testing.T) {
	// Only the ablations ran: no claim can be checked. An empty tree is
	// the same.
	res := writeTree(t, t.TempDir(), reporttest.GoodCurves, reporttest.AblationsTOML)
	for _, r := range []*report.Results{res, {Dir: "empty"}} {
		for _, c := range Claims(r) {
			if c.Verdict != NotMeasured || c.Paper != NotMeasured {
				t.Errorf("claim %d: %s (paper's protocol %s), want %s", c.Number, c.Verdict, c.Paper, NotMeasured)
			}
		}
	}
	var b bytes.Buffer
	if err := report.Write(&b, &report.Results{Dir: "empty"}, report.Options{Figures: "figures", Plugins: withPaper}); err != nil {
		t.Fatal(err)
	}
	// The verdict table: each protocol on both cost axes for claims 1 and
	// 5, each protocol for claims 3 and 4, one row for claim 2.
	if n := strings.Count(b.String(), "**not measured here**"); n != 13 {
		t.Errorf("empty report has %d 'not measured here' verdicts, want 13", n)
	}
}

// A curve that is flat within noise fits a straight line of log MMD² with a
// high R² and a rate near zero; claim 2 must not count it as convergence.
func TestClaim2FlatSeriesIsNotLinear(t *testing.T) {
	for _, rate := range []float64{1e-4, 0.05, 0.2} {
		curves := func(c *harness.Cell) ([]reporttest.Pt, error) {
			pts, err := reporttest.GoodCurves(c)
			if c.Experiment.ID != "rff" || !report.IsGreedy(c.Method.Kind) || c.Method.Name == "sp" {
				return pts, err
			}
			for i := range pts {
				v := 0.5 * math.Exp(-rate*float64(pts[i].Step))
				for k := range pts[i].Vals {
					if strings.HasPrefix(k, "mmd2") || k == report.KernelMMD2 {
						pts[i].Vals[k] = v
					}
				}
			}
			return pts, err
		}
		res := writeTree(t, t.TempDir(), curves, reporttest.RffTOML)
		c := claim2(res)
		// Over N = 1…30 the line falls 29·rate/ln 10 decades: 0.0013,
		// 0.63 and 2.5; only the last is at least MinDecades.
		want := Supported
		if rate < 0.1 {
			want = NotSupported
		}
		if c.Verdict != want {
			t.Errorf("rate %g per particle: %s, want %s\n%s", rate, c.Verdict, want, c.Markdown())
		}
	}
}

// A series whose MMD² is no longer positive past some N is fitted to the N
// before it, and its fall must be measured over those N only: over the
// whole range of N the line e^{−0.1 N} falls 1.3 decades, over N = 1…5, the
// points fitted, only 0.17 < MinDecades.
func TestClaim2FallOverFittedRange(t *testing.T) {
	const last = 5
	for _, tail := range []float64{0, -1e-6} {
		curves := func(c *harness.Cell) ([]reporttest.Pt, error) {
			pts, err := reporttest.GoodCurves(c)
			if !report.IsGreedy(c.Method.Kind) {
				return pts, err
			}
			for i := range pts {
				v := 0.5 * math.Exp(-0.1*float64(pts[i].Step))
				if pts[i].Step > last {
					v = tail
				}
				for k := range pts[i].Vals {
					if strings.HasPrefix(k, "mmd2") || k == report.KernelMMD2 {
						pts[i].Vals[k] = v
					}
				}
			}
			return pts, err
		}
		res := writeTree(t, t.TempDir(), curves, reporttest.RffTOML)
		c := claim2(res)
		if c.Verdict != NotSupported {
			t.Errorf("tail %g: %s, want %s\n%s", tail, c.Verdict, NotSupported, c.Markdown())
		}
		if len(c.Rows) == 0 {
			t.Fatalf("tail %g: no claim-2 rows", tail)
		}
		for _, r := range c.Rows {
			if r[7] != "1–5" || r[14] != "no" {
				t.Errorf("tail %g: row %q, want N range 1–5 and not linear", tail, r)
			}
		}
	}
}

func TestClaim1WithoutFiniteSVGDCurve(t *testing.T) {
	// SVGD's curve holds only NaN: there is no level to reach, so the
	// comparison is not measured rather than lost by MMD-FW, and its row
	// says why.
	fw := memCell("fig2a", "mmdfw", "mmdfw", "naval", 0, 20,
		report.Row{Seconds: 1, Metric: "rmse", Value: 2}, report.Row{Seconds: 2, Metric: "rmse", Value: 1})
	sv := memCell("fig2a", "svgd", "svgd", "naval", 0, 20,
		report.Row{Seconds: 1, Metric: "rmse", Value: math.NaN()}, report.Row{Seconds: 2, Metric: "rmse", Value: math.NaN()})
	c := claim1(&report.Results{Metrics: reporttest.Meanings, Cells: []*report.Cell{fw, sv}})
	if c.Verdict != NotMeasured || c.Paper != NotMeasured || len(c.Rows) != 2 || !strings.Contains(c.Rows[0][10], "not computable: the SVGD arm has no finite value") {
		t.Errorf("verdict %q with %d rows, want %q and one not computable row per protocol\n%s", c.Verdict, len(c.Rows), NotMeasured, c.Markdown())
	}
}

func TestReportListsDeviations(t *testing.T) {
	res := goodTree(t)
	var b bytes.Buffer
	if err := report.Write(&b, res, report.Options{Figures: "figures", Plugins: withPaper}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	dev := text[strings.Index(text, "## Deviations"):strings.Index(text, "## Verdicts")]
	for _, s := range []string{
		"**Covertype (20,000-row prefix)**",
		"Skipped (data missing): 6 cell(s) of table1 on `year`: data missing: year-prediction-MSD is not downloaded",
		"`table1/mmdfw/year/s0`", "`table1/svgd/year/s2/n20`",
		"Failed: 2 cell(s) of ablations on `covertype`: boom: diverged at step 3",
		"`ablations/weights-constant/covertype/s1/n30`", "`ablations/weights-constant/covertype/s2/n30`",
		"HMC reference flagged: `naval` split 0 (used by fig2a, fig2b; max R̂ 1.05, min ESS 120)",
	} {
		if !strings.Contains(dev, s) {
			t.Errorf("deviations lack %q:\n%s", s, dev)
		}
	}
	if strings.Contains(dev, "HMC reference flagged: `covertype`") {
		t.Error("an unflagged reference is listed as flagged")
	}
	for _, s := range []string{"| naval | 1 | fig2a, fig2b | 1.05 | 120 | yes |", "| covertype | 1 | ablations, fig1a, fig1b | 1.004 | 812 | no |",
		"![fig1a](figures/fig1a.png)", "## Table 1"} {
		if !strings.Contains(text, s) {
			t.Errorf("report lacks %q", s)
		}
	}
}

// The claims rank by the registry too: without a meaning for accuracy, or
// with one that has no single direction, claim 4 computes no accuracy
// contrast, and each says why.
func TestClaimWithoutMeaning(t *testing.T) {
	var cells []*report.Cell
	for i, m := range []string{"sp", "mmdfw", "svgd"} {
		for split := 1; split <= 2; split++ {
			cells = append(cells, memCell("fig1a", m, m, "covertype", split, 100,
				report.Row{Seconds: 1, Metric: "accuracy", Value: 0.5 + 0.1*float64(i) + 0.001*float64(split)}))
		}
	}
	for _, c := range []struct {
		name  string
		mt    harness.MetricTable
		skip  string
		want  Outcome
		state Verdict
	}{
		{"with meanings", reporttest.Meanings, "", Better, ""},
		{"without meanings", nil, `"accuracy" has no registered meaning`, "", NotMeasured},
		// A metric best at an ideal value has no side to be worse on.
		{"ideal-valued", harness.MetricTable{"accuracy": {Label: "accuracy", Better: harness.NearerBetter, Ideal: 1, Reads: harness.ReadsEvaluation}},
			`"accuracy" is best at 1`, "", NotMeasured},
	} {
		cl := claim4(&report.Results{Cells: cells, Metrics: c.mt})
		if len(cl.Contrasts) != 4 {
			t.Fatalf("%s: %d contrasts, want 4 (two per protocol)\n%s", c.name, len(cl.Contrasts), cl.Markdown())
		}
		for _, k := range cl.Contrasts {
			if !strings.Contains(k.Skip, c.skip) || (c.skip == "") != (k.Skip == "") || k.Outcome != c.want {
				t.Errorf("%s: %s: skip %q, outcome %q; want skip %q, outcome %q", c.name, k.What, k.Skip, k.Outcome, c.skip, c.want)
			}
		}
		if c.state != "" && (cl.Verdict != c.state || cl.Paper != c.state) {
			t.Errorf("%s: fair %s, paper %s, want %s", c.name, cl.Verdict, cl.Paper, c.state)
		}
	}
}

// TestClaim2FunctionSpace: against a reference flagged in parameter space,
// claim 2 reads the series from fmmd2 and counts them when the reference
// is not flagged on the predictions; when it is, the series stay in mmd2
// and are listed, not counted.
func TestClaim2FunctionSpace(t *testing.T) {
	rows := func(split int) []report.Row {
		var r []report.Row
		for n := 1; n <= 20; n++ {
			s := 1 + 0.1*float64(split)
			r = append(r, report.Row{Step: n, Metric: "mmd2", Value: s * math.Exp(-0.3*float64(n))},
				report.Row{Step: n, Metric: "fmmd2", Value: s * 0.5 * math.Exp(-0.4*float64(n))})
		}
		return r
	}
	for _, tc := range []struct {
		predFlagged      bool
		in, counted, why string
	}{
		{false, "RBF kernel on predictions at 100 test inputs, to the reference (flagged in parameter space in 2 of 2 splits, on predictions in none)", "yes",
			"1 of 1 counted"},
		{true, "RBF kernel, to the reference (flagged in 2 of 2 splits)", "no (flagged reference)", "1 measured against a flagged reference are listed"},
	} {
		pf := tc.predFlagged
		res := &report.Results{Metrics: reporttest.Meanings, Cells: []*report.Cell{
			refCell("fig2b", "mmdfw", "naval", 0, true, &pf, nil, rows(0)...),
			refCell("fig2b", "mmdfw", "naval", 1, true, &pf, nil, rows(1)...),
		}}
		c := claim2(res)
		if len(c.Rows) != 1 {
			t.Fatalf("predictions flagged %v: %d rows\n%s", pf, len(c.Rows), c.Markdown())
		}
		r := c.Rows[0]
		if r[6] != tc.in || r[15] != tc.counted {
			t.Errorf("predictions flagged %v: row %q", pf, r)
		}
		if !strings.Contains(c.Why, tc.why) {
			t.Errorf("predictions flagged %v: reason %q", pf, c.Why)
		}
		// The fitted rate is fmmd2's (0.4 per particle) in function space,
		// mmd2's (0.3) otherwise.
		want := "0.4"
		if pf {
			want = "0.3"
		}
		if r[9] != want {
			t.Errorf("predictions flagged %v: rate %s, want %s", pf, r[9], want)
		}
	}
}

// TestClaim2ExactControl checks that claim 2's verdict rests on the series
// of the paper's approximate LMO direction only, that the exact-direction
// series appear as the control with their direction, and that a method
// restricted to the Gaussian target has no rows on Covertype.
func TestClaim2ExactControl(t *testing.T) {
	for _, exactLinear := range []bool{true, false} {
		res := writeTree(t, t.TempDir(), reporttest.ExactCurves(exactLinear), reporttest.RffExactTOML)
		c := claim2(res)
		want, approx, control := Supported, "4 of 4", "0 of 2"
		if exactLinear {
			want, approx, control = NotSupported, "0 of 4", "2 of 2"
		}
		if c.Verdict != want {
			t.Errorf("exact linear %v: %s, want %s\n%s", exactLinear, c.Verdict, want, c.Markdown())
		}
		// 2 approximate series × 2 datasets.
		if w := fmt.Sprintf("%s counted MMD-FW series with the paper's approximate LMO direction", approx); !strings.Contains(c.Why, w) {
			t.Errorf("exact linear %v: why %q lacks %q", exactLinear, c.Why, w)
		}
		if w := "(control, not counted): " + control; !strings.Contains(c.Why, w) {
			t.Errorf("exact linear %v: why %q lacks %q", exactLinear, c.Why, w)
		}
		if len(c.Rows) != 6 {
			t.Errorf("exact linear %v: %d rows, want 6\n%s", exactLinear, len(c.Rows), c.Markdown())
		}
		md := c.Markdown()
		for _, row := range []string{
			// Unset weights on a Gaussian target run BQ with the exact z;
			// on Covertype, without a z, Stein weights.
			"| rff | Gaussian, d = 2 | mmdfw-rbf | RBF | bq (z exact) | approximate (self; full-data) |",
			"| rff | Gaussian, d = 2 | mmdfw-rff-d50 | RFF, D = 50 | bq (z exact) | approximate (frozen; full-data) | own RFF kernel",
			"| rff | Gaussian, d = 2 | mmdfw-exact-rbf | RBF | bq (z exact) | exact (control) |",
			"| rff | Gaussian, d = 2 | mmdfw-exact-rff-d50 | RFF, D = 50 | bq (z exact) | exact (control) | own RFF kernel",
			"| rff | Covertype (20,000-row prefix) | mmdfw-rbf | RBF | stein | approximate (self; full-data) |",
		} {
			if !strings.Contains(md, row) {
				t.Errorf("exact linear %v: no row %q in\n%s", exactLinear, row, md)
			}
		}
		// Within a dataset the control rows follow the paper's direction.
		seenControl := map[string]bool{}
		for _, r := range c.Rows {
			control := r[5] == "exact (control)"
			if seenControl[r[1]] && !control {
				t.Errorf("exact linear %v: row %v after a control row of its dataset", exactLinear, r)
			}
			seenControl[r[1]] = seenControl[r[1]] || control
		}
		if strings.Contains(md, "| Covertype (20,000-row prefix) | mmdfw-exact") {
			t.Errorf("an exact-direction series on Covertype:\n%s", md)
		}
		if !strings.Contains(c.Rule, "control") || !strings.Contains(c.Rule, "approximate direction") {
			t.Errorf("rule does not say which direction decides: %s", c.Rule)
		}
	}
}

// Tuning cells never enter a claim, whatever the experiment's id.
func TestTuningEntersNoClaim(t *testing.T) {
	cells := []*report.Cell{
		memCell("fig2a", "mmdfw", "mmdfw", "naval", 0, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 2}, report.Row{Seconds: 2, GradEvals: 200, Metric: "rmse", Value: 1}),
		memCell("fig2a", "svgd", "svgd", "naval", 0, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3}, report.Row{Seconds: 4, GradEvals: 400, Metric: "rmse", Value: 1}),
	}
	if c := claim1(&report.Results{Metrics: reporttest.Meanings, Cells: cells}); len(c.Rows) == 0 {
		t.Fatal("a reported fig2a gives no comparison")
	}
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells, Declared: map[string]report.Declaration{"fig2a": {Role: harness.RoleTuning}}}
	for _, c := range Claims(res) {
		if len(c.Rows) != 0 || c.Verdict != NotMeasured {
			t.Errorf("claim %d reads a tuning experiment: %s\n%s", c.Number, c.Verdict, c.Markdown())
		}
	}
}

// The plug-in writes Table 1 beside the figures, as the report gives it.
func TestPlotWritesTable1(t *testing.T) {
	res := goodTree(t)
	dir := t.TempDir()
	files, err := report.Plot(res, dir, withPaper...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		if b := filepath.Base(f); strings.HasPrefix(b, "table1.") {
			got = append(got, b)
		}
	}
	if strings.Join(got, " ") != "table1.md table1.csv" {
		t.Fatalf("Table 1 files %v", got)
	}
	md, err := os.ReadFile(filepath.Join(dir, "table1.md"))
	if err != nil || string(md) != MakeTable(res, "table1").Markdown() {
		t.Errorf("table1.md is not Table 1 (%v)", err)
	}
	// Without the plug-in, the figures alone.
	files, err = report.Plot(res, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "table1.") {
			t.Errorf("%s written without the plug-in", f)
		}
	}
}
