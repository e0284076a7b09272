package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// affine is the SVG matrix (a b c d e f): (x, y) ↦ (ax + cy + e, bx + dy + f).
type affine [6]float64

var identity = affine{1, 0, 0, 1, 0, 0}

// then returns the map that applies n first, then m.
func (m affine) then(n affine) affine {
	return affine{
		m[0]*n[0] + m[2]*n[1], m[1]*n[0] + m[3]*n[1],
		m[0]*n[2] + m[2]*n[3], m[1]*n[2] + m[3]*n[3],
		m[0]*n[4] + m[2]*n[5] + m[4], m[1]*n[4] + m[3]*n[5] + m[5],
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

var transformRE = regexp.MustCompile(`(scale|translate|rotate)\(([^)]*)\)`)

// parseTransform reads the scale, translate and rotate terms that vgsvg
// writes.
func parseTransform(s string) (affine, error) {
	m := identity
	for _, t := range transformRE.FindAllStringSubmatch(s, -1) {
		var v []float64
		for _, f := range strings.FieldsFunc(t[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return m, fmt.Errorf("transform %q: %v", s, err)
			}
			v = append(v, x)
		}
		var n affine
		switch {
		case t[1] == "scale" && len(v) == 2:
			n = affine{v[0], 0, 0, v[1], 0, 0}
		case t[1] == "scale" && len(v) == 1:
			n = affine{v[0], 0, 0, v[0], 0, 0}
		case t[1] == "translate" && len(v) == 2:
			n = affine{1, 0, 0, 1, v[0], v[1]}
		case t[1] == "rotate" && len(v) == 1:
			r := v[0] * math.Pi / 180
			n = affine{math.Cos(r), math.Sin(r), -math.Sin(r), math.Cos(r), 0, 0}
		default:
			return m, fmt.Errorf("transform %q: cannot read %s", s, t[0])
		}
		m = m.then(n)
	}
	return m, nil
}

var fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)

// textOutside returns the texts of the SVG file at path that do not lie
// inside its canvas: the start and the end of each text's baseline, the
// end placed by the width of the text in the figures' font, must both
// fall within the viewBox (to a tenth of a point).
func textOutside(path string) ([]string, error) {
	fig, err := readSVG(path)
	if err != nil {
		return nil, err
	}
	in := func(px, py float64) bool {
		const tol = 0.1
		return px >= -tol && px <= fig.w+tol && py >= -tol && py <= fig.h+tol
	}
	var out []string
	for _, t := range fig.texts {
		if !in(t.x, t.y) || !in(t.x1, t.y1) {
			out = append(out, fmt.Sprintf("%q from (%.1f, %.1f) to (%.1f, %.1f) on a %.0f×%.0f canvas", t.body, t.x, t.y, t.x1, t.y1, fig.w, fig.h))
		}
	}
	return out, nil
}

// Every text of every committed SVG figure lies inside its canvas: no
// legend entry below it, no title left of it.
func TestCommittedFiguresTextInsideCanvas(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "figures", "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no committed SVG figures under ../../figures")
	}
	bad := 0
	for _, f := range files {
		out, err := textOutside(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 0 {
			bad++
			t.Errorf("%s: %d texts outside the canvas, first %s", filepath.Base(f), len(out), out[0])
		}
	}
	if bad > 0 {
		t.Logf("%d of %d figures have text outside the canvas", bad, len(files))
	}
}

// textOutside finds what it should: a text that runs past the right edge,
// one left of the canvas, and a rotated one past the top.
func TestTextOutsideFindsTexts(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "f.svg")
		svg := `<?xml version="1.0"?><svg width="100pt" height="50pt" viewBox="0 0 100 50" xmlns="http://www.w3.org/2000/svg">` +
			`<g transform="scale(1, -1) translate(0, -50)">` + body + `</g></svg>`
		if err := os.WriteFile(p, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	txt := func(x, y float64, s string) string {
		return fmt.Sprintf(`<text x="%g" y="%g" transform="scale(1, -1)" style="font-size:10px">%s</text>`, x, y, s)
	}
	for _, c := range []struct {
		body string
		bad  int
	}{
		{txt(5, -20, "ok"), 0},
		{txt(60, -20, "a text far too long for the canvas"), 1},
		{txt(-3, -20, "left"), 1},
		{txt(5, -60, "above"), 1},
		{`<g transform="rotate(90)">` + txt(5, 10, "up") + `</g>`, 0},
		{`<g transform="rotate(90)">` + txt(30, 10, "a rotated text too long") + `</g>`, 1},
	} {
		out, err := textOutside(write(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != c.bad {
			t.Errorf("%s: %d outside (%v), want %d", c.body, len(out), out, c.bad)
		}
	}
}

// No two indices below len(palette)·8 share colour and glyph, and the
// series of one method after its first take fresh indices.
func TestStyleDistinct(t *testing.T) {
	type look struct {
		c     [4]uint8
		shape string
	}
	seen := map[look]int{}
	for i := 0; i < len(palette)*8; i++ {
		c := colorAt(i)
		k := look{[4]uint8{c.R, c.G, c.B, c.A}, fmt.Sprintf("%T", glyphAt(i).Shape)}
		if j, ok := seen[k]; ok {
			t.Fatalf("indices %d and %d share colour and glyph %v", j, i, k)
		}
		seen[k] = i
	}
	st := newStyle(nil)
	st.index["svgd"] = 1
	st.index["mmdfw"] = 0
	got := map[int]string{}
	for _, n := range []string{"svgd (N=5)", "svgd (N=10)", "svgd (N=20)", "mmdfw", "svgd (N=5)"} {
		m := strings.Fields(n)[0]
		i := st.of(n, m)
		if prev, ok := got[i]; ok && prev != n {
			t.Errorf("%s and %s share index %d", prev, n, i)
		}
		got[i] = n
	}
	if st.of("svgd (N=5)", "svgd") != 1 || st.of("mmdfw", "mmdfw") != 0 {
		t.Errorf("the first series of a method does not keep its index: %v", st.series)
	}
}
