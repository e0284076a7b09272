package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

func TestLMODirection(t *testing.T) {
	for _, tc := range []struct {
		settings any
		want     string
		exact    bool
	}{
		{map[string]any{}, "self", false},
		{nil, "self", false},
		{map[string]any{"direction": ""}, "self", false},
		{map[string]any{"direction": "frozen", "kernel": "rff"}, "frozen", false},
		{map[string]any{"direction": "exact"}, "exact", true},
		{map[string]any{"direction": "sideways"}, "self", false},
	} {
		c := &Cell{Prov: &harness.Provenance{Settings: tc.settings}}
		if got := LMODirection(c); got != tc.want || IsExactLMO(c) != tc.exact {
			t.Errorf("settings %v: direction %q exact %v, want %q %v", tc.settings, got, IsExactLMO(c), tc.want, tc.exact)
		}
	}
}

// TestRateFigureExact checks that the rff figure notes the exact-direction
// series and draws each in the colour of its approximate twin with another
// dash pattern, the approximate series solid in distinct colours.
func TestRateFigureExact(t *testing.T) {
	res := writeTree(t, t.TempDir(), reporttest.ExactCurves(true), reporttest.RffExactTOML)
	cells := res.Experiment("rff")
	st := newStyle(cells)
	if st.color("mmdfw-exact-rbf") == st.color("mmdfw-rbf") {
		t.Fatal("the styles of the twins agree before pairing: the test cannot fail")
	}
	st.pairExact(cells, map[string]bool{"mmdfw-rbf": false, "mmdfw-rff-d50": false, "mmdfw-exact-rbf": true, "mmdfw-exact-rff-d50": true})
	for _, m := range []string{"mmdfw-rbf", "mmdfw-rff-d50"} {
		if st.index[m] >= len(palette) {
			t.Errorf("%s: style index %d, want a solid line (< %d)", m, st.index[m], len(palette))
		}
		x := strings.Replace(m, "mmdfw-", "mmdfw-exact-", 1)
		if st.color(x) != st.color(m) || fmt.Sprint(st.dashes(x)) == fmt.Sprint(st.dashes(m)) {
			t.Errorf("%s: colour %v dashes %v, want %s's colour %v with other dashes than %v", x, st.color(x), st.dashes(x), m, st.color(m), st.dashes(m))
		}
	}
	if st.color("mmdfw-rbf") == st.color("mmdfw-rff-d50") {
		t.Error("the two approximate series share a colour")
	}
	dir := t.TempDir()
	if _, err := Plot(res, dir); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "rff-gauss.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(svg, []byte(exactLMONote)); n != 2 {
		t.Errorf("rff-gauss.svg notes %q %d times, want 2 (one per exact series)", exactLMONote, n)
	}
	svg, err = os.ReadFile(filepath.Join(dir, "rff-covertype.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte(exactLMONote)) {
		t.Error("rff-covertype.svg has an exact-direction series")
	}
}
