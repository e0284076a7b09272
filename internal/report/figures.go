package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mmdfw/mmdfw/internal/atomicfile"
	"github.com/mmdfw/mmdfw/internal/harness"
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

// Plot writes every figure the results in res allow into dir, each in
// every format of Formats, and Table 1 as table1.md and table1.csv, and
// returns the files written. Experiments
// absent from res make no figure. It reads only res: nothing is computed
// again.
func Plot(res *Results, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	var errs []error
	add := func(f []string, err error) {
		files = append(files, f...)
		errs = append(errs, err)
	}
	for _, spec := range timeFigures {
		cells := res.Experiment(spec.id)
		for _, ds := range Datasets(Done(cells)) {
			add(newStyle(cells).timeFigure(dir, spec, cells, ds))
		}
	}
	for _, spec := range particleFigures {
		cells := res.Experiment(spec.id)
		for _, ds := range Datasets(Done(cells)) {
			add(newStyle(cells).particleFigure(dir, spec, cells, ds))
		}
	}
	cells := res.Experiment("rff")
	for _, ds := range Datasets(Done(cells)) {
		add(newStyle(cells).rateFigure(dir, cells, ds))
	}
	cells = res.Experiment("ablations")
	for _, ds := range Datasets(Done(cells)) {
		add(newStyle(cells).ablationFigures(dir, cells, ds))
	}
	for _, id := range otherExperiments(res) {
		cells := res.Experiment(id)
		for _, ds := range Datasets(Done(cells)) {
			add(newStyle(cells).otherFigures(dir, id, cells, ds))
		}
	}
	if len(res.Experiment("table1")) > 0 {
		t := MakeTable(res, "table1")
		for _, f := range []struct {
			ext string
			b   []byte
		}{{"md", []byte(t.Markdown())}, {"csv", t.CSV()}} {
			path := filepath.Join(dir, "table1."+f.ext)
			err := atomicfile.Write(path, f.b, 0o644)
			if err == nil {
				files = append(files, path)
			}
			errs = append(errs, err)
		}
	}
	return files, errors.Join(errs...)
}

// figSpec describes one of the paper's figures.
type figSpec struct {
	id, title, metric, ylabel string
	higherBetter              bool
}

var timeFigures = []figSpec{
	{id: "fig1a", title: "Fig. 1(a)", metric: "accuracy", ylabel: "test accuracy", higherBetter: true},
	{id: "fig2a", title: "Fig. 2(a)", metric: "rmse", ylabel: "test RMSE (units of y)"},
}

var particleFigures = []figSpec{
	{id: "fig1b", title: "Fig. 1(b)", metric: "mmd2", ylabel: "MMD² to the HMC reference"},
	{id: "fig2b", title: "Fig. 2(b)", metric: "mmd2", ylabel: "MMD² to the HMC reference"},
}

// metricLabels are the axis labels of the metrics the wiring records.
var metricLabels = map[string]string{
	"accuracy":   "test accuracy",
	"test_ll":    "mean test log-likelihood (nats)",
	"rmse":       "test RMSE (units of y)",
	"mmd2":       "MMD² to the HMC reference",
	"mmd2_exact": "exact MMD² to the target",
	KernelMMD2:   "MMD² in the method's own kernel (method-reported)",
}

func metricLabel(m string) string {
	if l, ok := metricLabels[m]; ok {
		return l
	}
	return m
}

// figName is the base name of an experiment's figure for one dataset: the
// experiment id alone when it has one dataset, suffixed by the dataset
// otherwise.
func figName(id string, cells []*Cell, ds string, extra ...string) string {
	parts := []string{id}
	if len(Datasets(Done(cells))) > 1 {
		parts = append(parts, ds)
	}
	// A metric name such as method:mmd2_kernel becomes method-mmd2_kernel:
	// a colon is not portable in a file name.
	return strings.ReplaceAll(strings.Join(append(parts, extra...), "-"), ":", "-")
}

// style gives every method of one experiment a colour, glyph and dash
// pattern: the first MMD-FW, SVGD, SP and SGLD methods always get the
// same colours, so the figures of different experiments read alike;
// further methods take the remaining colours, then dashed lines.
type style struct {
	index map[string]int
}

