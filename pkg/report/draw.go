package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
)

// Formats are the file formats every figure is written in.
var Formats = []string{"png", "svg", "pdf"}

// pngDPI is the resolution of the PNG figures.
const pngDPI = 150

// Figure sizes, without the legend column that is added on the right.
const (
	figWidth  = 6 * vg.Inch
	figHeight = 4 * vg.Inch
	panelSide = 3.6 * vg.Inch
)

// style gives every series of one figure a colour, glyph and dash
// pattern: the first MMD-FW, SVGD, SP and SGLD methods always get the
// same colours, so the figures of different experiments read alike;
// further methods take the remaining colours. A series takes its method's
// index the first time that index is drawn; a second series of the same
// method (one per particle count, say) takes a fresh index, so that no two
// series of a figure look alike. Index i is drawn in palette colour
// i mod C with glyph (i + ⌊i/C⌋) mod G and dash pattern ⌊i/C⌋, for C
// colours and G glyph shapes: two indices below C·G never share both
// colour and glyph (indices i and i+kC share the colour and differ in
// glyph by k(C+1) mod G, which is not 0 for 0 < k < G since C+1 and G are
// coprime).
type style struct {
	// index is each method's index.
	index map[string]int
	// series is each drawn series' index, by series name.
	series map[string]int
	// taken marks the indices of drawn series.
	taken map[int]bool
	// shown marks the methods with a series drawn.
	shown map[string]bool
	// noBand leaves out the bands of the series.
	noBand bool
}

// kindColour is the palette index of the first method of each kind rank.
var kindColour = []int{0, 1, 2, 3}

func newStyle(cells []*Cell) *style {
	names, _ := MethodOrder(cells)
	ranks := legendRanks(cells)
	s := &style{index: map[string]int{}, series: map[string]int{}, taken: map[int]bool{}, shown: map[string]bool{}}
	used := map[int]bool{}
	next := len(kindColour)
	for _, n := range names {
		r := ranks[n]
		if r < len(kindColour) && !used[kindColour[r]] {
			s.index[n] = kindColour[r]
			used[kindColour[r]] = true
			continue
		}
		s.index[n] = next
		next++
	}
	return s
}

// of returns the index of series name of method: the method's the first
// time it is drawn, else the lowest index that no method holds and no
// drawn series has taken.
func (s *style) of(name, method string) int {
	if i, ok := s.series[name]; ok {
		return i
	}
	i, ok := s.index[method]
	if !ok || s.taken[i] {
		reserved := map[int]bool{}
		for _, j := range s.index {
			reserved[j] = true
		}
		for i = 0; reserved[i] || s.taken[i]; i++ {
		}
	}
	s.series[name] = i
	s.taken[i] = true
	return i
}

// palette is colour-blind friendly (Okabe & Ito), then four darker
// colours for figures with many series. Its length and the number of
// glyph shapes (plotutil.DefaultGlyphShapes, 8) are coprime plus one:
// see style.
var palette = []color.NRGBA{
	{0, 114, 178, 255},   // blue: MMD-FW
	{213, 94, 0, 255},    // vermillion: SVGD
	{0, 158, 115, 255},   // green: SP
	{204, 121, 167, 255}, // purple: SGLD
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
	{153, 153, 153, 255}, // grey
	{136, 34, 85, 255},   // wine
	{17, 119, 51, 255},   // dark green
	{51, 34, 136, 255},   // indigo
	{153, 153, 51, 255},  // olive
}

// colorAt, glyphAt and dashesAt are the colour, glyph and dash pattern of
// index i.
func colorAt(i int) color.NRGBA { return palette[i%len(palette)] }

func glyphAt(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: colorAt(i), Radius: vg.Points(2.5), Shape: plotutil.Shape(i + i/len(palette))}
}

func dashesAt(i int) []vg.Length { return plotutil.Dashes(i / len(palette)) }

// color and dashes are the colour and dash pattern of method's own index
// (the first series of the method).
func (s *style) color(method string) color.NRGBA { return colorAt(s.index[method]) }

func (s *style) dashes(method string) []vg.Length { return dashesAt(s.index[method]) }

