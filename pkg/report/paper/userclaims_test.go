package paper

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// userClaims are two claims of one's own about an experiment that is none
// of the paper's, in the one section a file without section keys gets:
// the same statistic with the roles of the arms swapped.
const userClaims = `[claim.fw]
statement = "fw reaches sv's RMSE at less cost"
statistic = "cost to level"
scale = "ratio"
direction = "lower"
test = "superiority"
margin = 1.1
pool = [{ experiment = "mine", metric = "rmse" }]
[claim.fw.arms]
under_test = "mmdfw"
comparator = "svgd"
[claim.fw.protocols.fair]
cost = "gradient evaluations"
snapshot = "final"
arms = "fair"

[claim.sv]
statement = "sv reaches fw's RMSE at less cost"
statistic = "cost to level"
scale = "ratio"
direction = "lower"
test = "superiority"
margin = 1.1
pool = [{ experiment = "mine", metric = "rmse" }]
[claim.sv.arms]
under_test = "svgd"
comparator = "mmdfw"
[claim.sv.protocols.fair]
cost = "gradient evaluations"
snapshot = "final"
arms = "fair"
`

// mineResults are three splits of an experiment "mine" on which the
// MMD-FW arm fw reaches 1.0 at 200 gradient evaluations and the SVGD arm
// sv at 2000.
func mineResults() *report.Results {
	var cells []*report.Cell
	for s := range 3 {
		cells = append(cells,
			memCell("mine", "fw", "mmdfw", "ds", s, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3}, report.Row{Seconds: 2, GradEvals: 200, Metric: "rmse", Value: 1 - 0.01*float64(s)}),
			memCell("mine", "sv", "svgd", "ds", s, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3}, report.Row{Seconds: 20, GradEvals: 2000, Metric: "rmse", Value: 1}))
	}
	return &report.Results{Metrics: reporttest.Meanings, Cells: cells}
}

// Claims of one's own pool any experiment: each claim reads its own arms
// by role, also where two claims share a section (the second one's
// contrasts set sv against fw, not fw against sv), and a file without
// section keys puts every claim in section 1.
func TestUserClaimsOwnArms(t *testing.T) {
	specs, err := ParseClaims("mine.toml", []byte(userClaims))
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Section != 1 || specs[1].Section != 1 {
		t.Fatalf("specs %+v, want two claims in section 1", specs)
	}
	rs := Evaluate(mineResults(), specs)
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	for _, r := range rs {
		want := map[string]string{"fw": "mine ds: fw vs sv", "sv": "mine ds: sv vs fw"}[r.ID]
		if len(r.PerDataset) != 1 || !strings.HasPrefix(r.PerDataset[0].Label, want) {
			t.Errorf("claim %s: strata %+v, want one labelled %q", r.ID, r.PerDataset, want)
		}
	}
	// fw reaches sv's level at about a tenth of sv's cost (its crossing
	// interpolated just before its 200 gradient evaluations): a ratio near
	// 10, beyond the margin; sv's cost to fw's level is never below fw's,
	// so the claim the other way round is contradicted.
	fw, sv := rs[0], rs[1]
	if fw.Verdict != VerdictSupported || !(fw.Estimate >= 10 && fw.Estimate < 10.1) {
		t.Errorf("claim fw: %s, estimate %g; want supported in [10, 10.1)", fw.Verdict, fw.Estimate)
	}
	if sv.Verdict != VerdictContradicted || !(sv.Estimate < 1/1.1) {
		t.Errorf("claim sv: %s, estimate %g; want contradicted below 1/1.1", sv.Verdict, sv.Estimate)
	}
}

