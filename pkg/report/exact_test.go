package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// rffExactTOML is the rff experiment with the exact-direction control on
// the Gaussian target only, beside series of the paper's direction (the
// default, self, and frozen) on both datasets.
const rffExactTOML = `
id = "rff"
datasets = ["gauss", "covertype"]
splits = [1, 2]
[eval]
metrics = ["mmd2"]
[methods.mmdfw-rbf]
kind = "mmdfw"
particles = [30]
[methods.mmdfw-rff-d50]
kind = "mmdfw"
particles = [30]
settings = { direction = "frozen", kernel = "rff", features = 50 }
[methods.mmdfw-exact-rbf]
kind = "mmdfw"
particles = [30]
datasets = ["gauss"]
settings = { direction = "exact" }
[methods.mmdfw-exact-rff-d50]
kind = "mmdfw"
particles = [30]
datasets = ["gauss"]
settings = { direction = "exact", kernel = "rff", features = 50 }
[[figures]]
id = "rff"
title = "Linear convergence check"
x = "particles"
y = "mmd2"
fit = "rate"
own_kernel = true
`

// exactCurves makes the series of one LMO direction linear in N (log MMD²
// = log 0.5 − 0.2 N, 2.5 decades over N = 1…30) and those of the other a
// power law, 10⁻⁴/N, which the power-law fit matches exactly.
func exactCurves(exactLinear bool) curveFunc {
	return func(c *harness.Cell) ([]pt, error) {
		exact := strings.Contains(c.Method.Name, "exact")
		var pts []pt
		for n := 1; n <= c.N; n++ {
			v := 1e-4 / float64(n)
			if exact == exactLinear {
				v = 0.5 * math.Exp(-0.2*float64(n))
			}
			vals := map[string]float64{"mmd2": v}
			if strings.Contains(c.Method.Name, "rff") {
				vals[KernelMMD2] = v
			}
			pts = append(pts, pt{n, float64(n), vals})
		}
		return pts, nil
	}
}

// TestClaim2ExactControl checks that claim 2's verdict rests on the series
// of the paper's approximate LMO direction only, that the exact-direction
// series appear as the control with their direction, and that a method
// restricted to the Gaussian target has no rows on Covertype.
func TestClaim2ExactControl(t *testing.T) {
	for _, exactLinear := range []bool{true, false} {
		res := writeTree(t, t.TempDir(), exactCurves(exactLinear), rffExactTOML)
		c := claim2(res)
		want, approx, control := Supported, "4 of 4", "0 of 2"
		if exactLinear {
			want, approx, control = NotSupported, "0 of 4", "2 of 2"
		}
		if c.Verdict != want {
			t.Errorf("exact linear %v: %s, want %s\n%s", exactLinear, c.Verdict, want, c.Markdown())
		}
		// 2 approximate series × 2 datasets.
		if w := fmt.Sprintf("%s counted MMD-FW series with the paper's approximate LMO direction", approx); !strings.Contains(c.Why, w) {
			t.Errorf("exact linear %v: why %q lacks %q", exactLinear, c.Why, w)
		}
		if w := "(control, not counted): " + control; !strings.Contains(c.Why, w) {
			t.Errorf("exact linear %v: why %q lacks %q", exactLinear, c.Why, w)
		}
		if len(c.Rows) != 6 {
			t.Errorf("exact linear %v: %d rows, want 6\n%s", exactLinear, len(c.Rows), c.Markdown())
		}
		md := c.Markdown()
		for _, row := range []string{
			// Unset weights on a Gaussian target run BQ with the exact z;
			// on Covertype, without a z, Stein weights.
			"| rff | Gaussian, d = 2 | mmdfw-rbf | RBF | bq (z exact) | approximate (self; full-data) |",
			"| rff | Gaussian, d = 2 | mmdfw-rff-d50 | RFF, D = 50 | bq (z exact) | approximate (frozen; full-data) | own RFF kernel",
			"| rff | Gaussian, d = 2 | mmdfw-exact-rbf | RBF | bq (z exact) | exact (control) |",
			"| rff | Gaussian, d = 2 | mmdfw-exact-rff-d50 | RFF, D = 50 | bq (z exact) | exact (control) | own RFF kernel",
			"| rff | Covertype (20,000-row prefix) | mmdfw-rbf | RBF | stein | approximate (self; full-data) |",
		} {
			if !strings.Contains(md, row) {
				t.Errorf("exact linear %v: no row %q in\n%s", exactLinear, row, md)
			}
		}
		// Within a dataset the control rows follow the paper's direction.
		seenControl := map[string]bool{}
		for _, r := range c.Rows {
			control := r[5] == "exact (control)"
			if seenControl[r[1]] && !control {
				t.Errorf("exact linear %v: row %v after a control row of its dataset", exactLinear, r)
			}
			seenControl[r[1]] = seenControl[r[1]] || control
		}
		if strings.Contains(md, "| Covertype (20,000-row prefix) | mmdfw-exact") {
			t.Errorf("an exact-direction series on Covertype:\n%s", md)
		}
		if !strings.Contains(c.Rule, "control") || !strings.Contains(c.Rule, "approximate direction") {
			t.Errorf("rule does not say which direction decides: %s", c.Rule)
		}
	}
}

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
	res := writeTree(t, t.TempDir(), exactCurves(true), rffExactTOML)
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
	if _, err := Plot(res, dir, withPaper...); err != nil {
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
