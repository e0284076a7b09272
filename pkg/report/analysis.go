package report

import (
	"math"
	"slices"
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

// OwnKernelSeries returns the MMD² series of one dataset, each in its own
// method's kernel: a series whose cells' settings name a metric of their
// own (harness.SeriesTraits.OwnMetric: MMD² in a random-feature kernel, as
// the method reports it) in that metric when its cells record it, every
// other series in base (the RBF kernel). metric maps each series name to
// the metric it was read from. MMD² in the RBF kernel of a random-feature
// series flattens at the approximation error, whatever the rate in the
// kernel the method actually minimises.
func OwnKernelSeries(cells []*Cell, ds, base string) (series []Series, metric map[string]string) {
	in := CellsOf(cells, ds)
	ownMetric := map[string]string{}
	var metrics []string
	for _, c := range in {
		if m := c.Series().OwnMetric; m != "" && m != base && len(c.Metric(m)) > 0 {
			if _, ok := ownMetric[c.Prov.Method]; !ok {
				ownMetric[c.Prov.Method] = m
				if !slices.Contains(metrics, m) {
					metrics = append(metrics, m)
				}
			}
		}
	}
	own := map[string]Series{}
	for _, m := range metrics {
		for _, s := range ParticleSeries(cells, ds, m) {
			if ownMetric[s.Method] == m {
				own[s.Method] = s
			}
		}
	}
	metric = map[string]string{}
	for _, s := range ParticleSeries(cells, ds, base) {
		m := base
		if o, ok := own[s.Method]; ok {
			s, m = o, ownMetric[s.Method]
			delete(own, s.Method)
		}
		series = append(series, s)
		metric[s.Name] = m
	}
	// A series with the method's statistic only (no base metric rows).
	for _, name := range methodNames(cells) {
		if s, ok := own[name]; ok {
			series = append(series, s)
			metric[s.Name] = ownMetric[name]
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

// ExactTwins maps each control method of cells (a series whose recorded
// settings make it a control, harness.SeriesTraits.Control: MMD-FW's LMO
// following the exact direction) to its twin: the first method in legend
// order that is no control, with the same harness.SeriesTraits.Twin (the
// same kernel, its feature count and bandwidth), on a dataset the two
// share. Each method is read from its first cell; a method without such a
// twin, and one whose settings give no Twin, is absent.
func ExactTwins(cells []*Cell) map[string]string {
	type info struct {
		twin    string
		ds      map[string]bool
		control bool
	}
	infos := map[string]*info{}
	for _, c := range cells {
		if c.Traits.Series == nil {
			continue
		}
		in := infos[c.Prov.Method]
		if in == nil {
			t := c.Series()
			in = &info{twin: t.Twin, ds: map[string]bool{}, control: t.Control != ""}
			infos[c.Prov.Method] = in
		}
		in.ds[c.Prov.Dataset] = true
	}
	names, _ := MethodOrder(cells)
	out := map[string]string{}
	for _, m := range names {
		a := infos[m]
		if a == nil || !a.control || a.twin == "" {
			continue
		}
		for _, t := range names {
			b := infos[t]
			if b == nil || b.control || b.twin != a.twin {
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
