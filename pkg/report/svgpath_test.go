package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// svgFace is the figures' font face at size points.
func svgFace(size float64) font.Face {
	return font.DefaultCache.Lookup(plot.DefaultFont, vg.Length(size))
}

// svgPath is one path of an SVG figure in the figure's own coordinates
// (points from the top left, y down): its commands (M, L, A, Z) in order,
// the end point of each M, L and A, and its style attribute.
type svgPath struct {
	cmds  string
	pts   [][2]float64
	style string
}

// svgText is one text of an SVG figure: its body, the start (x, y) and
// end (x1, y1) of its baseline in the figure's coordinates, the end placed
// by its width w in the figures' font.
type svgText struct {
	body          string
	x, y, w, size float64
	x1, y1        float64
	horizontal    bool
}

// svgFigure is what the figure tests read of an SVG file.
type svgFigure struct {
	w, h  float64
	paths []svgPath
	texts []svgText
}

var pathTokenRE = regexp.MustCompile(`[MLAZ]|-?[0-9.]+(?:e-?[0-9]+)?`)

// readSVG reads the paths and texts of an SVG file written by vgsvg.
func readSVG(path string) (*svgFigure, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	fig := &svgFigure{}
	stack := []affine{identity}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			m, err := parseTransform(attr["transform"])
			if err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			full := stack[len(stack)-1].then(m)
			switch e.Name.Local {
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					return nil, fmt.Errorf("%s: viewBox %q", path, attr["viewBox"])
				}
				fig.w, _ = strconv.ParseFloat(vb[2], 64)
				fig.h, _ = strconv.ParseFloat(vb[3], 64)
			case "path":
				p, err := parsePath(attr["d"], full)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", path, err)
				}
				p.style = attr["style"]
				fig.paths = append(fig.paths, p)
			case "text":
				var body string
				if err := dec.DecodeElement(&body, &e); err != nil {
					return nil, fmt.Errorf("%s: %v", path, err)
				}
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				fs := fontSizeRE.FindStringSubmatch(attr["style"])
				if fs == nil {
					return nil, fmt.Errorf("%s: text %q has no font size", path, body)
				}
				size, _ := strconv.ParseFloat(fs[1], 64)
				face := svgFace(size)
				tw := float64(face.Width(body))
				x0, y0 := full.apply(x, y)
				x1, y1 := full.apply(x+tw, y)
				fig.texts = append(fig.texts, svgText{body: body, x: x0, y: y0, x1: x1, y1: y1, size: size, w: math.Hypot(x1-x0, y1-y0), horizontal: math.Abs(y1-y0) < 1e-6})
				continue // DecodeElement consumed the end element
			}
			stack = append(stack, full)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return fig, nil
}

// parsePath reads the M, L, A and Z commands of an SVG path and maps
// their end points by m.
func parsePath(d string, m affine) (svgPath, error) {
	var p svgPath
	toks := pathTokenRE.FindAllString(d, -1)
	num := func(i int) (float64, error) {
		if i >= len(toks) {
			return 0, fmt.Errorf("path %q: too few numbers", d)
		}
		return strconv.ParseFloat(toks[i], 64)
	}
	for i := 0; i < len(toks); {
		c := toks[i]
		var skip, n int
		switch c {
		case "M", "L":
			skip, n = 0, 2
		case "A":
			skip, n = 5, 2
		case "Z":
			p.cmds += c
			i++
			continue
		default:
			return p, fmt.Errorf("path %q: cannot read %q", d, c)
		}
		x, err := num(i + 1 + skip)
		if err != nil {
			return p, err
		}
		y, err := num(i + 2 + skip)
		if err != nil {
			return p, err
		}
		X, Y := m.apply(x, y)
		p.cmds += c
		p.pts = append(p.pts, [2]float64{X, Y})
		i += 1 + skip + n
	}
	return p, nil
}

// bbox returns the bounding box of p's points.
func (p svgPath) bbox() (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range p.pts {
		x0, x1 = math.Min(x0, q[0]), math.Max(x1, q[0])
		y0, y1 = math.Min(y0, q[1]), math.Max(y1, q[1])
	}
	return
}

var colourRE = regexp.MustCompile(`(fill|stroke):(#[0-9A-Fa-f]{6})`)

// colour returns the path's stroke colour, else its fill colour, and
// whether it is filled.
func (p svgPath) colour() (string, bool) {
	var fill, stroke string
	for _, m := range colourRE.FindAllStringSubmatch(p.style, -1) {
		if m[1] == "fill" {
			fill = strings.ToUpper(m[2])
		} else {
			stroke = strings.ToUpper(m[2])
		}
	}
	if stroke != "" {
		return stroke, false
	}
	return fill, fill != ""
}

// rect is an axis-aligned rectangle in a figure's coordinates.
type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) contains(x, y, tol float64) bool {
	return x >= r.x0-tol && x <= r.x1+tol && y >= r.y0-tol && y <= r.y1+tol
}

// axisLine reports whether p is an axis line as gonum/plot draws it: a
// black straight line of width 0.5 longer than 40 points; horizontal
// tells its direction.
func axisLine(p svgPath) (horizontal, ok bool) {
	if p.cmds != "ML" || !strings.Contains(p.style, "stroke:#000000;stroke-width:0.5") {
		return false, false
	}
	a, b := p.pts[0], p.pts[1]
	switch {
	case math.Abs(a[1]-b[1]) < 1e-6 && math.Abs(a[0]-b[0]) > 40:
		return true, true
	case math.Abs(a[0]-b[0]) < 1e-6 && math.Abs(a[1]-b[1]) > 40:
		return false, true
	}
	return false, false
}