// kindColour is the palette index of the first method of each kind rank.
var kindColour = []int{0, 1, 2, 3}

func newStyle(cells []*Cell) *style {
	names, kinds := methodOrder(cells)
	s := &style{index: map[string]int{}}
	used := map[int]bool{}
	next := len(kindColour)
	for _, n := range names {
		r := kindRank(kinds[n])
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

// palette is colour-blind friendly (Okabe & Ito).
var palette = []color.NRGBA{
	{0, 114, 178, 255},   // blue: MMD-FW
	{213, 94, 0, 255},    // vermillion: SVGD
	{0, 158, 115, 255},   // green: SP
	{204, 121, 167, 255}, // purple: SGLD
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
	{153, 153, 153, 255}, // grey
}

func (s *style) color(method string) color.NRGBA { return palette[s.index[method]%len(palette)] }

func (s *style) glyph(method string) draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.color(method), Radius: vg.Points(2.5), Shape: plotutil.Shape(s.index[method])}
}

func (s *style) dashes(method string) []vg.Length {
	return plotutil.Dashes(s.index[method] / len(palette))
}

func fade(c color.NRGBA) color.NRGBA { c.A = 56; return c }

// fig is a plot whose log axes are drawn in log10 coordinates on a linear
// scale with power-of-ten labels: gonum/plot's LogScale places a centred
// axis label at the data midpoint, which on a log axis makes it reserve
// space beyond the data and squeeze the plot.
type fig struct {
	*plot.Plot
	logX, logY bool
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
	if !finite(x) || !finite(y) || (f.logX && x <= 0) || (f.logY && y <= 0) {
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

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// curve adds the line (and, with few points, the markers) of a series and
// returns the thumbnails of its legend entry.
func (s *style) curve(p *fig, method string, x, y []float64, markers bool) []plot.Thumbnailer {
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
		l.Color = s.color(method)
		l.Width = vg.Points(1.5)
		l.Dashes = s.dashes(method)
		p.Add(l)
		th = append(th, l)
	}
	if markers || len(pts) == 1 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			panic("report: " + err.Error())
		}
		sc.GlyphStyle = s.glyph(method)
		p.Add(sc)
		th = append(th, sc)
	}
	return th
}

// entry is one legend line.
type entry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// layout draws plots side by side with one legend column on the right, so
// the legend never covers data.
type layout struct {
	plots   []*plot.Plot
	entries []entry
	w, h    vg.Length // size of each panel
}

func (l *layout) legend() plot.Legend {
	lg := plot.NewLegend()
	lg.Top, lg.Left = true, true
	lg.TextStyle.Font.Size = vg.Points(9)
	for _, e := range l.entries {
		lg.Add(e.text, e.thumbs...)
	}
	return lg
}

func (l *layout) size() (w, h vg.Length) {
	lg := l.legend()
	lw := vg.Length(0)
	for _, e := range l.entries {
		lw = max(lw, lg.ThumbnailWidth+lg.TextStyle.Width(" "+e.text))
	}
	if lw > 0 {
		lw += 0.25 * vg.Inch
	}
	return l.w*vg.Length(len(l.plots)) + lw, l.h
}

func (l *layout) draw(dc draw.Canvas) {
	w, _ := l.size()
	plotsW := l.w * vg.Length(len(l.plots))
	left := dc
	left.Max.X = dc.Min.X + plotsW
	tiles := draw.Tiles{Rows: 1, Cols: len(l.plots), PadX: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2)}
	cv := plot.Align([][]*plot.Plot{l.plots}, tiles, left)
	for i, p := range l.plots {
		p.Draw(cv[0][i])
	}
	if len(l.entries) > 0 {
		right := dc
		right.Min.X = dc.Min.X + plotsW + 0.15*vg.Inch
		right.Max.X = dc.Min.X + w
		lg := l.legend()
		lg.YOffs = -0.45 * vg.Inch // below the title
		lg.Draw(right)
	}
}

