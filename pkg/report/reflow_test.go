package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// sentences returns n sentences of about 90 characters.
func sentences(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("Sentence %d says something about a contrast, its interval [0.1, 0.2] and its splits (5 of them).", i))
	}
	return strings.Join(s, " ")
}

// A long paragraph or list item is broken into lines of at most
// MaxProseLine characters that join back to it; tables, headings, code and
// HTML stay as they are.
func TestReflow(t *testing.T) {
	para := sentences(20)
	item := "- " + sentences(12)
	code := "Before. `" + strings.Repeat("a. b ", 200) + "` after. " + sentences(3)
	noBreak := strings.Repeat("word", 200) + " " + sentences(2)
	list := sentences(6) + " - not a list item. 1. not an ordered item. # not a heading. " + sentences(6)
	clauses := "One sentence that runs on: " + strings.Repeat("a clause of it, ", 60) + "and its end."
	table := "| " + strings.Repeat("cell. ", 150) + "|"
	heading := "## " + sentences(8)
	fenced := "```\n" + sentences(8) + "\n```"
	html := "<p>" + sentences(8) + "</p>"
	md := strings.Join([]string{para, "", item, "", code, "", noBreak, "", list, "", clauses, "", table, heading, fenced, html}, "\n")
	out := Reflow(md)
	// Every line of the paragraphs is short enough but for the code span
	// and the word without a space.
	for _, l := range strings.Split(out[:strings.Index(out, "\n|")], "\n") {
		if utf8.RuneCountInString(l) > MaxProseLine && !strings.HasPrefix(l, strings.Repeat("word", 200)) && !strings.HasPrefix(l, "`a. b") {
			t.Errorf("a prose line of %d characters: %.80s…", utf8.RuneCountInString(l), l)
		}
	}
	// Each paragraph joins back to its text.
	paras := strings.Split(out, "\n\n")
	for i, want := range []string{para, item, code, noBreak, list, clauses} {
		got := paras[i]
		var parts []string
		for j, l := range strings.Split(got, "\n") {
			if j > 0 && strings.HasPrefix(want, "- ") {
				if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
					t.Errorf("paragraph %d: continuation %.40q not indented by the list marker's width", i, l)
				}
				l = l[2:]
			}
			if j > 0 && blockStart(l) {
				t.Errorf("paragraph %d: a line starts a block: %.40q", i, l)
			}
			parts = append(parts, l)
		}
		if j := strings.Join(parts, " "); j != want {
			t.Errorf("paragraph %d does not join back:\n%s\nwant\n%s", i, j, want)
		}
		if i != 3 && len(parts) < 2 {
			t.Errorf("paragraph %d of %d characters not broken", i, len(want))
		}
	}
	// Inside the code span nothing is broken.
	if !strings.Contains(out, "`"+strings.Repeat("a. b ", 200)+"`") {
		t.Error("a code span was broken")
	}
	for _, keep := range []string{table, heading, fenced, html} {
		if !strings.Contains(out, "\n"+keep) {
			t.Errorf("%.30q… was changed", keep)
		}
	}
	// Short lines are left alone.
	short := "A line. Another line.\n- an item. Its end."
	if Reflow(short) != short {
		t.Errorf("short lines changed: %q", Reflow(short))
	}
}

// A long list of skipped cells is counted and sent to the cells file, the
// code revisions to the versions file; WriteLists writes both in full.
func TestReportLists(t *testing.T) {
	res := &Results{Dir: "results"}
	for i := range MaxIgnoredListed + 7 {
		p := &harness.Provenance{Experiment: "table1", Method: "mmdfw", Dataset: "year", Split: i, Status: harness.Skipped,
			Cell: fmt.Sprintf("table1/mmdfw/year/s%d", i), Error: "data missing: year is missing under data\nmore"}
		p.Code.Revision = fmt.Sprintf("%d%039d", i%5, 0)
		res.Cells = append(res.Cells, &Cell{Prov: p})
	}
	var b strings.Builder
	writeStatus(&b, res, Options{Lists: "REPORT"})
	n := 0
	writeCellGroups(&b, res, harness.Skipped, "Skipped (data missing)", &n, Options{Lists: "REPORT"})
	s := b.String()
	for _, want := range []string{
		"Code: 5 revisions, each cell's in its provenance (all with their cell counts in [REPORT-versions.csv](REPORT-versions.csv)).",
		fmt.Sprintf("- Skipped (data missing): %d cell(s) of table1 on `year`: data missing: year is missing under data. Cells: `table1/mmdfw/year/s0`,", MaxIgnoredListed+7),
		" and 7 more (all in [REPORT-cells.csv](REPORT-cells.csv)).\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "`table1/mmdfw/year/") != MaxIgnoredListed {
		t.Errorf("%d cells listed, want %d:\n%s", strings.Count(s, "`table1/mmdfw/year/"), MaxIgnoredListed, s)
	}
	dir := t.TempDir()
	files, err := WriteLists(filepath.Join(dir, "REPORT"), res)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("wrote %v", files)
	}
	cells, err := os.ReadFile(filepath.Join(dir, "REPORT"+CellsList))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(cells), "\nskipped,table1,year,data missing: year is missing under data,table1/mmdfw/year/s"); got != MaxIgnoredListed+7 {
		t.Errorf("cells file has %d skipped rows, want %d:\n%s", got, MaxIgnoredListed+7, cells)
	}
	versions, err := os.ReadFile(filepath.Join(dir, "REPORT"+VersionsList))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(versions), "revision,cells\n000000000000,3\n100000000000,3\n") || strings.Count(string(versions), "\n") != 6 {
		t.Errorf("versions file:\n%s", versions)
	}
}
