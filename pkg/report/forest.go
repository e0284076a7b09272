package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteForest draws f as dir/name.png, .svg and .pdf (Formats) and
// returns the files written.
//
// The title, wrapped to the canvas, heads it; below, one line per row of
// f.Rows from the top: the row's label at the left, its estimate as a
// square with its interval as a horizontal bar, and at the right the
// estimate and interval in figures (with the number of splits when N > 0)
// and the row's note. A row with a note is excluded: it is drawn in grey.
// A row whose estimate cannot be drawn (not finite, or not positive on a
// log axis) gets no mark, only its note (or the reason). The pooled
// estimate, below a rule, is a diamond spanning its interval. The
// no-effect line is drawn at f.Null and the margin band [f.Band[0],
// f.Band[1]] is shaded (none when both are zero).
//
// The axis spans the estimates, the no-effect line, the band and the
// pooled interval, widened by that span on each side at most to take in
// the rows' intervals; an interval beyond it (or infinite) is cut at the
// axis with an arrowhead pointing on. Every text and mark lies inside the
// canvas, and every mark inside the axes.
func WriteForest(dir, name string, f Forest) ([]string, error) {
	fd := newForestDrawing(f)
	return saveDrawing(dir, name, fd.w, fd.h, fd.draw)
}

// Forest plot geometry.
const (
	forestMargin  = 6 * vg.Length(1)
	forestGap     = 8 * vg.Length(1)
	forestPlotW   = 3.2 * vg.Inch
	forestLabelW  = 2.2 * vg.Inch // labels wider than this are wrapped
	forestNoteW   = 2.6 * vg.Inch // notes wider than this are wrapped
	forestRowPad  = 7 * vg.Length(1)
	forestAxisH   = 0.55 * vg.Inch // the x axis: ticks, their labels and the axis label's first line
	forestArrow   = 5 * vg.Length(1)
	forestDiamond = 0.32 // half the diamond's height, as a share of its row
)

var (
	forestGrey = color.NRGBA{R: 140, G: 140, B: 140, A: 255}
	forestBand = color.NRGBA{R: 86, G: 180, B: 233, A: 70}
	forestMain = color.NRGBA{A: 255}
)

// forestLine is one drawn line of a forest plot.
type forestLine struct {
	row          ForestRow
	label, right string  // wrapped texts
	y, h         float64 // centre and height of the line's slot, in points
	pooled       bool
	excluded     bool // drawn in grey
	drawn        bool // the estimate has a mark
	est          float64
	lo, hi       float64 // interval ends in axis coordinates, ±Inf when beyond any axis
	interval     bool    // the interval is drawn
}

// forestDrawing is a forest plot laid out on its canvas.
type forestDrawing struct {
	f                    Forest
	p                    *plot.Plot
	lines                []forestLine
	sep                  float64 // y of the rule above the pooled line; NaN for none
	title                string
	titleSty, sty, small text.Style
	labelW, noteW        vg.Length
	w, h                 vg.Length
}

// tr maps a value to axis coordinates (log10 on a log axis); false when
// it cannot be drawn. ±Inf maps to ±Inf with true, and 0 on a log axis
// to −Inf, so that an unbounded interval end is cut with an arrow.
func (fd *forestDrawing) tr(v float64) (float64, bool) {
	if math.IsNaN(v) {
		return 0, false
	}
	if fd.f.Log {
		if v < 0 {
			return 0, false
		}
		return math.Log10(v), true
	}
	return v, true
}

func forestNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	return fmt.Sprintf("%.3g", v)
}

