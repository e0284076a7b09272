package experiment

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/internal/report"
)

// TestPaperFigures checks that every experiment file declares its figures
// (table1 none: its output is the table), and that every figure a claim of
// the report rests on is declared by one of them.
func TestPaperFigures(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{"table1": true}
	for _, f := range files {
		e, err := harness.LoadFile(harness.Default, f, "full")
		if err != nil {
			t.Fatal(err)
		}
		if !e.FiguresDeclared {
			t.Errorf("%s declares no figures", f)
		}
		if (e.ID == "table1") != (len(e.Figures) == 0) {
			t.Errorf("%s declares %d figures", f, len(e.Figures))
		}
		for _, fig := range e.Figures {
			if declared[fig.ID] {
				t.Errorf("%s: figure id %q is declared twice", f, fig.ID)
			}
			declared[fig.ID] = true
		}
	}
	claims := report.Claims(&report.Results{})
	if len(claims) == 0 {
		t.Fatal("no claim")
	}
	for _, c := range claims {
		if len(c.Figures) == 0 {
			t.Errorf("claim %d names no figure", c.Number)
		}
		for _, id := range c.Figures {
			if !declared[id] {
				t.Errorf("claim %d rests on figure %q, which no experiment file declares (declared: %v)", c.Number, id, slices.Sorted(maps.Keys(declared)))
			}
		}
	}
}
