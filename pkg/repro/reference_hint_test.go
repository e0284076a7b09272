package repro

import (
	"strings"
	"testing"
)

// A quick-profile reference not found under the default results directory
// gets the hint of where make reproduce-quick writes it; an explicit
// --results, another profile or a found reference gets none.
func TestQuickResultsHint(t *testing.T) {
	missing := []*refSummary{{id: "reference/hmc/covertype/s1", missing: "not cached: no run has needed it yet"}}
	found := []*refSummary{{id: "reference/hmc/covertype/s1"}}
	h := quickResultsHint("quick", "results", false, missing)
	if !strings.Contains(h, "--results quick/results") || !strings.Contains(h, "make reproduce-quick") {
		t.Errorf("hint %q does not name --results quick/results", h)
	}
	for _, c := range []struct {
		profile    string
		resultsSet bool
		sums       []*refSummary
	}{
		{"quick", true, missing},
		{"full", false, missing},
		{"", false, missing},
		{"quick", false, found},
	} {
		if h := quickResultsHint(c.profile, "results", c.resultsSet, c.sums); h != "" {
			t.Errorf("profile %q, --results given %v: hint %q, want none", c.profile, c.resultsSet, h)
		}
	}
}
