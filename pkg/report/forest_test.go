package report

import (
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// writeForestSVG draws f and reads back its SVG.
func writeForestSVG(t *testing.T, f Forest) (*svgFigure, string) {
	t.Helper()
	dir := t.TempDir()
	files, err := WriteForest(dir, "forest", f)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(Formats) {
		t.Fatalf("wrote %v, want one file per format %v", files, Formats)
	}
	svg := filepath.Join(dir, "forest.svg")
	out, err := textOutside(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		t.Errorf("text outside the canvas: %s", o)
	}
	fig, err := readSVG(svg)
	if err != nil {
		t.Fatal(err)
	}
	return fig, svg
}

// diamonds returns the closed four-point paths whose top and bottom share
// an x and whose left and right share a y.
func diamonds(fig *svgFigure) []svgPath {
	var out []svgPath
	for _, p := range fig.paths {
		if p.cmds != "MLLLZ" && p.cmds != "MLLLLZ" {
			continue
		}
		q := p.pts
		if math.Abs(q[0][1]-q[2][1]) < 0.01 && math.Abs(q[1][0]-q[3][0]) < 0.01 && q[2][0]-q[0][0] > 0.01 {
			out = append(out, p)
		}
	}
	return out
}

// tickScale returns the map from a value to the figure's x that the
// numeric tick labels of the x axis give (the centre of each label is its
// tick), on a log scale when log is set.
func tickScale(t *testing.T, fig *svgFigure, log bool) func(float64) float64 {
	t.Helper()
	type tick struct{ v, x float64 }
	var ticks []tick
	for _, tx := range fig.texts {
		v, err := strconv.ParseFloat(tx.body, 64)
		if err != nil || !tx.horizontal {
			continue
		}
		if log {
			v = math.Log10(v)
		}
		ticks = append(ticks, tick{v, tx.x + tx.w/2})
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].v < ticks[j].v })
	if len(ticks) < 2 {
		t.Fatalf("fewer than two numeric tick labels: %v", ticks)
	}
	a, b := ticks[0], ticks[len(ticks)-1]
	return func(v float64) float64 {
		if log {
			v = math.Log10(v)
		}
		return a.x + (v-a.v)*(b.x-a.x)/(b.v-a.v)
	}
}

func sampleForest() Forest {
	return Forest{
		Title:  "Claim 5, fair protocol, gradient evaluations: cannot decide (7 better, 0 worse, 11 inconclusive of 18 counted contrasts)",
		XLabel: "ln(SVGD's RMSE / MMD-FW's)",
		Null:   0,
		Band:   [2]float64{-0.05, 0.05},
		Rows: []ForestRow{
			{Label: "bostonHousing", Est: 0.4, Lo: 0.1, Hi: 0.7, N: 5},
			{Label: "concrete", Est: -0.3, Lo: -0.9, Hi: 0.2, N: 5},
			{Label: "a data set with a rather long name that needs wrapping", Est: 1.1, Lo: 0.8, Hi: 1.4, N: 5},
			{Label: "energy", Est: 0.2, Lo: -50, Hi: 40, N: 2},
			{Label: "kin8nm", Est: 0.6, Lo: 0.5, Hi: 0.7, N: 5, Note: "arms differ in their start: shown, not counted"},
		},
		Pooled: &ForestRow{Label: "pooled", Est: 1, Lo: 0.5, Hi: 1.5, N: 22},
	}
}

// The pooled estimate is a diamond centred at its estimate and spanning
// its interval on the axis the tick labels give; every text lies inside
// the canvas.
func TestWriteForestDiamond(t *testing.T) {
	f := sampleForest()
	fig, _ := writeForestSVG(t, f)
	ds := diamonds(fig)
	if len(ds) != 1 {
		t.Fatalf("%d diamonds, want 1", len(ds))
	}
	x := tickScale(t, fig, false)
	q := ds[0].pts
	for _, c := range []struct {
		what string
		got  float64
		v    float64
	}{{"left", q[0][0], f.Pooled.Lo}, {"centre", q[1][0], f.Pooled.Est}, {"right", q[2][0], f.Pooled.Hi}} {
		if math.Abs(c.got-x(c.v)) > 0.5 {
			t.Errorf("diamond %s at x = %.2f, want %.2f (value %g)", c.what, c.got, x(c.v), c.v)
		}
	}
	// energy's interval [-50, 40] exceeds the axis: cut with an arrowhead
	// at each end.
	arrows := 0
	for _, p := range fig.paths {
		if p.cmds == "MLLZ" {
			arrows++
		}
	}
	if arrows != 2 {
		t.Errorf("%d arrowheads, want 2 (both ends of energy's interval)", arrows)
	}
	for _, want := range []string{"kin8nm", "arms differ in their start: shown, not counted", "1 [0.5, 1.5] (22 splits)"} {
		if !hasText(fig, want) {
			t.Errorf("no text %q", want)
		}
	}
}