func fade(c color.NRGBA) color.NRGBA { c.A = 56; return c }

// fig is a plot whose log axes are drawn in log10 coordinates on a linear
// scale with power-of-ten labels: gonum/plot's LogScale places a centred
// axis label at the data midpoint, which on a log axis makes it reserve
// space beyond the data and squeeze the plot.
type fig struct {
	*plot.Plot
	logX, logY bool
	// level holds the series that a log x axis cannot show (their every
	// point at cost 0: a start-only baseline), to be drawn across the
	// axis as horizontal lines by levels.
	level []level
}

// level is a series drawn as a horizontal line.
type level struct {
	idx  int
	y    float64
	text string
}

// levels draws the series of f.level as horizontal lines across the x
// range of what f holds, and returns their legend entries, each saying
// why it is a line.
func (f *fig) levels() []entry {
	var out []entry
	for _, lv := range f.level {
		y := lv.y
		if f.logY {
			if y <= 0 {
				continue
			}
			y = math.Log10(y)
		}
		if !(f.X.Min < f.X.Max) {
			continue
		}
		line, err := plotter.NewLine(plotter.XYs{{X: f.X.Min, Y: y}, {X: f.X.Max, Y: y}})
		if err != nil {
			panic("report: " + err.Error())
		}
		line.Color = colorAt(lv.idx)
		line.Width = vg.Points(1.2)
		line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		f.Add(line)
		sc, err := plotter.NewScatter(plotter.XYs{{X: f.X.Min, Y: y}})
		if err != nil {
			panic("report: " + err.Error())
		}
		sc.GlyphStyle = glyphAt(lv.idx)
		f.Add(sc)
		out = append(out, entry{lv.text + ", at cost 0: drawn across the axis", []plot.Thumbnailer{line, sc}})
	}
	f.level = nil
	return out
}

// notDrawn returns a legend entry, without a thumbnail, for each method
// with finished cells on dataset ds that no series of the figure shows, so
// that a reader learns it was left out and why.
func (st *style) notDrawn(cells []*Cell, ds, label string) []entry {
	names, _ := MethodOrder(Done(CellsOf(cells, ds)))
	var out []entry
	for _, n := range names {
		if !st.shown[n] {
			out = append(out, entry{text: fmt.Sprintf("%s: not drawn (its %s lies where these axes cannot show it: at N = 0, at a cost ≤ 0 on a log axis, or not finite)", n, label)})
		}
	}
	return out
}

// atZero returns the value of y at the first x ≤ 0, when the x axis is
// logarithmic and every finite point of the series lies there.
func (f *fig) atZero(x, y []float64) (float64, bool) {
	if !f.logX {
		return 0, false
	}
	v, found := 0.0, false
	for i := range x {
		if !Finite(y[i]) {
			continue
		}
		if x[i] > 0 {
			return 0, false
		}
		if !found {
			v, found = y[i], true
		}
	}
	return v, found
}

// newFig returns a plot with the project's fonts and grid.
func newFig(title, xlabel, ylabel string, logX, logY bool) *fig {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	if logX {
		p.X.Tick.Marker = logTicks{}
	}
	if logY {
		p.Y.Tick.Marker = logTicks{}
	}
	return &fig{Plot: p, logX: logX, logY: logY}
}

// xy maps a data point to plot coordinates, false when it cannot be drawn
// (not finite, or not positive on a log axis).
func (f *fig) xy(x, y float64) (plotter.XY, bool) {
	if !Finite(x) || !Finite(y) || (f.logX && x <= 0) || (f.logY && y <= 0) {
		return plotter.XY{}, false
	}
	if f.logX {
		x = math.Log10(x)
	}
	if f.logY {
		y = math.Log10(y)
	}
	return plotter.XY{X: x, Y: y}, true
}

// logTicks labels the powers of ten within range, with minor ticks at
// their multiples; when fewer than two powers fall in range it labels the
// multiples 2 and 5 too, and every multiple when that still leaves fewer
// than two labels (a range within one decade). Unlike plot.LogTicks it keeps every tick inside
// [min, max], so that the plot does not shrink its data area to make room
// for labels beyond the data.
type logTicks struct{}

