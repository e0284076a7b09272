package report

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/harness"
)

// TestSettle checks both verdicts of a claim under each rule, and that the
// difference is said only when both protocols were measured and disagree.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		rule        func(int, int) Verdict
		paper, fair tally
		want        [2]Verdict
		differ      bool
	}{
		{majority, tally{2, 3, "p"}, tally{1, 3, "f"}, [2]Verdict{Supported, NotSupported}, true},
		{majority, tally{2, 3, "p"}, tally{3, 4, "f"}, [2]Verdict{Supported, Supported}, false},
		{every, tally{2, 3, "p"}, tally{3, 3, "f"}, [2]Verdict{NotSupported, Supported}, true},
		{every, tally{0, 0, "p"}, tally{3, 3, "f"}, [2]Verdict{NotMeasured, Supported}, false},
		{majority, tally{1, 1, "p"}, tally{0, 0, "f"}, [2]Verdict{Supported, NotMeasured}, false},
	} {
		var c Claim
		c.settle(tc.rule, tc.paper, tc.fair, "why they differ")
		if c.Paper != tc.want[0] || c.Verdict != tc.want[1] || c.PaperWhy != "p" || c.Why != "f" || (c.Difference != "") != tc.differ {
			t.Errorf("%+v %+v: paper %s (%q), fair %s (%q), difference %q; want %v, differ %v",
				tc.paper, tc.fair, c.Paper, c.PaperWhy, c.Verdict, c.Why, c.Difference, tc.want, tc.differ)
		}
	}
}

// TestTimedRunSettings checks that the deviations name, per run setting,
// the methods of a timed experiment that mixes settings, and count the
// cells that ran beside other work.
func TestTimedRunSettings(t *testing.T) {
	cell := func(method string, jobs, threads int, load float64) *Cell {
		c := memCell("fig1a", method, "svgd", "covertype", 1, 100)
		c.Prov.KeyDoc.Timed = true
		c.Prov.Jobs, c.Prov.Threads, c.Prov.Steps = jobs, threads, 10
		c.Prov.Host.Hostname, c.Prov.Host.CPUModel = "vm", "cpu"
		c.Prov.Load = &harness.LoadAvg{Start: load, End: load}
		return c
	}
	floor := cell("ols", 2, 1, 5) // no steps: no times to compare
	floor.Prov.Steps = 0
	res := &Results{Metrics: testMeanings, Cells: []*Cell{cell("mmdfw", 1, 2, 1.1), cell("svgd", 1, 2, 3.1), cell("sp", 2, 1, 2.9), cell("sgld", 2, 1, 3.2), floor}}
	var b strings.Builder
	writeDeviations(&b, res)
	for _, s := range []string{
		"Timed experiment **fig1a** mixes run settings, so its times do not compare exactly: -j 1 on vm (cpu) (mmdfw, svgd); -j 2 on vm (cpu) (sgld, sp).",
		"Timed experiment **fig1a**: 2 of 4 cells ran beside other work (a 1-minute load average above jobs × threads + 1 at their start or end; methods sgld, svgd)",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("deviations lack %q:\n%s", s, b.String())
		}
	}
}
