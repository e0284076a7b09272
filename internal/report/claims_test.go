package report

import "testing"

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
