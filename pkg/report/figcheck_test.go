package report

import (
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// committedSVGs returns the committed SVG figures.
func committedSVGs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "figures", "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no committed SVG figures under ../../figures")
	}
	return files
}

// Every marker and line of every committed SVG figure lies inside the
// axes of a panel.
func TestCommittedFiguresPointsInsideAxes(t *testing.T) {
	for _, f := range committedSVGs(t) {
		fig, err := readSVG(f)
		if err != nil {
			t.Fatal(err)
		}
		if out := pointsOutsideAxes(fig); len(out) > 0 {
			t.Errorf("%s: %d marks outside the axes, first %s", filepath.Base(f), len(out), out[0])
		}
	}
}

// No two legend entries of a committed SVG figure share colour and
// marker.
func TestCommittedFiguresDistinctMarkers(t *testing.T) {
	for _, f := range committedSVGs(t) {
		fig, err := readSVG(f)
		if err != nil {
			t.Fatal(err)
		}
		if same := sameLooks(fig); len(same) > 0 {
			t.Errorf("%s: %d pairs of series look alike, first %s", filepath.Base(f), len(same), same[0])
		}
	}
}

// noClipGlyph draws the marker of index idx at (x, y) in data
// coordinates, even outside the axes.
type noClipGlyph struct {
	x, y float64
	idx  int
}

func (g noClipGlyph) Plot(c draw.Canvas, p *plot.Plot) {
	xf, yf := p.Transforms(&c)
	c.DrawGlyphNoClip(glyphAt(g.idx), vg.Point{X: xf(g.x), Y: yf(g.y)})
}

// checkFigure draws two series of the given style indices and a marker at
// (1, y) on one panel with its legend, and reads back the SVG.
func checkFigure(t *testing.T, i, j int, y float64) *svgFigure {
	t.Helper()
	st := &style{index: map[string]int{}, series: map[string]int{}, taken: map[int]bool{}, shown: map[string]bool{}}
	p := newFig("a constructed figure", "x", "y", false, false)
	x := []float64{0, 1, 2, 3}
	l := &layout{plots: []*plot.Plot{p.Plot}, w: figWidth, h: figHeight}
	l.entries = append(l.entries, entry{"first", st.curve(p, i, x, []float64{0, 1, 2, 3}, true)})
	l.entries = append(l.entries, entry{"second", st.curve(p, j, x, []float64{3, 2, 1, 0}, true)})
	p.Add(noClipGlyph{1, y, 2})
	dir := t.TempDir()
	if _, err := l.save(dir, "check"); err != nil {
		t.Fatal(err)
	}
	fig, err := readSVG(filepath.Join(dir, "check.svg"))
	if err != nil {
		t.Fatal(err)
	}
	return fig
}

// The checks find what they should on figures drawn by the report's own
// code: a marker above the axes, and two series of one style index.
func TestFigureChecksFind(t *testing.T) {
	good := checkFigure(t, 0, 1, 1.5)
	if n := len(good.panels()); n != 1 {
		t.Fatalf("%d panels, want 1", n)
	}
	if out := pointsOutsideAxes(good); len(out) != 0 {
		t.Errorf("a good figure has marks outside the axes: %v", out)
	}
	if same := sameLooks(good); len(same) != 0 {
		t.Errorf("a good figure has series that look alike: %v", same)
	}
	above := checkFigure(t, 0, 1, 4)
	if out := pointsOutsideAxes(above); len(out) != 1 {
		t.Errorf("a marker above the axes: found %v, want it alone", out)
	}
	alike := checkFigure(t, 3, 3, 1.5)
	if same := sameLooks(alike); len(same) != 1 {
		t.Errorf("two series of one style index: found %v, want one pair", same)
	}
	// The same colour with another glyph, and another colour with the
	// same glyph, differ.
	for _, ij := range [][2]int{{0, len(palette)}, {0, 1}} {
		if same := sameLooks(checkFigure(t, ij[0], ij[1], 1.5)); len(same) != 0 {
			t.Errorf("indices %v: %v look alike", ij, same)
		}
	}
}

// Two panels side by side with eleven long legend entries (the rff
// figures) keep the panels' width with the legend below them, inside the
// canvas and under the axes; on the right it would make the figure twice
// as wide.
func TestLayoutLegendBelow(t *testing.T) {
	draw := func(below bool) (*svgFigure, vg.Length, vg.Length) {
		st := &style{index: map[string]int{}, series: map[string]int{}, taken: map[int]bool{}, shown: map[string]bool{}}
		l := &layout{w: rateSide, h: rateSide * 0.85, below: below}
		x := []float64{1, 2, 3, 4}
		for k := range 2 {
			p := newFig("panel", "number of particles N", "MMD² (log scale)", false, true)
			for i := range 11 {
				th := st.curve(p, i, x, []float64{1, 0.5 / float64(i+1), 0.25, 0.1}, true)
				if k == 0 {
					l.entries = append(l.entries, entry{"mmdfw-exact-rff-d1000 (5 splits) [own RFF kernel, exact LMO]: rate 0.11/particle, R² 0.864 #" + string(rune('a'+i)), th})
				}
			}
			l.plots = append(l.plots, p.Plot)
		}
		dir := t.TempDir()
		if _, err := l.save(dir, "two"); err != nil {
			t.Fatal(err)
		}
		out, err := textOutside(filepath.Join(dir, "two.svg"))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			t.Errorf("below=%v: text outside the canvas: %s", below, o)
		}
		fig, err := readSVG(filepath.Join(dir, "two.svg"))
		if err != nil {
			t.Fatal(err)
		}
		w, h := l.size()
		return fig, w, h
	}
	fig, w, h := draw(true)
	if w != 2*rateSide || h > 2*rateSide {
		t.Errorf("legend below: %.0f×%.0f points, want %.0f wide and at most as high", w, h, 2*rateSide)
	}
	ps := fig.panels()
	if len(ps) != 2 {
		t.Fatalf("%d panels, want 2", len(ps))
	}
	entries := 0
	for _, tx := range fig.texts {
		if tx.size == 9 {
			entries++
			if tx.y < ps[0].y1+10 {
				t.Errorf("legend entry %q at y %.1f, not under the panels (bottom %.1f)", tx.body, tx.y, ps[0].y1)
			}
		}
	}
	if entries != 11 {
		t.Errorf("%d legend entries of 9 points, want 11", entries)
	}
	if same := sameLooks(fig); len(same) != 0 {
		t.Errorf("series look alike: %v", same)
	}
	if _, wr, _ := draw(false); wr < w+4*vg.Inch {
		t.Errorf("legend right: %.0f points wide, want the legend's width more than %.0f", wr, w)
	}
}
