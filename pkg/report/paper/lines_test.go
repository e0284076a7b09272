package paper

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The report of the fixture tree keeps its line limits: no prose line
// longer than report.MaxProseLine characters, no line (a table row)
// longer than report.MaxLine.
func TestReportLineLimits(t *testing.T) {
	res := goodTree(t)
	var b bytes.Buffer
	if err := report.Write(&b, res, report.Options{Figures: "figures", Plugins: withPaper, Lists: "REPORT", Decisions: "docs/DECISIONS.md"}); err != nil {
		t.Fatal(err)
	}
	longest, prose := 0, 0
	for i, l := range strings.Split(b.String(), "\n") {
		n := utf8.RuneCountInString(l)
		table := strings.HasPrefix(l, "|")
		if n > report.MaxLine || (!table && n > report.MaxProseLine) {
			t.Errorf("line %d has %d characters: %.100s…", i+1, n, l)
		}
		longest = max(longest, n)
		if !table {
			prose = max(prose, n)
		}
	}
	t.Logf("longest line %d characters, longest prose line %d", longest, prose)
}