// save writes the layout as dir/name.<format> for every format.
func (l *layout) save(dir, name string) ([]string, error) {
	w, h := l.size()
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
		l.draw(draw.New(c))
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

// timeFigure plots a metric against compute seconds, mean ± sd over splits.
func (st *style) timeFigure(dir string, spec figSpec, cells []*Cell, ds string) ([]string, error) {
	series := TimeSeries(cells, ds, spec.metric)
	if len(series) == 0 {
		return nil, nil
	}
	logX := false
	for _, s := range series {
		logX = logX || s.LogX
	}
	xl := "compute time (s, metric evaluation excluded)"
	if logX {
		xl = "compute time (s, log scale, metric evaluation excluded)"
	}
	label := DatasetLabel(cells, ds)
	p := newFig(fmt.Sprintf("%s · %s\n%s against compute time, mean ± sd over splits", spec.title, label, spec.ylabel),
		xl, spec.ylabel, logX, false)
	l := &layout{plots: []*plot.Plot{p.Plot}, w: figWidth, h: figHeight}
	l.entries = st.linearSeries(p, series, false)
	return l.save(dir, figName(spec.id, cells, ds))
}

// linearSeries adds the mean ± sd band and mean line of each series and
// returns their legend entries.
func (st *style) linearSeries(p *fig, series []Series, markers bool) []entry {
	var entries []entry
	for _, s := range series {
		mean, sd := s.MeanSD()
		lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
		for i := range mean {
			lo[i], hi[i] = mean[i]-sd[i], mean[i]+sd[i]
		}
		p.band(s.X, lo, hi, st.color(s.Method))
		if th := st.curve(p, s.Method, s.X, mean, markers && len(s.X) <= 12); th != nil {
			entries = append(entries, entry{fmt.Sprintf("%s (%s)", s.Name, splitsText(s.Splits)), th})
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
		m, sd := s.LogMeanSD()
		c, lo, hi := make([]float64, len(m)), make([]float64, len(m)), make([]float64, len(m))
		for i := range m {
			c[i], lo[i], hi[i] = math.Exp(m[i]), math.Exp(m[i]-sd[i]), math.Exp(m[i]+sd[i])
		}
		p.band(s.X, lo, hi, st.color(s.Method))
		th := st.curve(p, s.Method, s.X, c, len(s.X) <= 12)
		if th == nil {
			continue
		}
		text := fmt.Sprintf("%s (%s)", s.Name, splitsText(s.Splits))
		if note != nil {
			text += note(&s)
		}
		entries = append(entries, entry{text, th})
	}
	return entries
}

// particleFigure plots MMD² against the number of particles on log–log
// axes.
func (st *style) particleFigure(dir string, spec figSpec, cells []*Cell, ds string) ([]string, error) {
	series := ParticleSeries(cells, ds, spec.metric)
	if len(series) == 0 {
		return nil, nil
	}
	label := DatasetLabel(cells, ds)
	p := newFig(fmt.Sprintf("%s · %s\n%s against the number of particles (geometric mean over splits)", spec.title, label, spec.ylabel),
		"number of particles N (log scale)", spec.ylabel+" (log scale)", true, true)
	l := &layout{plots: []*plot.Plot{p.Plot}, w: figWidth, h: figHeight}
	l.entries = st.logSeries(p, series, nil)
	return l.save(dir, figName(spec.id, cells, ds))
}

// rateMetric is the MMD² the convergence rate of a dataset is measured in:
// the exact one when the cells record it (Gaussian targets), else the one
// against the reference sample.
func rateMetric(cells []*Cell, ds string) string {
	if HasMetric(cellsOf(cells, ds), "mmd2_exact") {
		return "mmd2_exact"
	}
	return "mmd2"
}

// cellsOf returns the cells of one dataset.
func cellsOf(cells []*Cell, ds string) []*Cell {
	var in []*Cell
	for _, c := range cells {
		if c.Prov.Dataset == ds {
			in = append(in, c)
		}
	}
	return in
}

// KernelMMD2 is the metric name of MMD-FW's MMD² in its own kernel, as the
// method reports it (harness.StatPrefix + mmdfw.StatMMD2Kernel): exact in
// the random-feature space when z is exact (Gaussian targets).
const KernelMMD2 = harness.StatPrefix + "mmd2_kernel"

// OwnKernelSeries returns the MMD² series of one dataset, each in its own
// method's kernel: a random-feature series in KernelMMD2 when its cells
// record it, every other series in base (the RBF kernel). metric maps each
// series name to the metric it was read from. MMD² in the RBF kernel of an
// RFF series flattens at the RFF approximation error, whatever the rate in
// the RFF kernel the method actually minimises.
func OwnKernelSeries(cells []*Cell, ds, base string) (series []Series, metric map[string]string) {
	in := cellsOf(cells, ds)
	rff := map[string]bool{}
	for _, c := range in {
		if IsRFF(c) && len(c.Metric(KernelMMD2)) > 0 {
			rff[c.Prov.Method] = true
		}
	}
	own := map[string]Series{}
	if len(rff) > 0 {
		for _, s := range ParticleSeries(cells, ds, KernelMMD2) {
			if rff[s.Method] {
				own[s.Method] = s
			}
		}
	}
	metric = map[string]string{}
	for _, s := range ParticleSeries(cells, ds, base) {
		m := base
		if o, ok := own[s.Method]; ok {
			s, m = o, KernelMMD2
			delete(own, s.Method)
		}
		series = append(series, s)
		metric[s.Name] = m
	}
	// A series with the method's statistic only (no base metric rows).
	for _, name := range methodNames(cells) {
		if s, ok := own[name]; ok {
			series = append(series, s)
			metric[s.Name] = KernelMMD2
		}
	}
	return series, metric
}

// methodNames returns the method names of cells in legend order.
func methodNames(cells []*Cell) []string {
	names, _ := methodOrder(cells)
	return names
}

// SeriesRate fits log MMD² = a − r·N to the mean over splits of the
// natural log of a series' MMD² at each N ≥ 1, leaving out the points that
// are numerically zero (below ZeroFloor times the series' largest); the
// rate is r = −Slope.
func SeriesRate(s *Series) Fit {
	m, _ := s.LogMeanSD()
	top := math.Inf(-1)
	for i := range m {
		if finite(m[i]) && s.X[i] >= 1 {
			top = math.Max(top, m[i])
		}
	}
	var x, y []float64
	for i := range m {
		if finite(m[i]) && s.X[i] >= 1 && m[i] >= top+math.Log(ZeroFloor) {
			x = append(x, s.X[i])
			y = append(y, m[i])
		}
	}
	return FitLine(x, y)
}

// ownKernelNote is the legend and table text of a series measured in its
// own random-feature kernel.
const ownKernelNote = "own RFF kernel"

// rateFigure plots log MMD² against N (linear) for every series of the rff
// experiment on one dataset, each with its fitted straight line: the
// evidence of claim 2. When random-feature series report MMD² in their own
// kernel (KernelMMD2), that panel is drawn next to a second one with every
// series in the common RBF kernel, where the random-feature series flatten
// at their approximation error.
//
// A series whose LMO follows the exact direction (the control of
// Frank-Wolfe's own rate) is noted so in the legend and, when its name
// with the "exact" part dropped names a series of the paper's direction
// ("mmdfw-exact-rff-d200" and "mmdfw-rff-d200"), drawn in that series'
// colour with a dashed line, so each pair reads together.
func (st *style) rateFigure(dir string, cells []*Cell, ds string) ([]string, error) {
	base := rateMetric(cells, ds)
	series, metric := OwnKernelSeries(cells, ds, base)
	if len(series) == 0 {
		return nil, nil
	}
	exact := map[string]bool{}
	for _, c := range cells {
		exact[c.Prov.Method] = IsExactLMO(c)
	}
	st.pairExact(cells, exact)
	// The legend lists the paper's direction first.
	sort.SliceStable(series, func(i, j int) bool { return !exact[series[i].Method] && exact[series[j].Method] })
	own := false
	for _, m := range metric {
		own = own || m == KernelMMD2
	}
	label := DatasetLabel(cells, ds)
	yl := labelFor(cells, ds, base)
	title := fmt.Sprintf("Linear convergence check · %s\n%s against N, least-squares line of log MMD² per series", label, yl)
	ylabel := yl + " (log scale)"
	if own {
		title = fmt.Sprintf("Linear convergence check · %s\nown kernel: RFF method-reported, RBF %s", label, yl)
		ylabel = "MMD² in the series' own kernel (log scale)"
	}
	p := newFig(title, "number of particles N", ylabel, false, true)
	l := &layout{plots: []*plot.Plot{p.Plot}, w: figWidth, h: figHeight}
	fits := map[string]Fit{}
	for i := range series {
		fits[series[i].Name] = SeriesRate(&series[i])
	}
	note := func(s *Series) string {
		f := fits[s.Name]
		var tags []string
		if metric[s.Name] == KernelMMD2 {
			tags = append(tags, ownKernelNote)
		}
		if exact[s.Method] {
			tags = append(tags, exactLMONote)
		}
		k := ""
		if len(tags) > 0 {
			k = " [" + strings.Join(tags, ", ") + "]"
		}
		if !finite(f.Slope) {
			return k + ": no fit"
		}
		return fmt.Sprintf("%s: rate %.3g/particle, R² %.3f", k, -f.Slope, f.R2)
	}
	l.entries = st.logSeries(p, series, note)
	for _, s := range series {
		f := fits[s.Name]
		if !finite(f.Slope) {
			continue
		}
		// The line spans the N it was fitted to: SeriesRate leaves out
		// points at the zero floor, where the line would leave the data.
		x0, x1 := f.XMin, f.XMax
		a, ok0 := p.xy(x0, math.Exp(f.Intercept+f.Slope*x0))
		b, ok1 := p.xy(x1, math.Exp(f.Intercept+f.Slope*x1))
		if !ok0 || !ok1 {
			continue
		}
		line, err := plotter.NewLine(plotter.XYs{a, b})
		if err != nil {
			return nil, err
		}
		line.Color = st.color(s.Method)
		line.Width = vg.Points(0.8)
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(line)
	}
	if own {
		// The common yardstick: every series in the RBF kernel.
		q := newFig(fmt.Sprintf("Common RBF kernel · %s\n%s against N (RFF series flatten at their approximation error)", label, yl),
			"number of particles N", yl+" (log scale)", false, true)
		st.logSeries(q, ParticleSeries(cells, ds, base), nil)
		l.plots = append(l.plots, q.Plot)
	}
	return l.save(dir, figName("rff", cells, ds))
}

// exactLMONote is the legend text of a series whose LMO follows the exact
// direction.
const exactLMONote = "exact LMO"

// pairExact restyles the methods of cells for the rff figure: the methods
// of the paper's direction take the colours they would have without the
// exact-direction ones, solid; an exact-direction method whose name
// without its "exact" segment names one of them is drawn in that colour
// with the next dash pattern and another glyph; any other takes a fresh
// index.
func (st *style) pairExact(cells []*Cell, exact map[string]bool) {
	var approx []*Cell
	for _, c := range cells {
		if !exact[c.Prov.Method] {
			approx = append(approx, c)
		}
	}
	base := newStyle(approx)
	next := 0
	for _, i := range base.index {
		next = max(next, i+1)
	}
	names, _ := methodOrder(cells)
	for _, m := range names {
		if !exact[m] {
			st.index[m] = base.index[m]
			continue
		}
		twin := strings.Replace(strings.Replace(m, "-exact-", "-", 1), "exact-", "", 1)
		twin = strings.TrimSuffix(twin, "-exact")
		if i, ok := base.index[twin]; ok && twin != m && i < len(palette) {
			st.index[m] = i + len(palette)
			continue
		}
		// No twin: a fresh index past every twin's.
		st.index[m] = max(next, 2*len(palette))
		next = st.index[m] + 1
	}
}

// Comparison is the group of an ablation method: the "comparison" string
// of its summary, else its name up to the first '-' or '.' ("weights-bq"
// and "weights-equal" compare weight rules), else the whole name.
func Comparison(c *Cell) string {
	if s, ok := c.Summary["comparison"].(string); ok && s != "" {
		return s
	}
	if i := strings.IndexAny(c.Prov.Method, "-."); i > 0 {
		return c.Prov.Method[:i]
	}
	return c.Prov.Method
}

// isBaseline reports whether an ablation method is the paper's default
// (MMD-FW started at the MAP: "start-map", "init.map"), which a
// comparison with a single method is drawn against.
func isBaseline(method string) bool {
	return strings.HasSuffix(method, "-map") || strings.HasSuffix(method, ".map") || method == "map"
}

// mmdLabel is the axis label of MMD² on a dataset: exact when the cells'
// reference is the target's closed form, else against the HMC reference.
func mmdLabel(cells []*Cell, ds string) string {
	for _, c := range cells {
		if c.Prov.Dataset != ds {
			continue
		}
		if m, ok := refObject(c); ok {
			if k, _ := m["kind"].(string); k == "exact" {
				return metricLabels["mmd2_exact"]
			}
			return metricLabels["mmd2"]
		}
	}
	return metricLabels["mmd2"]
}

// labelFor is the axis label of a metric on a dataset.
func labelFor(cells []*Cell, ds, metric string) string {
	if metric == "mmd2" {
		return mmdLabel(cells, ds)
	}
	return metricLabel(metric)
}

// ablationFigures draws, for each metric of the ablations on one dataset,
// one panel per comparison: the metric against seconds when the
// experiment is timed, else against the number of particles.
func (st *style) ablationFigures(dir string, cells []*Cell, ds string) ([]string, error) {
	var in []*Cell
	for _, c := range Done(cells) {
		if c.Prov.Dataset == ds {
			in = append(in, c)
		}
	}
	groups := map[string][]*Cell{}
	members := map[string]map[string]bool{}
	var names []string
	var baseline []*Cell
	for _, c := range in {
		g := Comparison(c)
		if _, ok := groups[g]; !ok {
			names = append(names, g)
			members[g] = map[string]bool{}
		}
		groups[g] = append(groups[g], c)
		members[g][c.Prov.Method] = true
		if isBaseline(c.Prov.Method) {
			baseline = append(baseline, c)
		}
	}
	sort.Strings(names)
	for _, g := range names {
		if len(members[g]) == 1 && len(baseline) > 0 && !isBaseline(groups[g][0].Prov.Method) {
			groups[g] = append(groups[g], baseline...)
		}
	}
	timed := in[0].Prov.KeyDoc.Timed
	var metrics []string
	seen := map[string]bool{}
	for _, c := range in {
		for _, r := range c.Rows {
			if !seen[r.Metric] {
				seen[r.Metric] = true
				metrics = append(metrics, r.Metric)
			}
		}
	}
	label := DatasetLabel(cells, ds)
	var files []string
	for _, m := range metrics {
		l := &layout{w: panelSide, h: panelSide}
		inLegend := map[string]bool{}
		logY := strings.HasPrefix(m, "mmd2")
		for _, g := range names {
			var series []Series
			xl := "number of particles N"
			if timed {
				xl = "compute time (s)"
				series = TimeSeries(groups[g], ds, m)
			} else {
				series = ParticleSeries(groups[g], ds, m)
			}
			if len(series) == 0 {
				continue
			}
			yl := labelFor(cells, ds, m)
			if logY {
				yl += " (log scale)"
			}
			p := newFig(fmt.Sprintf("Ablation: %s\n%s", g, label), xl, yl, false, logY)
			p.Title.TextStyle.Font.Size = vg.Points(10)
			var entries []entry
			if logY {
				entries = st.logSeries(p, series, nil)
			} else {
				entries = st.linearSeries(p, series, !timed)
			}
			for _, e := range entries {
				if !inLegend[e.text] {
					inLegend[e.text] = true
					l.entries = append(l.entries, e)
				}
			}
			l.plots = append(l.plots, p.Plot)
		}
		if len(l.plots) == 0 {
			continue
		}
		f, err := l.save(dir, figName("ablations", cells, ds, m))
		files = append(files, f...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}