func (logTicks) Ticks(lmin, lmax float64) []plot.Tick {
	min, max := math.Pow(10, lmin), math.Pow(10, lmax)
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	in := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	major := 0
	for e := lo; e <= hi; e++ {
		if in(math.Pow10(e)) {
			major++
		}
	}
	step := max1((hi - lo) / 6)
	var ticks []plot.Tick
	var xs []float64
	for e := lo; e <= hi; e++ {
		v := math.Pow10(e)
		for i := 1; i < 10; i++ {
			x := v * float64(i)
			if e < 0 {
				x = float64(i) / math.Pow10(-e) // 3/10 is 0.3; 3·0.1 is not
			}
			if !in(x) || (i > 1 && hi-lo > 6) {
				continue
			}
			label := ""
			if (i == 1 && (e-lo)%step == 0) || (major < 2 && (i == 2 || i == 5)) {
				label = formatPow(x)
			}
			ticks = append(ticks, plot.Tick{Value: math.Log10(x), Label: label})
			xs = append(xs, x)
		}
	}
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		for i := range ticks {
			ticks[i].Label = formatPow(xs[i])
		}
	}
	return ticks
}

func max1(a int) int { return max(a, 1) }

func formatPow(v float64) string {
	if v >= 1e-3 && v <= 1e4 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 1, 64)
}

// band adds a filled polygon between lo and hi, skipping non-finite points.
func (f *fig) band(x, lo, hi []float64, c color.NRGBA) {
	var top, bot plotter.XYs
	for i := range x {
		h, ok1 := f.xy(x[i], hi[i])
		l, ok2 := f.xy(x[i], lo[i])
		if ok1 && ok2 {
			top = append(top, h)
			bot = append(bot, l)
		}
	}
	pts := top
	for i := len(bot) - 1; i >= 0; i-- {
		pts = append(pts, bot[i])
	}
	if len(pts) < 4 {
		return
	}
	// NewPolygon fails only on non-finite points, excluded above.
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		panic("report: " + err.Error())
	}
	poly.Color = fade(c)
	poly.LineStyle.Width = 0
	f.Add(poly)
}

// Finite reports whether v is neither NaN nor infinite.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// markerCount is about how many markers a dense curve carries.
const markerCount = 8

// curve adds the line and the markers of a series and returns the
// thumbnails of its legend entry. Every curve carries markers, so that a
// curve drawn under another stays visible: at every point when markers is
// set or the curve has few points, else at about markerCount points spread
// along it, staggered by index so that the glyphs of coinciding curves do
// not fall on one another.
func (s *style) curve(p *fig, idx int, x, y []float64, markers bool) []plot.Thumbnailer {
	var pts plotter.XYs
	for i := range x {
		if q, ok := p.xy(x[i], y[i]); ok {
			pts = append(pts, q)
		}
	}
	if len(pts) == 0 {
		return nil
	}
	// NewLine and NewScatter fail only on non-finite points, excluded by xy.
	var th []plot.Thumbnailer
	if len(pts) > 1 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			panic("report: " + err.Error())
		}
		l.Color = colorAt(idx)
		l.Width = vg.Points(1.5)
		l.Dashes = dashesAt(idx)
		p.Add(l)
		th = append(th, l)
	}
	mk := pts
	if !markers && len(pts) > 12 {
		step := len(pts) / markerCount
		mk = nil
		for i := (idx * step / 3) % step; i < len(pts); i += step {
			mk = append(mk, pts[i])
		}
	}
	sc, err := plotter.NewScatter(mk)
	if err != nil {
		panic("report: " + err.Error())
	}
	sc.GlyphStyle = glyphAt(idx)
	p.Add(sc)
	th = append(th, sc)
	return th
}

// entry is one legend line.
type entry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// layout draws plots side by side with the legend on the right (or
// below them: layout.below), so the legend never covers data. The legend takes as many columns as keep it
// within legendRows rows, and the canvas grows to the legend's height when
// that is taller than the panels: every entry is inside the canvas.
type layout struct {
	plots   []*plot.Plot
	entries []entry
	w, h    vg.Length // size of each panel
	// below puts the legend under the panels instead of right of them,
	// for panels side by side whose legend entries are long: the canvas
	// is then as wide as the panels (or the legend, when wider).
	below bool
}

