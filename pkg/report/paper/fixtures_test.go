package paper

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// writeTree runs the experiments srcs (TOML) with the curves of f under
// dir (the fixtures of pkg/report/internal/reporttest) and returns the
// loaded results.
func writeTree(t testing.TB, dir string, f reporttest.CurveFunc, srcs ...string) *report.Results {
	t.Helper()
	reg, exps := reporttest.Write(t, dir, f, srcs...)
	res, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		res.Declare(e)
	}
	res.Metrics = reg.Meanings()
	res.DescribeKinds(reg.Kinds())
	res.Checks = reg.Checks()
	return res
}

// goodTree loads the tree of reporttest.GoodTree with its figures and the
// metric meanings of reporttest.Meanings, the kinds' traits of
// reporttest.Kinds and the run-time checks of reporttest.Checks.
func goodTree(t *testing.T) *report.Results {
	t.Helper()
	dir, figs := reporttest.GoodTree(t)
	res, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.Figures = figs
	res.Metrics = reporttest.Meanings
	res.DescribeKinds(reporttest.Kinds)
	res.Checks = reporttest.Checks
	return res
}

// memCell is a finished cell held in memory, with its toy kind's traits.
func memCell(exp, method, kind, ds string, split, n int, rows ...report.Row) *report.Cell {
	return &report.Cell{Prov: reporttest.Prov(exp, method, kind, ds, split, n), Rows: rows, Traits: reporttest.Kinds[kind]}
}

func TestMain(m *testing.M) {
	code := m.Run()
	reporttest.RemoveGoodTree()
	os.Exit(code)
}

func atof(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// measuredVerdict is the fair-protocol verdict of c, or the paper's where
// the fixture tree measures only that one (its Table 1 ran under a
// wall-clock budget).
func measuredVerdict(c Claim) Verdict {
	if c.Verdict == NotMeasured {
		return c.Paper
	}
	return c.Verdict
}

// badCurves contradicts every claim: SVGD is fast, MMD-FW's MMD² decays as
// a power of N (not a straight line of log MMD² in N) and stays below
// SVGD's, SP is the most accurate and MMD-FW is far worse on Table 1.
func badCurves(c *harness.Cell) ([]reporttest.Pt, error) {
	sp := float64(c.Split)
	name := c.Method.Name
	switch c.Experiment.ID {
	case "fig1a":
		a, tau := map[string]float64{"mmdfw": 0.75, "svgd": 0.755, "sp": 0.76, "sgld": 0.74}[name], map[string]float64{"mmdfw": 8, "svgd": 0.5, "sp": 2, "sgld": 4}[name]
		var pts []reporttest.Pt
		for i, t := range reporttest.LogTimes(0.01, 40, 60) {
			acc := a + 0.002*(sp-2) - 0.25*math.Exp(-t/tau)
			pts = append(pts, reporttest.Pt{Step: i + 1, Sec: t, Vals: map[string]float64{"accuracy": acc}})
		}
		return pts, nil
	case "fig2a":
		tau := map[string]float64{"mmdfw": 10, "svgd": 1}[name]
		var pts []reporttest.Pt
		for i, t := range reporttest.LogTimes(0.05, 60, 50) {
			pts = append(pts, reporttest.Pt{Step: i + 1, Sec: t, Vals: map[string]float64{"rmse": 0.004 + 0.02*math.Exp(-t/tau)}})
		}
		return pts, nil
	case "fig1b", "fig2b", "rff":
		var pts []reporttest.Pt
		if IsGreedy(c.Method.Kind) {
			for n := 1; n <= c.N; n++ {
				v := 1e-4 / float64(n)
				if name == "sp" {
					v = 1e-9
				}
				vals := map[string]float64{"mmd2": v, "mmd2_exact": v}
				if name == "mmdfw-rff-d50" {
					vals[KernelMMD2] = v
				}
				pts = append(pts, reporttest.Pt{Step: n, Sec: float64(n), Vals: vals})
			}
			return pts, nil
		}
		return []reporttest.Pt{{Step: 100, Sec: 10, Vals: map[string]float64{"mmd2": 0.5 / float64(c.N)}}}, nil
	case "table1":
		fin := reporttest.Table1Final[c.Dataset][name][c.Split]
		if name == "mmdfw" {
			fin[0], fin[1] = 3*fin[0], fin[1]-5
		}
		return []reporttest.Pt{{Step: 1, Sec: 10, Vals: map[string]float64{"rmse": fin[0], "test_ll": fin[1]}}}, nil
	}
	return reporttest.GoodCurves(c)
}

// refCell is a done memCell whose summary records a reference: parameter
// space flagged or not, predictions flagged or not (nil: none recorded),
// and floors by metric.
func refCell(exp, method, ds string, split int, flagged bool, predFlagged *bool, floors map[string]any, rows ...report.Row) *report.Cell {
	c := memCell(exp, method, "mmdfw", ds, split, 0, rows...)
	ref := map[string]any{"kind": "hmc", "draws": 1000.0, "diagnostics": map[string]any{"max_rhat": 4.5, "min_ess": 4.0, "flagged": flagged}}
	if floors != nil {
		ref["floors"] = floors
	}
	if predFlagged != nil {
		ref["predictions"] = map[string]any{"inputs": 100.0, "max_rhat": 1.004, "min_ess": 900.0, "flagged": *predFlagged}
	}
	c.Summary = map[string]any{"reference": ref}
	return c
}

// paperIDs are the experiment ids the paper's plug-in presents in the
// report files of its own experiment files (report = ["paper"]).
var paperIDs = []string{"ablations", "fig1a", "fig1b", "fig2a", "fig2b", "rff", AnchorExperiment, "table1"}

// allPaper is the paper's plug-in presenting the paper's experiment ids
// whether or not a fixture declares them (most fixtures are results trees
// without experiment files).
type allPaper struct{ Plugin }

// Experiments returns paperIDs.
func (allPaper) Experiments(*report.Results) []string { return paperIDs }

// withPaper is the plug-in list of the tests that read the paper's
// sections.
var withPaper = []report.Plugin{allPaper{}}

// The fixtures name the own-kernel statistic and the greedy kinds without
// importing the plug-in: they must agree with it.
func TestFixturesAgreeWithPaper(t *testing.T) {
	if reporttest.KernelMMD2 != KernelMMD2 {
		t.Errorf("reporttest.KernelMMD2 = %q, want %q", reporttest.KernelMMD2, KernelMMD2)
	}
	if d := reporttest.Meanings[KernelMMD2]; d.Label == "" {
		t.Errorf("reporttest.Meanings has no meaning for %q", KernelMMD2)
	}
	for kind, want := range map[string]bool{"mmdfw": true, "sp": true, "svgd": false, "sgld": false, "boom": false} {
		if IsGreedy(kind) != want || reporttest.Greedy(kind) != want {
			t.Errorf("kind %q: IsGreedy %t, reporttest.Greedy %t, want %t", kind, IsGreedy(kind), reporttest.Greedy(kind), want)
		}
	}
}
