package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// The posteriordb benchmark in two figures a reader looks at instead of
// its tables: a heatmap of every method on every posterior at the largest
// particle count (the geometric mean over the seeds of MMD² over the
// reference's floor, flagged seeds marked), and a performance profile, the
// share of (posterior, seed) runs whose MMD²/floor is at most x, per
// method (Dolan & Moré, 2002, with the reference's floor as the yardstick
// in place of the best method's value).

// PDBFigureNames are the base names of the posteriordb figures.
var PDBFigureNames = []string{"posteriordb-heatmap", "posteriordb-profile"}

// pdbRel returns MMD²/floor of every finished cell of cells at particle
// count n, by dataset and method, in seed order; floors are the
// posteriors' MMD² floors.
func pdbRel(cells []*Cell, n int) map[string]map[string][]float64 {
	floors := pdbFloors(cells)
	out := map[string]map[string][]float64{}
	cs := append([]*Cell(nil), Done(cells)...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Prov.Split < cs[j].Prov.Split })
	for _, c := range cs {
		f := floors[c.Prov.Dataset]
		if c.Prov.N != n || !(f > 0) {
			continue
		}
		v := pdbFinal(c, pdbMMD2) / f
		if !Finite(v) || v <= 0 {
			continue
		}
		if out[c.Prov.Dataset] == nil {
			out[c.Prov.Dataset] = map[string][]float64{}
		}
		out[c.Prov.Dataset][c.Prov.Method] = append(out[c.Prov.Dataset][c.Prov.Method], v)
	}
	return out
}

// geoMean is the geometric mean of positive v.
func geoMean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// pdbGrid is the heatmap's grid: columns are methods, rows posteriors, the
// value log10 of the geometric mean MMD²/floor (NaN where none).
type pdbGrid struct {
	z [][]float64 // [row][column]
}

func (g pdbGrid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g pdbGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g pdbGrid) X(c int) float64    { return float64(c) }
func (g pdbGrid) Y(r int) float64    { return float64(r) }

// namedTicks labels the integers 0…len(names)−1 with names.
type namedTicks []string

func (t namedTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for i, n := range t {
		out = append(out, plot.Tick{Value: float64(i), Label: n})
	}
	return out
}

// plotPosteriorDB draws the posteriordb heatmap and performance profile
// into dir, when res holds finished cells of the benchmark with floors.
func plotPosteriorDB(res *Results, dir string) ([]string, error) {
	cells := Done(res.Experiment(PDBExperiment))
	stats := PDBStats(cells)
	if len(stats) == 0 {
		return nil, nil
	}
	n := pdbMaxN(stats)
	rel := pdbRel(cells, n)
	if len(rel) == 0 {
		return nil, nil
	}
	methods, _ := MethodOrder(cells)
	dss := Datasets(cells)
	flagged := map[[2]string]int{}
	seeds := map[[2]string]int{}
	for _, s := range stats {
		if s.N == n {
			flagged[[2]string{s.Dataset, s.Method}] = s.Flagged
			seeds[[2]string{s.Dataset, s.Method}] = s.Seeds
		}
	}
	files, err := pdbHeatmap(dir, rel, methods, dss, flagged, seeds, n)
	if err != nil {
		return files, err
	}
	fs, err := pdbProfile(dir, cells, rel, methods, n)
	return append(files, fs...), err
}