// The plug-in of a claims file takes part where its experiment has
// results, writes its section with each claim's verdict row, gives the
// report no title, and leaves the experiment's own table in the section
// "Experiments".
func TestClaimsPlugin(t *testing.T) {
	specs, err := ParseClaims("mine.toml", []byte(userClaims))
	if err != nil {
		t.Fatal(err)
	}
	p := NewClaimsPlugin("mine.toml", specs)
	res := mineResults()
	if got := p.Experiments(res); !slices.Equal(got, []string{"mine"}) {
		t.Errorf("experiments %v, want [mine]", got)
	}
	if got := p.Experiments(&report.Results{}); len(got) != 0 {
		t.Errorf("experiments without results %v, want none", got)
	}
	var b strings.Builder
	if err := report.Write(&b, res, report.Options{Plugins: []report.Plugin{Plugin{}, p}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# Report\n",
		"\n## Claims (mine.toml)\n\n",
		"the margin the claims file declares (mine.toml)",
		"| fw | fw reaches sv's RMSE at less cost | fair | superiority, margin ×1.1 | 10 [9.98, 10] | 1.00 [1.00, 1.00] | **supported** |\n",
		"**Claim sv, fair protocol: contradicted.**",
		"\n## Experiments\n\n", "\n### mine\n\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(strings.ToLower(out), "paper") {
		t.Errorf("a report on claims of one's own mentions the paper:\n%s", out)
	}
	if !math.IsNaN(rsEstimate(Evaluate(&report.Results{}, specs))) {
		t.Error("claims on no results have an estimate")
	}
}

// rsEstimate is the first result's estimate (NaN without one).
func rsEstimate(rs []ClaimResult) float64 {
	if len(rs) == 0 {
		return math.NaN()
	}
	return rs[0].Estimate
}

// "metric at budget" reads any recorded metric, not only the RMSE and
// test LL of the paper's claim 5: on accuracy, fw's last snapshot against
// sv's on each split, the pooled estimate is the mean of the differences
// (0.10, 0.12, 0.08 → 0.10).
func TestMetricAtBudgetAnyMetric(t *testing.T) {
	src := strings.NewReplacer(`"cost to level"`, `"metric at budget"`, `"rmse"`, `"accuracy"`, `scale = "ratio"`, `scale = "difference"`,
		`direction = "lower"`, `direction = "higher"`, `margin = 1.1`, `margin = 0.01`).Replace(userClaims)
	specs, err := ParseClaims("mine.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var cells []*report.Cell
	for s, d := range []float64{0.10, 0.12, 0.08} {
		sv := memCell("mine", "sv", "svgd", "ds", s, 20, report.Row{Step: 100, GradEvals: 2000, Metric: "accuracy", Value: 0.8})
		sv.Prov.Settings = map[string]any{"init": "laplace"} // from the MAP, as fw
		cells = append(cells, sv,
			memCell("mine", "fw", "mmdfw", "ds", s, 20, report.Row{Step: 1, GradEvals: 100, Metric: "accuracy", Value: 0.5}, report.Row{Step: 20, GradEvals: 200, Metric: "accuracy", Value: 0.8 + d}))
	}
	rs := Evaluate(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, specs)
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	if r := rs[0]; r.ID != "fw" || !near(r.Estimate, 0.10, 1e-12) || r.Verdict != VerdictSupported || len(r.PerDataset) != 1 || r.PerDataset[0].N != 3 {
		t.Errorf("claim fw: %s at %g over %+v; want supported at 0.10 over 3 splits", r.Verdict, r.Estimate, r.PerDataset)
	}
	if r := rs[1]; r.ID != "sv" || !near(r.Estimate, -0.10, 1e-12) || r.Verdict != VerdictContradicted {
		t.Errorf("claim sv: %s at %g; want contradicted at −0.10", r.Verdict, r.Estimate)
	}
}

// A rate claim ("rate in N") reads the MMD-FW series of the experiments it
// pools, not only those of the paper's claim 2: on "mine", a series whose
// MMD² falls geometrically in N (0.5·e^(−0.3 N), exact reference) is
// counted and linear, one that falls as 1/N is counted and not.
func TestRateClaimAnyExperiment(t *testing.T) {
	src := `[claim.r]
statement = "fw's MMD² falls geometrically in N"
statistic = "rate in N"
scale = "share"
direction = "higher"
test = "every"
margin = 0
pool = [{ experiment = "mine", metric = "mmd2" }]
[claim.r.arms]
under_test = "mmdfw"
[claim.r.protocols.fair]
cost = "particles"
arms = "fair"
`
	specs, err := ParseClaims("mine.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cells := func(geometric bool) []*report.Cell {
		var out []*report.Cell
		for s := range 3 {
			var rows []report.Row
			for n := 1; n <= 40; n++ {
				v := 0.5 / float64(n)
				if geometric {
					v = 0.5 * math.Exp(-0.3*float64(n))
				}
				rows = append(rows, report.Row{Step: n, Metric: "mmd2", Value: v})
			}
			c := memCell("mine", "fw", "mmdfw", "ds", s, 40, rows...)
			c.Prov.Settings = map[string]any{"weights": "equal"}
			c.Summary = map[string]any{"reference": map[string]any{"kind": "exact"}}
			out = append(out, c)
		}
		return out
	}
	for _, geometric := range []bool{true, false} {
		rs := Evaluate(&report.Results{Metrics: reporttest.Meanings, Cells: cells(geometric)}, specs)
		if len(rs) != 1 {
			t.Fatalf("%d results, want 1", len(rs))
		}
		r := rs[0]
		want, share := VerdictContradicted, 0.0
		if geometric {
			want, share = VerdictSupported, 1
		}
		if r.Verdict != want || r.Estimate != share || len(r.PerDataset) != 1 || !strings.HasPrefix(r.PerDataset[0].Label, "mine ") {
			t.Errorf("geometric %v: %s, share %g, strata %+v; want %s, %g, one stratum of mine", geometric, r.Verdict, r.Estimate, r.PerDataset, want, share)
		}
	}
}
