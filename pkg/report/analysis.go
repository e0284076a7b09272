package report

import (
	"math"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
)

// RateMetric is the MMD² the convergence rate of a dataset is measured in:
// the exact one when the cells record it (Gaussian targets), else the one
// against the reference sample.
func RateMetric(cells []*Cell, ds string) string {
	if HasMetric(CellsOf(cells, ds), "mmd2_exact") {
		return "mmd2_exact"
	}
	return "mmd2"
}

// CellsOf returns the cells of one dataset.
func CellsOf(cells []*Cell, ds string) []*Cell {
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
	in := CellsOf(cells, ds)
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
	names, _ := MethodOrder(cells)
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
		if Finite(m[i]) && s.X[i] >= 1 {
			top = math.Max(top, m[i])
		}
	}
	var x, y []float64
	for i := range m {
		if Finite(m[i]) && s.X[i] >= 1 && m[i] >= top+math.Log(ZeroFloor) {
			x = append(x, s.X[i])
			y = append(y, m[i])
		}
	}
	return FitLine(x, y)
}

// OwnKernelNote is the legend and table text of a series measured in its
// own random-feature kernel.
const OwnKernelNote = "own RFF kernel"

// exactLMONote is the legend text of a series whose LMO follows the exact
// direction.
const exactLMONote = "exact LMO"

// ExactTwins maps each MMD-FW method of cells whose LMO follows the exact
// direction to its approximate twin, read from the recorded settings
// (MMDFWSettings): the first method in legend order whose LMO follows the
// paper's direction, with the same kernel (RBF or random features, the same
// feature count and bandwidth), on a dataset the two share. A method
// without such a twin is absent.
func ExactTwins(cells []*Cell) map[string]string {
	type info struct {
		s     mmdfw.Settings
		ds    map[string]bool
		exact bool
	}
	infos := map[string]*info{}
	for _, c := range cells {
		s, _, ok := MMDFWSettings(c)
		if !ok {
			continue
		}
		in := infos[c.Prov.Method]
		if in == nil {
			in = &info{s: s, ds: map[string]bool{}, exact: IsExactLMO(c)}
			infos[c.Prov.Method] = in
		}
		in.ds[c.Prov.Dataset] = true
	}
	sameKernel := func(a, b mmdfw.Settings) bool {
		ra, rb := a.Kernel == mmdfw.RFFKernel, b.Kernel == mmdfw.RFFKernel
		return ra == rb && (!ra || a.Features == b.Features) && a.Bandwidth == b.Bandwidth
	}
	names, _ := MethodOrder(cells)
	out := map[string]string{}
	for _, m := range names {
		a := infos[m]
		if a == nil || !a.exact {
			continue
		}
		for _, t := range names {
			b := infos[t]
			if b == nil || b.exact || !sameKernel(a.s, b.s) {
				continue
			}
			shared := false
			for ds := range a.ds {
				shared = shared || b.ds[ds]
			}
			if shared {
				out[m] = t
				break
			}
		}
	}
	return out
}
