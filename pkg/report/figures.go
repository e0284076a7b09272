package report

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// Plot writes the figures of every experiment of res into dir, each in
// every format of Formats, then the files of every plug-in of plugins that
// presents an experiment of res (the paper's Table 1 as table1.md and
// table1.csv, say), and returns the files written. An experiment draws the
// figures its file declares ([[figures]] tables, res.Figures); one that
// declares none gets DefaultFigures. Plot reads only res: nothing is
// computed again.
func Plot(res *Results, dir string, plugins ...Plugin) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	var errs []error
	for _, id := range ExperimentIDs(res) {
		cells := res.Experiment(id)
		for _, f := range FiguresOf(res, id) {
			for _, ds := range Datasets(Done(cells)) {
				fs, err := drawFigure(dir, f, cells, ds, res.Metrics)
				files = append(files, fs...)
				errs = append(errs, err)
			}
		}
	}
	fs, err := plotPosteriorDB(res, dir)
	files = append(files, fs...)
	errs = append(errs, err)
	for _, p := range taking(res, plugins) {
		fs, err := p.Plot(res, dir)
		files = append(files, fs...)
		errs = append(errs, err)
	}
	return files, errors.Join(errs...)
}

// ExperimentIDs returns the ids of the experiments of res, sorted.
func ExperimentIDs(res *Results) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range res.Cells {
		if id := c.Prov.Experiment; !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Undeclared returns the ids of the experiments of res whose files declare
// no figures, sorted: Plot draws DefaultFigures for them, and repro plot
// lists them.
func Undeclared(res *Results) []string {
	var out []string
	for _, id := range ExperimentIDs(res) {
		if _, ok := res.Figures[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// Figure is a figure as the report draws it: a declaration, and whether
// its files are named by metric even when it draws one.
type Figure struct {
	harness.Figure
	// ByMetric names every file of the figure by its metric.
	ByMetric bool
}

// FiguresOf returns the figures of experiment id: those its file
// declares, else DefaultFigures.
func FiguresOf(res *Results, id string) []Figure {
	decl, ok := res.Figures[id]
	if !ok {
		return DefaultFigures(id, res.Experiment(id))
	}
	out := make([]Figure, len(decl))
	for i, f := range decl {
		out[i] = Figure{Figure: f}
	}
	return out
}

// DefaultFigures are the figures of an experiment whose file declares
// none: every metric its finished cells record (method statistics left
// out) against compute time, mean ± sd over splits per method and
// particle count, one file per metric named id-metric (id-dataset-metric
// with several datasets).
func DefaultFigures(id string, cells []*Cell) []Figure {
	ys := recordedMetrics(Done(cells))
	if len(ys) == 0 {
		return nil
	}
	return []Figure{{Figure: harness.Figure{ID: id, Title: id, X: harness.XSeconds, Y: ys, Band: harness.BandSD}, ByMetric: true}}
}

// FileNames returns the base names of the files figure f draws from cells
// (the experiment's) for dataset ds, one per metric of f.Y.
func (f *Figure) FileNames(cells []*Cell, ds string) []string {
	var out []string
	for _, y := range f.Y {
		out = append(out, f.fileName(cells, ds, y))
	}
	return out
}

func (f *Figure) fileName(cells []*Cell, ds, y string) string {
	if len(f.Y) > 1 || f.ByMetric {
		return figName(f.ID, cells, ds, y)
	}
	return figName(f.ID, cells, ds)
}

// figName is the base name of a figure for one dataset: the figure id
// alone when the experiment has one dataset, suffixed by the dataset
// otherwise, then by extra.
func figName(id string, cells []*Cell, ds string, extra ...string) string {
	parts := []string{id}
	if len(Datasets(Done(cells))) > 1 {
		parts = append(parts, ds)
	}
	// A metric name such as method:mmd2_kernel becomes method-mmd2_kernel:
	// a colon is not portable in a file name.
	return strings.ReplaceAll(strings.Join(append(parts, extra...), "-"), ":", "-")
}

// onlyMethods returns the cells of the named methods.
func onlyMethods(cells []*Cell, methods []string) []*Cell {
	if len(methods) == 0 {
		return cells
	}
	want := map[string]bool{}
	for _, m := range methods {
		want[m] = true
	}
	var out []*Cell
	for _, c := range cells {
		if want[c.Prov.Method] {
			out = append(out, c)
		}
	}
	return out
}

// logY reports whether metric m is drawn on a log axis: as declared, else
// as its meaning in mt says (logScale), and for any metric whose mean
// curves over the series are positive and span more than a decade
// (spansDecade).
func (f *Figure) logY(mt harness.MetricTable, m string, series []Series) bool {
	if f.LogY != nil {
		return *f.LogY
	}
	return logScale(mt, m) || spansDecade(series)
}

// spansDecade reports whether the curves of series (their means over
// splits, or each split's curve for a disjoint series) are all positive
// and their largest value exceeds ten times their smallest: an axis that
// spans more than a decade is logarithmic, so that no curve is squeezed
// against it.
func spansDecade(series []Series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	add := func(v []float64) bool {
		for _, x := range v {
			if !Finite(x) {
				continue
			}
			if x <= 0 {
				return false
			}
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		return true
	}
	for i := range series {
		s := &series[i]
		m, _ := s.MeanSD()
		if !add(m) {
			return false
		}
		for _, y := range s.SplitY {
			if !add(y) {
				return false
			}
		}
	}
	return lo > 0 && hi > 10*lo
}

// logX reports whether the x axis is logarithmic: as declared, else for a
// time or gradient axis whose grid is log-spaced.
func (f *Figure) logX(series []Series) bool {
	if f.LogX != nil {
		return *f.LogX
	}
	if f.X == harness.XParticles {
		return false
	}
	for _, s := range series {
		if s.LogX {
			return true
		}
	}
	return false
}

// series returns the series of metric m of one dataset against the
// figure's abscissa.
func (f *Figure) series(cells []*Cell, ds, m string) []Series {
	switch f.X {
	case harness.XSeconds:
		return TimeSeries(cells, ds, m)
	case harness.XGradients:
		return GradSeries(cells, ds, m)
	}
	return ParticleSeries(cells, ds, m)
}

// xLabel is the label of the figure's x axis.
func (f *Figure) xLabel(log bool) string {
	switch f.X {
	case harness.XSeconds:
		if log {
			return "compute time (s, log scale, metric evaluation excluded)"
		}
		return "compute time (s, metric evaluation excluded)"
	case harness.XGradients:
		if log {
			return "gradient evaluations (log scale)"
		}
		return "gradient evaluations"
	}
	if log {
		return "number of particles N (log scale)"
	}
	return "number of particles N"
}

// against is the abscissa as the title names it.
func (f *Figure) against() string {
	switch f.X {
	case harness.XSeconds:
		return "compute time"
	case harness.XGradients:
		return "gradient evaluations"
	}
	return "the number of particles"
}

// yLabel is the label of metric m on dataset ds: as declared, else as its
// Meaning in mt says.
func (f *Figure) yLabel(mt harness.MetricTable, cells []*Cell, ds, m string) string {
	if f.YLabel != "" {
		return f.YLabel
	}
	return metricLabel(mt, cells, ds, m)
}

// drawFigure draws figure f of an experiment's cells for dataset ds: one
// file per metric of f.Y that some series records, each labelled and
// scaled as its meaning in mt says.
func drawFigure(dir string, f Figure, cells []*Cell, ds string, mt harness.MetricTable) ([]string, error) {
	in := onlyMethods(cells, f.Methods)
	var files []string
	for _, y := range f.Y {
		m := y
		if f.Fallback != "" && !HasMetric(CellsOf(in, ds), y) {
			m = f.Fallback
		}
		st := newStyle(cells)
		st.noBand = f.Band == harness.BandNone
		name := f.fileName(cells, ds, y)
		var fs []string
		var err error
		switch {
		case len(f.Panels) > 0:
			fs, err = st.panelFigure(dir, name, &f, cells, ds, m, mt)
		case f.Fit == harness.FitRate:
			fs, err = st.rateFigure(dir, name, &f, in, ds, m, mt)
		default:
			fs, err = st.singleFigure(dir, name, &f, in, ds, m, mt)
		}
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// singleFigure plots metric m against the figure's abscissa in one panel.
func (st *style) singleFigure(dir, name string, f *Figure, cells []*Cell, ds, m string, mt harness.MetricTable) ([]string, error) {
	series := f.series(cells, ds, m)
	if len(series) == 0 {
		return nil, nil
	}
	lx, ly := f.logX(series), f.logY(mt, m, series)
	yl := f.yLabel(mt, cells, ds, m)
	avg := ", mean ± sd over splits"
	axis := yl
	if ly {
		avg = " (geometric mean over splits)"
		axis += " (log scale)"
	}
	p := newFig(fmt.Sprintf("%s · %s\n%s against %s%s", f.Title, DatasetLabel(cells, ds), yl, f.against(), avg),
		f.xLabel(lx), axis, lx, ly)
	l := &layout{plots: []*plot.Plot{p.Plot}, w: figWidth, h: figHeight}
	if ly {
		l.entries = st.logSeries(p, series, nil)
	} else {
		l.entries = st.linearSeries(p, series, f.X == harness.XParticles)
	}
	l.entries = append(l.entries, addFloor(p, cells, ds, m, yl, series)...)
	l.entries = append(l.entries, p.levels()...)
	l.entries = append(l.entries, st.notDrawn(cells, ds, yl)...)
	return l.save(dir, name)
}

// panelFigure draws one panel per declared panel of f, each with the
// methods it names, side by side with one legend.
func (st *style) panelFigure(dir, name string, f *Figure, cells []*Cell, ds, m string, mt harness.MetricTable) ([]string, error) {
	label := DatasetLabel(cells, ds)
	var all []Series
	for _, pn := range f.Panels {
		all = append(all, f.series(onlyMethods(cells, pn.Methods), ds, m)...)
	}
	ly := f.logY(mt, m, all)
	l := &layout{w: panelSide, h: panelSide}
	inLegend := map[string]bool{}
	for _, pn := range f.Panels {
		series := f.series(onlyMethods(cells, pn.Methods), ds, m)
		if len(series) == 0 {
			continue
		}
		lx := f.logX(series)
		yl := f.yLabel(mt, cells, ds, m)
		if ly {
			yl += " (log scale)"
		}
		p := newFig(fmt.Sprintf("%s\n%s", pn.Title, label), f.xLabel(lx), yl, lx, ly)
		p.Title.TextStyle.Font.Size = vg.Points(10)
		var entries []entry
		if ly {
			entries = st.logSeries(p, series, nil)
		} else {
			entries = st.linearSeries(p, series, f.X == harness.XParticles)
		}
		entries = append(entries, addFloor(p, cells, ds, m, f.yLabel(mt, cells, ds, m), series)...)
		entries = append(entries, p.levels()...)
		for _, e := range entries {
			if !inLegend[e.text] {
				inLegend[e.text] = true
				l.entries = append(l.entries, e)
			}
		}
		l.plots = append(l.plots, p.Plot)
	}
	if len(l.plots) == 0 {
		return nil, nil
	}
	return l.save(dir, name)
}

// rateFigure plots log MMD² (metric base) against N (linear) for every
// series of one dataset, each with its fitted straight line: the evidence
// of a rate. With f.OwnKernel, when random-feature series report MMD² in
// their own kernel (harness.SeriesTraits.OwnMetric), that panel is drawn
// next to a second one with every series in the common base metric, where
// the random-feature series flatten at their approximation error.
//
// A control series (harness.SeriesTraits.Control: an LMO that follows the
// exact direction, the control of Frank-Wolfe's own rate) is noted so in
// the legend and, when it has a twin (ExactTwins: the same kernel, on a
// common dataset), drawn in that series' colour with a dashed line, so
// each pair reads together.
func (st *style) rateFigure(dir, name string, f *Figure, cells []*Cell, ds, base string, mt harness.MetricTable) ([]string, error) {
	var series []Series
	var metric map[string]string
	if f.OwnKernel {
		series, metric = OwnKernelSeries(cells, ds, base)
	} else {
		series = ParticleSeries(cells, ds, base)
		metric = map[string]string{}
		for _, s := range series {
			metric[s.Name] = base
		}
	}
	if len(series) == 0 {
		return nil, nil
	}
	exact := map[string]bool{}
	traits := map[string]harness.SeriesTraits{}
	for _, c := range cells {
		traits[c.Prov.Method] = c.Series()
		exact[c.Prov.Method] = traits[c.Prov.Method].Control != ""
	}
	st.pairExact(cells, exact)
	// The legend lists the paper's direction first.
	sort.SliceStable(series, func(i, j int) bool { return !exact[series[i].Method] && exact[series[j].Method] })
	own := false
	for _, m := range metric {
		own = own || m != base
	}
	label := DatasetLabel(cells, ds)
	yl := f.yLabel(mt, cells, ds, base)
	title := fmt.Sprintf("%s · %s\n%s against N, least-squares line of log MMD² per series", f.Title, label, yl)
	ylabel := yl + " (log scale)"
	if own {
		title = fmt.Sprintf("%s · %s\nown kernel: RFF method-reported, RBF %s", f.Title, label, yl)
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
		if metric[s.Name] != base {
			tags = append(tags, traits[s.Method].OwnNote)
		}
		if exact[s.Method] {
			tags = append(tags, traits[s.Method].Control)
		}
		k := ""
		if len(tags) > 0 {
			k = " [" + strings.Join(tags, ", ") + "]"
		}
		if !Finite(f.Slope) {
			return k + ": no fit"
		}
		return fmt.Sprintf("%s: rate %.3g/particle, R² %.3f", k, -f.Slope, f.R2)
	}
	l.entries = st.logSeries(p, series, note)
	for _, s := range series {
		f := fits[s.Name]
		if !Finite(f.Slope) {
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
		line.Color = colorAt(st.of(s.Name, s.Method))
		line.Width = vg.Points(0.8)
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(line)
	}
	if own {
		// The common yardstick: every series in the RBF kernel.
		q := newFig(fmt.Sprintf("Common RBF kernel · %s\n%s against N (RFF series flatten at their approximation error)", label, yl),
			"number of particles N", yl+" (log scale)", false, true)
		common := ParticleSeries(cells, ds, base)
		st.logSeries(q, common, nil)
		l.entries = append(l.entries, addFloor(q, cells, ds, base, yl, common)...)
		l.plots = append(l.plots, q.Plot)
		// Two panels side by side with long legend entries (each series'
		// rate): the legend goes under them, so that the figure keeps a
		// width a page can show at its own size.
		l.w, l.h, l.below = rateSide, rateSide*0.85, true
	} else {
		l.entries = append(l.entries, addFloor(p, cells, ds, base, yl, series)...)
	}
	return l.save(dir, name)
}

// rateSide is the width of each panel of a two-panel rate figure.
const rateSide = 4.2 * vg.Inch

// pairExact restyles the methods of cells for the rate figure: the methods
// of the paper's direction take the colours they would have without the
// exact-direction ones, solid; an exact-direction method with an
// approximate twin (ExactTwins) is drawn in the twin's colour with the
// next dash pattern and another glyph; any other takes a fresh index.
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
	twins := ExactTwins(cells)
	names, _ := MethodOrder(cells)
	for _, m := range names {
		if !exact[m] {
			st.index[m] = base.index[m]
			continue
		}
		if twin, ok := twins[m]; ok && !exact[twin] {
			if i, ok := base.index[twin]; ok && i < len(palette) {
				st.index[m] = i + len(palette)
				continue
			}
		}
		// No twin: a fresh index past every twin's.
		st.index[m] = max(next, 2*len(palette))
		next = st.index[m] + 1
	}
}

// FigureNames returns the base names of the files the figures of
// experiment id are drawn to, for every dataset its finished cells cover.
func FigureNames(res *Results, id string) []string {
	cells := res.Experiment(id)
	var out []string
	for _, f := range FiguresOf(res, id) {
		for _, ds := range Datasets(Done(cells)) {
			out = append(out, f.FileNames(cells, ds)...)
		}
	}
	return out
}