// legendRows is the most entries of one legend column.
const legendRows = 30

// legendTop is the space above the legend, below the title.
const legendTop = 0.45 * vg.Inch

// columns returns the legend's columns.
func (l *layout) columns() []plot.Legend {
	n := len(l.entries)
	if n == 0 {
		return nil
	}
	cols := (n + legendRows - 1) / legendRows
	rows := (n + cols - 1) / cols
	var out []plot.Legend
	for i := 0; i < n; i += rows {
		lg := plot.NewLegend()
		lg.Top, lg.Left = true, true
		lg.TextStyle.Font.Size = vg.Points(9)
		for _, e := range l.entries[i:min(i+rows, n)] {
			lg.Add(e.text, e.thumbs...)
		}
		out = append(out, lg)
	}
	return out
}

// legendSize returns the width of each legend column and the height of
// the tallest.
func (l *layout) legendSize() (ws []vg.Length, h vg.Length) {
	for _, lg := range l.columns() {
		r := lg.Rectangle(draw.Canvas{})
		ws = append(ws, r.Max.X-r.Min.X+0.25*vg.Inch)
		h = max(h, r.Max.Y-r.Min.Y)
	}
	return ws, h
}

func (l *layout) size() (w, h vg.Length) {
	ws, lh := l.legendSize()
	w = l.w * vg.Length(len(l.plots))
	lw := vg.Length(0)
	for _, x := range ws {
		lw += x
	}
	if l.below {
		if lh > 0 {
			lh += legendGap + 0.1*vg.Inch
		}
		return max(w, lw+0.15*vg.Inch), l.h + lh
	}
	return w + lw, max(l.h, lh+legendTop+0.1*vg.Inch)
}

// legendGap is the space between the panels and a legend below them.
const legendGap = 0.1 * vg.Inch

func (l *layout) draw(dc draw.Canvas) {
	plotsW := l.w * vg.Length(len(l.plots))
	left := dc
	left.Max.X = dc.Min.X + plotsW
	// The panels keep their height when a long legend makes the canvas
	// taller: they stay at its top.
	left.Min.Y = max(left.Min.Y, left.Max.Y-l.h)
	for _, p := range l.plots {
		p.Title.Text = wrap(p.Title.TextStyle, p.Title.Text, l.w-vg.Points(8))
		p.Y.Label.Text = wrap(p.Y.Label.TextStyle, p.Y.Label.Text, l.h-vg.Points(40))
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(l.plots), PadX: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2)}
	cv := plot.Align([][]*plot.Plot{l.plots}, tiles, left)
	for i, p := range l.plots {
		p.Draw(cv[0][i])
	}
	ws, _ := l.legendSize()
	x := dc.Min.X + plotsW + 0.15*vg.Inch
	if l.below {
		x = dc.Min.X + 0.15*vg.Inch
	}
	for i, lg := range l.columns() {
		right := dc
		right.Min.X = x
		right.Max.X = x + ws[i]
		lg.YOffs = -legendTop // below the title
		if l.below {
			right.Max.Y = dc.Max.Y - l.h
			lg.YOffs = -legendGap
		}
		lg.Draw(right)
		x += ws[i]
	}
}

