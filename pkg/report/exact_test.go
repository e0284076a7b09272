package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// TestRateFigureExact checks that the rff figure notes the exact-direction
// series and draws each in the colour of its approximate twin with another
// dash pattern, the approximate series solid in distinct colours.
func TestRateFigureExact(t *testing.T) {
	// The legend note of a control series of the toy kinds (reporttest.Kinds).
	const exactNote = "exact LMO"
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
	if n := bytes.Count(svg, []byte(exactNote)); n != 2 {
		t.Errorf("rff-gauss.svg notes %q %d times, want 2 (one per exact series)", exactNote, n)
	}
	svg, err = os.ReadFile(filepath.Join(dir, "rff-covertype.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte(exactNote)) {
		t.Error("rff-covertype.svg has an exact-direction series")
	}
}