func newForestDrawing(f Forest) *forestDrawing {
	p := plot.New()
	fd := &forestDrawing{f: f, p: p, sep: math.NaN()}
	fd.sty = p.X.Label.TextStyle
	fd.sty.Font.Size = vg.Points(10)
	fd.small = fd.sty
	fd.small.Font.Size = vg.Points(9)
	fd.titleSty = p.Title.TextStyle
	fd.titleSty.Font.Size = vg.Points(11)

	rows := append([]ForestRow(nil), f.Rows...)
	if f.Pooled != nil {
		pr := *f.Pooled
		if pr.Label == "" {
			pr.Label = "pooled"
		}
		rows = append(rows, pr)
	}
	lineH := float64(fd.sty.Height("M"))
	for i, r := range rows {
		ln := forestLine{row: r, pooled: f.Pooled != nil && i == len(rows)-1, lo: math.NaN(), hi: math.NaN()}
		ln.label = wrap(fd.sty, r.Label, forestLabelW)
		est, ok := fd.tr(r.Est)
		ln.drawn = ok && !math.IsInf(est, 0)
		ln.excluded = r.Note != ""
		var right []string
		if ln.drawn {
			ln.est = est
			lo, okLo := fd.tr(r.Lo)
			hi, okHi := fd.tr(r.Hi)
			ln.interval = okLo && okHi
			if ln.interval {
				ln.lo, ln.hi = lo, hi
				right = append(right, fmt.Sprintf("%s [%s, %s]", forestNum(r.Est), forestNum(r.Lo), forestNum(r.Hi)))
			} else {
				right = append(right, forestNum(r.Est)+", no interval")
			}
			if r.N > 0 {
				right[0] += fmt.Sprintf(" (%s)", splitsText(r.N))
			}
			if r.Note != "" {
				right = append(right, r.Note)
			}
		} else {
			ln.excluded = true
			why := r.Note
			if why == "" {
				why = "estimate " + forestNum(r.Est)
				if f.Log && Finite(r.Est) {
					why += " (not positive on a log axis)"
				}
			}
			right = append(right, "not drawn: "+why)
		}
		ln.right = wrap(fd.small, strings.Join(right, "\n"), forestNoteW)
		lines := max(strings.Count(ln.label, "\n"), strings.Count(ln.right, "\n")) + 1
		ln.h = float64(lines)*lineH + float64(forestRowPad)
		fd.lines = append(fd.lines, ln)
	}
	// Slots from the top down: y runs from the total height to 0.
	total := 0.0
	for _, ln := range fd.lines {
		total += ln.h
		if ln.pooled {
			total += float64(forestRowPad)
		}
	}
	if len(fd.lines) == 0 {
		total = lineH + float64(forestRowPad)
	}
	y := total
	for i := range fd.lines {
		if fd.lines[i].pooled {
			y -= float64(forestRowPad) / 2
			fd.sep = y
			y -= float64(forestRowPad) / 2
		}
		fd.lines[i].y = y - fd.lines[i].h/2
		y -= fd.lines[i].h
	}
	for _, ln := range fd.lines {
		fd.labelW = max(fd.labelW, fd.sty.Width(ln.label))
		fd.noteW = max(fd.noteW, fd.small.Width(ln.right))
	}

	fd.axis()
	xl := f.XLabel
	if f.Log {
		xl += " (log scale)"
	}
	p.X.Label.Text = wrap(p.X.Label.TextStyle, strings.TrimSpace(xl), forestPlotW-forestGap)
	p.HideY()
	p.Y.Min, p.Y.Max = 0, total
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid, forestPlotter{fd})

	fd.w = 2*forestMargin + fd.labelW + forestGap + forestPlotW + forestGap + fd.noteW
	fd.title = wrap(fd.titleSty, f.Title, fd.w-2*forestMargin)
	titleH := vg.Length(0)
	if strings.TrimSpace(fd.title) != "" {
		titleH = fd.titleSty.Height(fd.title) + forestGap
	}
	xlH := p.X.Label.TextStyle.Height(p.X.Label.Text) - p.X.Label.TextStyle.Height("M")
	fd.h = 2*forestMargin + titleH + vg.Length(total) + forestAxisH + xlH
	return fd
}