// wrap breaks each line of text that is wider than width in sty at
// spaces, so that a centred title or axis label never runs off its panel.
func wrap(sty text.Style, txt string, width vg.Length) string {
	var out []string
	for _, line := range strings.Split(txt, "\n") {
		cur := ""
		for _, w := range strings.Fields(line) {
			next := w
			if cur != "" {
				next = cur + " " + w
			}
			if cur != "" && sty.Width(next) > width {
				out = append(out, cur)
				cur = w
				continue
			}
			cur = next
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// save writes the layout as dir/name.<format> for every format.
func (l *layout) save(dir, name string) ([]string, error) {
	w, h := l.size()
	return saveDrawing(dir, name, w, h, l.draw)
}

// saveDrawing writes a w×h canvas that paint draws as dir/name.<format>
// for every format.
func saveDrawing(dir, name string, w, h vg.Length, paint func(draw.Canvas)) ([]string, error) {
	var files []string
	for _, f := range Formats {
		var c interface {
			vg.CanvasSizer
			io.WriterTo
		}
		switch f {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))}
		case "svg":
			c = vgsvg.New(w, h)
		case "pdf":
			c = newPDF(w, h)
		default:
			return files, fmt.Errorf("report: unknown figure format %q", f)
		}
		paint(draw.New(c))
		path := filepath.Join(dir, name+"."+f)
		if err := writeTo(path, c); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

func writeTo(path string, w io.WriterTo) error {
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, b.Bytes(), 0o644)
}

func splitsText(n int) string {
	if n == 1 {
		return "1 split"
	}
	return fmt.Sprintf("%d splits", n)
}

// linearSeries adds the mean ± sd band and mean line of each series and
// returns their legend entries.
func (st *style) linearSeries(p *fig, series []Series, markers bool) []entry {
	var entries []entry
	for _, s := range series {
		if s.Disjoint {
			entries = append(entries, st.disjoint(p, &s, nil)...)
			continue
		}
		mean, sd := s.MeanSD()
		lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
		for i := range mean {
			lo[i], hi[i] = mean[i]-sd[i], mean[i]+sd[i]
		}
		if !st.noBand {
			p.band(s.X, lo, hi, colorAt(st.of(s.Name, s.Method)))
		}
		text := fmt.Sprintf("%s (%s)", s.Name, splitsText(s.Splits))
		if th := st.curve(p, st.of(s.Name, s.Method), s.X, mean, markers && len(s.X) <= 12); th != nil {
			entries = append(entries, entry{text, th})
			st.shown[s.Method] = true
		} else if v, ok := p.atZero(s.X, mean); ok {
			p.level = append(p.level, level{st.of(s.Name, s.Method), v, text})
			st.shown[s.Method] = true
		}
	}
	return entries
}

// logSeries adds series averaged on the log scale: the geometric mean over
// splits with a band exp(mean ± sd) of the log values. note, when not nil,
// adds text to each legend entry.
func (st *style) logSeries(p *fig, series []Series, note func(s *Series) string) []entry {
	var entries []entry
	for _, s := range series {
		if s.Disjoint {
			entries = append(entries, st.disjoint(p, &s, note)...)
			continue
		}
		m, sd := s.LogMeanSD()
		c, lo, hi := make([]float64, len(m)), make([]float64, len(m)), make([]float64, len(m))
		for i := range m {
			c[i], lo[i], hi[i] = math.Exp(m[i]), math.Exp(m[i]-sd[i]), math.Exp(m[i]+sd[i])
		}
		if !st.noBand {
			p.band(s.X, lo, hi, colorAt(st.of(s.Name, s.Method)))
		}
		th := st.curve(p, st.of(s.Name, s.Method), s.X, c, len(s.X) <= 12)
		text := fmt.Sprintf("%s (%s)", s.Name, splitsText(s.Splits))
		if note != nil {
			text += note(&s)
		}
		if th != nil {
			entries = append(entries, entry{text, th})
			st.shown[s.Method] = true
		} else if v, ok := p.atZero(s.X, c); ok {
			p.level = append(p.level, level{st.of(s.Name, s.Method), v, text})
			st.shown[s.Method] = true
		}
	}
	return entries
}

// disjoint draws a series whose splits share no interval of the abscissa
// (Series.Disjoint): each split's own curve with its markers, one legend
// entry saying why there is no mean.
func (st *style) disjoint(p *fig, s *Series, note func(*Series) string) []entry {
	var th []plot.Thumbnailer
	for i := range s.SplitX {
		if t := st.curve(p, st.of(s.Name, s.Method), s.SplitX[i], s.SplitY[i], true); th == nil {
			th = t
		}
	}
	if th == nil {
		return nil
	}
	st.shown[s.Method] = true
	text := fmt.Sprintf("%s (%s, each drawn: they share no common range)", s.Name, splitsText(s.Splits))
	if note != nil {
		text += note(s)
	}
	return []entry{{text, th}}
}
