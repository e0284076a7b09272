package paper

import (
	"bytes"
	"path/filepath"
	"slices"
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

// The plug-in's Plot draws the forest plot of every pooled claim result
// with contrasts in the results, under its ForestName, in every format.
func TestPlotWritesForests(t *testing.T) {
	res := goodTree(t)
	dir := t.TempDir()
	files, err := Plugin{}.Plot(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, r := range ClaimResults(res) {
		if len(r.PerDataset) == 0 {
			continue
		}
		want++
		for _, f := range report.Formats {
			p := filepath.Join(dir, r.ForestName()+"."+f)
			if !slices.Contains(files, p) {
				t.Errorf("Plot did not write %s", p)
			}
		}
	}
	if want == 0 {
		t.Fatal("no claim result with contrasts in the fixture tree: the test cannot fail")
	}
	n := 0
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "claim-") {
			n++
		}
	}
	if n != want*len(report.Formats) {
		t.Errorf("%d forest files, want %d", n, want*len(report.Formats))
	}
}