// pdbHeatmap draws posteriordb-heatmap.
func pdbHeatmap(dir string, rel map[string]map[string][]float64, methods, dss []string, flagged, seeds map[[2]string]int, n int) ([]string, error) {
	g := pdbGrid{z: make([][]float64, len(dss))}
	lo, hi := math.Inf(1), math.Inf(-1)
	var labels plotter.XYLabels
	for r, ds := range dss {
		g.z[r] = make([]float64, len(methods))
		for c, m := range methods {
			g.z[r][c] = math.NaN()
			v := rel[ds][m]
			text := "–"
			if len(v) > 0 {
				z := math.Log10(geoMean(v))
				g.z[r][c] = z
				lo, hi = math.Min(lo, z), math.Max(hi, z)
				text = sig2(geoMean(v))
			}
			if k := flagged[[2]string{ds, m}]; k > 0 {
				text += fmt.Sprintf(" F%d/%d", k, seeds[[2]string{ds, m}])
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			labels.Labels = append(labels.Labels, text)
		}
	}
	if !(lo <= hi) {
		return nil, nil
	}
	if hi-lo < 1e-9 {
		hi = lo + 1
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(lo)
	cm.SetMax(hi)
	h := plotter.NewHeatMap(g, cm.Palette(64))
	h.NaN = color.NRGBA{R: 230, G: 230, B: 230, A: 255}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("posteriordb at N = %d: MMD² to the reference over the reference's floor\n(geometric mean over the seeds; blue %s, red %s; F k/s: k of s seeds flagged)",
		n, sig2(math.Pow(10, lo)), sig2(math.Pow(10, hi)))
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Add(h)
	lb, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(8)
		lb.TextStyle[i].XAlign = -0.5
		lb.TextStyle[i].YAlign = -0.5
	}
	p.Add(lb)
	names := make([]string, len(dss))
	for i, ds := range dss {
		names[i] = pdbName(ds)
	}
	p.X.Tick.Marker = namedTicks(methods)
	p.Y.Tick.Marker = namedTicks(names)
	p.X.Label.Text = "method"
	p.X.Min, p.X.Max = -0.5, float64(len(methods))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(dss))-0.5
	l := &layout{plots: []*plot.Plot{p}, w: vg.Length(len(methods))*1.1*vg.Inch + 2.6*vg.Inch, h: vg.Length(len(dss))*0.32*vg.Inch + 1.4*vg.Inch}
	return l.save(dir, PDBFigureNames[0])
}

// pdbProfile draws posteriordb-profile.
func pdbProfile(dir string, cells []*Cell, rel map[string]map[string][]float64, methods []string, n int) ([]string, error) {
	p := newFig(fmt.Sprintf("posteriordb at N = %d: share of (posterior, seed) runs\nwith MMD²/floor at most x", n),
		"MMD² to the reference over the reference's floor, x (log scale)", "share of runs", true, false)
	st := newStyle(cells)
	l := &layout{plots: []*plot.Plot{p.Plot}, w: figWidth, h: figHeight}
	for _, m := range methods {
		var v []float64
		runs := 0
		for _, byM := range rel {
			v = append(v, byM[m]...)
		}
		for _, s := range PDBStats(cells) {
			if s.N == n && s.Method == m {
				runs += s.Seeds
			}
		}
		if len(v) == 0 || runs == 0 {
			continue
		}
		sort.Float64s(v)
		var x, y []float64
		for i, r := range v {
			x = append(x, r, r)
			y = append(y, float64(i)/float64(runs), float64(i+1)/float64(runs))
		}
		th := st.curve(p, st.of(m, m), x, y, false)
		if th == nil {
			continue
		}
		st.shown[m] = true
		text := fmt.Sprintf("%s (%d of %d runs scored)", m, len(v), runs)
		l.entries = append(l.entries, entry{text, th})
	}
	if r := pdbRefDraws(cells); r > 0 && p.X.Min < p.X.Max {
		x := math.Log10(PDBIIDRatio(n, r))
		if x >= p.X.Min && x <= p.X.Max {
			line, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 1}})
			if err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
			line.Color = floorColor
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			p.Add(line)
			l.entries = append(l.entries, entry{fmt.Sprintf("%d independent draws of the posterior, in expectation (%s)", n, sig2(PDBIIDRatio(n, r))), []plot.Thumbnailer{line}})
		}
	}
	if len(l.entries) == 0 {
		return nil, nil
	}
	return l.save(dir, PDBFigureNames[1])
}

// sig2 formats v with two significant digits.
func sig2(v float64) string {
	if !Finite(v) {
		return "–"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.2g", v), ".")
}