// panels returns the data area of each panel of fig: the x range of its
// x axis line by the y range of the y axis line just left of that line's
// start.
func (fig *svgFigure) panels() []rect {
	var xs, ys []svgPath
	for _, p := range fig.paths {
		if h, ok := axisLine(p); ok && h {
			xs = append(xs, p)
		} else if ok {
			ys = append(ys, p)
		}
	}
	var out []rect
	for _, xa := range xs {
		x0, _, x1, _ := xa.bbox()
		best, dist := -1, 30.0
		for i, ya := range ys {
			if d := x0 - ya.pts[0][0]; d >= 0 && d < dist {
				best, dist = i, d
			}
		}
		if best < 0 {
			continue
		}
		_, y0, _, y1 := ys[best].bbox()
		out = append(out, rect{x0, y0, x1, y1})
	}
	return out
}

// isMark reports whether p is data drawn in a colour: not an axis, tick
// or grid line (black or the grid's grey) and not the white background.
func isMark(p svgPath) bool {
	c, _ := p.colour()
	return c != "" && c != "#000000" && c != "#FFFFFF" && !strings.Contains(p.style, "stroke-width:0.25")
}

// legendThumb is how far left of its text a legend entry's thumbnail
// reaches.
const legendThumb = 25

// glyphSize is the largest extent of a path taken for a marker glyph.
const glyphSize = 8

// pointsOutsideAxes returns the marks of fig (marker glyphs by their
// centre, lines and polygons by every point) that lie within the
// horizontal span of its panels but outside every panel's data area. The
// legend, right of the panels, is not checked.
func pointsOutsideAxes(fig *svgFigure) []string {
	ps := fig.panels()
	if len(ps) == 0 {
		return nil
	}
	left, right := math.Inf(1), math.Inf(-1)
	for _, r := range ps {
		left, right = math.Min(left, r.x0), math.Max(right, r.x1)
	}
	inside := func(x, y, tol float64) bool {
		for _, r := range ps {
			if r.contains(x, y, tol) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, p := range fig.paths {
		if !isMark(p) || len(p.pts) == 0 {
			continue
		}
		x0, y0, x1, y1 := p.bbox()
		if x1-x0 <= glyphSize && y1-y0 <= glyphSize {
			cx, cy := p.centre()
			if cx >= left && cx <= right && !inside(cx, cy, 0.5) {
				out = append(out, fmt.Sprintf("marker at (%.1f, %.1f), %s", cx, cy, p.style))
			}
			continue
		}
		for _, q := range p.pts {
			if q[0] >= left && q[0] <= right && !inside(q[0], q[1], 0.5) {
				out = append(out, fmt.Sprintf("point (%.1f, %.1f) of a %d-point path, %s", q[0], q[1], len(p.pts), p.style))
				break
			}
		}
	}
	return out
}

// centre returns the point a marker glyph is drawn at: the centroid of a
// polygon's corners (a triangle's is its centre, not its bounding box's),
// else the centre of its bounding box.
func (p svgPath) centre() (x, y float64) {
	if strings.Contains(p.cmds, "A") || !strings.HasSuffix(p.cmds, "Z") {
		x0, y0, x1, y1 := p.bbox()
		return (x0 + x1) / 2, (y0 + y1) / 2
	}
	for _, q := range p.pts {
		x += q[0]
		y += q[1]
	}
	return x / float64(len(p.pts)), y / float64(len(p.pts))
}

// glyphLook is what tells two markers apart: colour, filled or outlined,
// the drawing commands, and for a stroke whether it is upright (+) or
// diagonal (×): the two strokes of + or × are two paths, each with its
// look.
func glyphLook(p svgPath) string {
	c, filled := p.colour()
	look := fmt.Sprintf("%s filled=%v %s", c, filled, p.cmds)
	if p.cmds == "ML" {
		upright := math.Abs(p.pts[0][0]-p.pts[1][0]) < 1e-6 || math.Abs(p.pts[0][1]-p.pts[1][1]) < 1e-6
		look += fmt.Sprintf(" upright=%v", upright)
	}
	return look
}

// sameLooks returns the pairs of legend entries of fig whose markers look
// alike. A legend entry is a text of the legend's size (9 points) with
// marker glyphs (paths of at most glyphSize points in a colour) just left
// of it on its line; an entry without one (a note) is not compared.
func sameLooks(fig *svgFigure) []string {
	entries := map[string]string{} // look → entry
	var out []string
	for _, tx := range fig.texts {
		if !tx.horizontal || math.Abs(tx.size-9) > 1e-6 {
			continue
		}
		var looks []string
		for _, p := range fig.paths {
			if !isMark(p) {
				continue
			}
			x0, y0, x1, y1 := p.bbox()
			if x1-x0 > glyphSize || y1-y0 > glyphSize {
				continue
			}
			// A legend's thumbnails are 20 points wide, left of the text,
			// centred about 2 points above its baseline.
			cx, cy := p.centre()
			if cx < tx.x && cx > tx.x-legendThumb && math.Abs(cy-(tx.y-2)) < 3 {
				looks = append(looks, glyphLook(p))
			}
		}
		if len(looks) == 0 {
			continue
		}
		sort.Strings(looks)
		k := strings.Join(looks, "; ")
		if prev, ok := entries[k]; ok && prev != tx.body {
			out = append(out, fmt.Sprintf("%q and %q: %s", prev, tx.body, k))
			continue
		}
		entries[k] = tx.body
	}
	return out
}