// axis sets the x range (in axis coordinates) as WriteForest describes.
func (fd *forestDrawing) axis() {
	f := fd.f
	lo, hi := math.Inf(1), math.Inf(-1)
	take := func(v float64) {
		if t, ok := fd.tr(v); ok && !math.IsInf(t, 0) {
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	take(f.Null)
	if f.Band != [2]float64{} {
		take(f.Band[0])
		take(f.Band[1])
	}
	for _, ln := range fd.lines {
		if ln.drawn {
			take(ln.row.Est)
			if ln.pooled && ln.interval {
				take(ln.row.Lo)
				take(ln.row.Hi)
			}
		}
	}
	if lo > hi {
		lo, hi = -1, 1
	}
	span := hi - lo
	if span == 0 {
		span = 1
		if f.Log {
			span = 0.3
		}
	}
	amin, amax := lo, hi
	for _, ln := range fd.lines {
		if ln.interval {
			if !math.IsInf(ln.lo, 0) {
				amin = math.Min(amin, math.Max(ln.lo, lo-span))
			}
			if !math.IsInf(ln.hi, 0) {
				amax = math.Max(amax, math.Min(ln.hi, hi+span))
			}
		}
	}
	pad := 0.05 * (amax - amin)
	if pad == 0 {
		pad = 0.05 * span
	}
	fd.p.X.Min, fd.p.X.Max = amin-pad, amax+pad
	if f.Log {
		fd.p.X.Tick.Marker = logTicks{}
	}
}

// draw paints the forest plot on dc.
func (fd *forestDrawing) draw(dc draw.Canvas) {
	top := dc.Max.Y - forestMargin
	if strings.TrimSpace(fd.title) != "" {
		ts := fd.titleSty
		ts.XAlign, ts.YAlign = text.XCenter, text.YTop
		dc.FillText(ts, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: top}, fd.title)
		top -= fd.titleSty.Height(fd.title) + forestGap
	}
	pc := dc
	pc.Min.X = dc.Min.X + forestMargin + fd.labelW + forestGap
	pc.Max.X = pc.Min.X + forestPlotW
	pc.Max.Y = top
	pc.Min.Y = dc.Min.Y + forestMargin
	fd.p.Draw(pc)
}

// forestPlotter draws the band, the no-effect line, the rows, the
// diamond and the texts beside the axes.
type forestPlotter struct{ fd *forestDrawing }

// Plot implements plot.Plotter.
func (fp forestPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	fd := fp.fd
	xf, yf := plt.Transforms(&c)
	clampX := func(v float64) (vg.Length, int) {
		switch {
		case v < plt.X.Min:
			return c.Min.X, -1
		case v > plt.X.Max:
			return c.Max.X, 1
		}
		return xf(v), 0
	}
	if fd.f.Band != [2]float64{} {
		b0, ok0 := fd.tr(fd.f.Band[0])
		b1, ok1 := fd.tr(fd.f.Band[1])
		if ok0 && ok1 {
			x0, _ := clampX(math.Min(b0, b1))
			x1, _ := clampX(math.Max(b0, b1))
			c.FillPolygon(forestBand, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		}
	}
	if n, ok := fd.tr(fd.f.Null); ok && n >= plt.X.Min && n <= plt.X.Max {
		c.StrokeLine2(draw.LineStyle{Color: forestMain, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}, xf(n), c.Min.Y, xf(n), c.Max.Y)
	}
	if !math.IsNaN(fd.sep) {
		y := yf(fd.sep)
		c.StrokeLine2(draw.LineStyle{Color: forestGrey, Width: vg.Points(0.5)}, c.Min.X, y, c.Max.X, y)
	}
	for _, ln := range fd.lines {
		y := yf(ln.y)
		col := forestMain
		if ln.excluded {
			col = forestGrey
		}
		if ln.drawn {
			x := xf(ln.est)
			var x0, x1 vg.Length
			var cut0, cut1 int
			if ln.interval {
				x0, cut0 = clampX(ln.lo)
				x1, cut1 = clampX(ln.hi)
			}
			if ln.pooled {
				half := vg.Length(forestDiamond * ln.h * float64(c.Max.Y-c.Min.Y) / (plt.Y.Max - plt.Y.Min))
				if !ln.interval {
					x0, x1 = x-vg.Points(4), x+vg.Points(4)
				}
				c.FillPolygon(col, []vg.Point{{X: x0, Y: y}, {X: x, Y: y + half}, {X: x1, Y: y}, {X: x, Y: y - half}})
			} else {
				if ln.interval {
					c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(1.2)}, x0, y, x1, y)
				}
				c.DrawGlyph(draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.BoxGlyph{}}, vg.Point{X: x, Y: y})
			}
			for _, cut := range []struct {
				x   vg.Length
				dir int
			}{{x0, cut0}, {x1, cut1}} {
				if cut.dir == 0 {
					continue
				}
				d := vg.Length(cut.dir)
				c.FillPolygon(col, []vg.Point{{X: cut.x, Y: y}, {X: cut.x - d*forestArrow, Y: y + forestArrow*0.6}, {X: cut.x - d*forestArrow, Y: y - forestArrow*0.6}})
			}
		}
		ls := fd.sty
		ls.Color = col
		ls.XAlign, ls.YAlign = text.XRight, text.YCenter
		c.FillText(ls, vg.Point{X: c.Min.X - forestGap, Y: y}, ln.label)
		rs := fd.small
		rs.Color = col
		rs.XAlign, rs.YAlign = text.XLeft, text.YCenter
		c.FillText(rs, vg.Point{X: c.Max.X + forestGap, Y: y}, ln.right)
	}
}
