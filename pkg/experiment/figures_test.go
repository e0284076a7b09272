package experiment

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/paper"
)

// TestPaperFigures checks that every experiment file declares its figures
// (table1 and svgd-anchor none: their output is a table), and that every
// figure a claim of the report rests on is declared by one of them.
func TestPaperFigures(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{"table1": true}
	for _, f := range files {
		e, err := harness.LoadFile(testRegistry, f, "full")
		if err != nil {
			t.Fatal(err)
		}
		if !e.FiguresDeclared {
			t.Errorf("%s declares no figures", f)
		}
		tableOnly := e.ID == "table1" || e.ID == paper.AnchorExperiment
		if tableOnly != (len(e.Figures) == 0) {
			t.Errorf("%s declares %d figures", f, len(e.Figures))
		}
		for _, fig := range e.Figures {
			if declared[fig.ID] {
				t.Errorf("%s: figure id %q is declared twice", f, fig.ID)
			}
			declared[fig.ID] = true
		}
	}
	claims := paper.Claims(&report.Results{})
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

// A figure's selector decodes through MMD-FW's typed settings: the text
// form of an enum, and the default (RBF) of a method that leaves the
// kernel unset.
func TestFigureSelectorTyped(t *testing.T) {
	src, err := os.ReadFile("../../experiments/rff.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sel, want string }{
		{`where = { kernel = "rbf" }`, "mmdfw-rbf lr-mmdfw-rbf mmdfw-rbf-bq-hmc mmdfw-exact-rbf"},
		{`where = { kernel = "rff", features = 50, direction = "exact" }`, "mmdfw-exact-rff-d50"},
		{`where = { start = "map", features = 1000 }`, "mmdfw-rff-d1000 lr-mmdfw-rff-d1000 mmdfw-exact-rff-d1000"},
	} {
		s := strings.Replace(string(src), "[[figures]]", "[[figures]]\nid = \"sel\"\nx = \"particles\"\ny = \"mmd2\"\n"+c.sel+"\n\n[[figures]]", 1)
		e, err := harness.Load(testRegistry, "rff.toml", []byte(s), "full")
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		if got := strings.Join(e.Figures[0].Methods, " "); got != c.want {
			t.Errorf("%s: methods %q, want %q", c.sel, got, c.want)
		}
	}
}