func hasText(fig *svgFigure, s string) bool {
	for _, tx := range fig.texts {
		if strings.Contains(tx.body, s) {
			return true
		}
	}
	return false
}

// A row whose estimate or interval is NaN or infinite is written as a
// note instead of a mark, and the rest is drawn.
func TestWriteForestNaN(t *testing.T) {
	f := sampleForest()
	f.Rows = append(f.Rows,
		ForestRow{Label: "naval", Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: 1},
		ForestRow{Label: "wine", Est: math.Inf(1), Lo: 0, Hi: math.Inf(1)},
		ForestRow{Label: "yacht", Est: 0.3, Lo: math.NaN(), Hi: math.NaN(), N: 1},
		ForestRow{Label: "protein", Est: 0.1, Lo: math.Inf(-1), Hi: math.Inf(1), N: 2},
	)
	fig, _ := writeForestSVG(t, f)
	for _, want := range []string{"not drawn: estimate NaN", "not drawn: estimate ∞", "0.3, no interval (1 split)", "0.1 [−∞, ∞] (2 splits)"} {
		if !hasText(fig, want) {
			t.Errorf("no text %q", want)
		}
	}
	if n := len(diamonds(fig)); n != 1 {
		t.Errorf("%d diamonds, want 1", n)
	}
	// energy's two ends and protein's two.
	arrows := 0
	for _, p := range fig.paths {
		if p.cmds == "MLLZ" {
			arrows++
		}
	}
	if arrows != 4 {
		t.Errorf("%d arrowheads, want 4", arrows)
	}
	// Nothing but NaN: no mark, no crash.
	writeForestSVG(t, Forest{Title: "nothing", Rows: []ForestRow{{Label: "a", Est: math.NaN()}}, Pooled: &ForestRow{Est: math.NaN()}})
}

// On a log axis the diamond of a ratio sits where the log-spaced tick
// labels put it, and a ratio ≤ 0 is a note.
func TestWriteForestLog(t *testing.T) {
	f := Forest{
		Title:  "Claim 1 as ratios",
		XLabel: "time ratio SVGD / MMD-FW",
		Log:    true,
		Null:   1,
		Band:   [2]float64{1 / 1.1, 1.1},
		Rows: []ForestRow{
			{Label: "covertype", Est: 2, Lo: 1.5, Hi: 3, N: 5},
			{Label: "naval", Est: 0.5, Lo: 0.2, Hi: 1.2, N: 5},
			{Label: "zero", Est: 0, Lo: 0, Hi: 1, N: 5},
		},
		Pooled: &ForestRow{Est: 1.3, Lo: 0.8, Hi: 2.2, N: 10},
	}
	fig, _ := writeForestSVG(t, f)
	ds := diamonds(fig)
	if len(ds) != 1 {
		t.Fatalf("%d diamonds, want 1", len(ds))
	}
	x := tickScale(t, fig, true)
	q := ds[0].pts
	for _, c := range []struct {
		got, v float64
	}{{q[0][0], 0.8}, {q[1][0], 1.3}, {q[2][0], 2.2}} {
		if math.Abs(c.got-x(c.v)) > 0.5 {
			t.Errorf("diamond point at x = %.2f, want %.2f (value %g on the log axis)", c.got, x(c.v), c.v)
		}
	}
	if !hasText(fig, "not drawn: estimate 0 (not positive on a log axis)") {
		t.Error("the zero ratio is not noted")
	}
	if !hasText(fig, "(log scale)") {
		t.Error("the axis label does not say log scale")
	}
}

// Odd forests draw without a panic and keep every text inside the canvas:
// none at all, a pooled estimate alone, a long note, a reversed band, a
// log axis whose no-effect line cannot be drawn, an empty title.
func TestWriteForestEdges(t *testing.T) {
	long := strings.Repeat("a reason that goes on and on, ", 12)
	for name, f := range map[string]Forest{
		"empty":       {Title: "nothing to draw"},
		"pooled only": {Title: "pooled", Pooled: &ForestRow{Est: 0.2, Lo: 0.1, Hi: 0.3}},
		"long note":   {Title: "a note", Rows: []ForestRow{{Label: "a", Est: 1, Lo: 0, Hi: 2, Note: long}}},
		"reversed":    {Title: "band", Band: [2]float64{0.1, -0.1}, Rows: []ForestRow{{Label: "a", Est: 5, Lo: 4, Hi: 6}}},
		"log null 0":  {Title: "log", Log: true, Rows: []ForestRow{{Label: "a", Est: 2, Lo: 1, Hi: 4}, {Label: "b", Est: -1, Lo: -2, Hi: 1}}},
		"no title":    {Rows: []ForestRow{{Label: "a", Est: 1, Lo: 1, Hi: 1}}},
	} {
		t.Run(name, func(t *testing.T) {
			fig, _ := writeForestSVG(t, f)
			if f.Pooled == nil && len(diamonds(fig)) != 0 {
				t.Error("a diamond without a pooled estimate")
			}
		})
	}
}
