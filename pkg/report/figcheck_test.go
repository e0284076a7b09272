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
