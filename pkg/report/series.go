package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// Series is one method's curve over the splits of one dataset: at each X,
// the value of every split that reaches it.
type Series struct {
	// Name is the label of the curve: the method's name, with its
	// particle count when the method has several.
	Name string
	// Method and Kind are the method's display name and kind.
	Method, Kind string
	// N is the particle count of the cells of a time series (0 for a
	// series against the number of particles).
	N int
	// X are increasing abscissae: seconds or particle counts.
	X []float64
	// Vals[i] holds one value per split at X[i].
	Vals [][]float64
	// Splits is the number of splits the series is made from.
	Splits int
	// LogX is set for time series whose grid is log-spaced.
	LogX bool
	// Disjoint is set for a time series whose splits share no interval
	// of the abscissa, so that no common grid exists: X and Vals are then
	// empty, and SplitX and SplitY hold each split's own curve, which a
	// figure draws one by one.
	Disjoint       bool
	SplitX, SplitY [][]float64
}

// MeanSD returns the mean and sample sd over splits at each X.
func (s *Series) MeanSD() (mean, sd []float64) {
	mean, sd = make([]float64, len(s.X)), make([]float64, len(s.X))
	for i, v := range s.Vals {
		mean[i], sd[i] = MeanSD(v)
	}
	return mean, sd
}

// LogMeanSD returns the mean and sample sd of the natural log of the
// positive values at each X (NaN where there are none): MMD² curves are
// averaged on the log scale they are plotted on, where a band mean ± sd
// stays positive.
func (s *Series) LogMeanSD() (mean, sd []float64) {
	mean, sd = make([]float64, len(s.X)), make([]float64, len(s.X))
	for i, v := range s.Vals {
		var l []float64
		for _, x := range v {
			if x > 0 && !math.IsInf(x, 0) {
				l = append(l, math.Log(x))
			}
		}
		mean[i], sd[i] = MeanSD(l)
	}
	return mean, sd
}

// Last returns the values at the last X (nil for an empty series).
func (s *Series) Last() []float64 {
	if len(s.Vals) == 0 {
		return nil
	}
	return s.Vals[len(s.Vals)-1]
}

// At returns the values at X == x, and false when the series has no such X.
func (s *Series) At(x float64) ([]float64, bool) {
	i := sort.SearchFloat64s(s.X, x)
	if i < len(s.X) && s.X[i] == x {
		return s.Vals[i], true
	}
	return nil, false
}

// NormKind lowercases a method kind and drops '-' and '_'.
func NormKind(k string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(k))
}

// legendRank is the place in legends of a kind with traits t: its Legend
// less one, after every kind with one when it has none.
func legendRank(t harness.KindTraits) int {
	if t.Legend > 0 {
		return t.Legend - 1
	}
	return math.MaxInt
}

// legendRanks returns the legend rank of each method of cells, from the
// traits of its first cell.
func legendRanks(cells []*Cell) map[string]int {
	ranks := map[string]int{}
	for _, c := range cells {
		if _, ok := ranks[c.Prov.Method]; !ok {
			ranks[c.Prov.Method] = legendRank(c.Traits)
		}
	}
	return ranks
}

// MethodOrder returns the method names of cells in legend order, with
// their kinds: by their kinds' KindTraits.Legend (the traits of each
// method's first cell), then by name.
func MethodOrder(cells []*Cell) (names []string, kinds map[string]string) {
	kinds = map[string]string{}
	ranks := legendRanks(cells)
	for _, c := range cells {
		if _, ok := kinds[c.Prov.Method]; !ok {
			kinds[c.Prov.Method] = c.Prov.Kind
			names = append(names, c.Prov.Method)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := ranks[names[i]], ranks[names[j]]
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names, kinds
}

// ByMethod groups the finished cells of one dataset by method name.
func ByMethod(cells []*Cell, dataset string) map[string][]*Cell {
	g := map[string][]*Cell{}
	for _, c := range Done(cells) {
		if c.Prov.Dataset == dataset {
			g[c.Prov.Method] = append(g[c.Prov.Method], c)
		}
	}
	return g
}

// byN groups cells by particle count: the counts in increasing order and
// the cells of each, in the order of cells.
func byN(cells []*Cell) (ns []int, groups map[int][]*Cell) {
	groups = map[int][]*Cell{}
	for _, c := range cells {
		if _, ok := groups[c.Prov.N]; !ok {
			ns = append(ns, c.Prov.N)
		}
		groups[c.Prov.N] = append(groups[c.Prov.N], c)
	}
	sort.Ints(ns)
	return ns, groups
}

// gridPoints is the size of the common time grid of a time series.
const gridPoints = 200

// logGridRatio is the span (last/first positive time) above which a time
// grid, and its axis, are logarithmic: more than a decade.
const logGridRatio = 10

// TimeSeries returns, for each method (and particle count, when a method
// has several) of one dataset, the metric against compute seconds: each
// split's curve is interpolated linearly onto a common grid spanning the
// times every split covers, from the latest first evaluation to the
// earliest last one. The grid is log-spaced when that span exceeds a
// decade. When the splits share no interval (one ends before another
// begins) the series is Disjoint and holds each split's curve instead.
func TimeSeries(cells []*Cell, dataset, metric string) []Series {
	return axisSeries(cells, dataset, metric, func(r Row) float64 { return r.Seconds })
}

// GradSeries is TimeSeries against the gradient evaluations of each
// snapshot (Row.GradEvals) instead of its compute seconds.
func GradSeries(cells []*Cell, dataset, metric string) []Series {
	return axisSeries(cells, dataset, metric, func(r Row) float64 { return float64(r.GradEvals) })
}

// axisSeries is TimeSeries against the abscissa x of each row.
func axisSeries(cells []*Cell, dataset, metric string, x func(Row) float64) []Series {
	names, kinds := MethodOrder(cells)
	groups := ByMethod(cells, dataset)
	var out []Series
	for _, name := range names {
		ns, atN := byN(groups[name])
		for _, n := range ns {
			s := timeSeries(atN[n], metric, x)
			if s == nil {
				continue
			}
			s.Name, s.Method, s.Kind, s.N = name, name, kinds[name], n
			if len(ns) > 1 {
				s.Name = fmt.Sprintf("%s (N=%d)", name, n)
			}
			out = append(out, *s)
		}
	}
	return out
}

func timeSeries(cells []*Cell, metric string, x func(Row) float64) *Series {
	type curve struct{ t, v []float64 }
	var curves []curve
	lo, hi, loPos := math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, c := range cells {
		rows := c.Metric(metric)
		if len(rows) == 0 {
			continue
		}
		sort.SliceStable(rows, func(i, j int) bool { return x(rows[i]) < x(rows[j]) })
		var cv curve
		first := math.NaN()
		for _, r := range rows {
			t := x(r)
			cv.t = append(cv.t, t)
			cv.v = append(cv.v, r.Value)
			if t > 0 && math.IsNaN(first) {
				first = t
			}
		}
		curves = append(curves, cv)
		lo = math.Max(lo, cv.t[0])
		hi = math.Min(hi, cv.t[len(cv.t)-1])
		if !math.IsNaN(first) {
			loPos = math.Max(loPos, first)
		}
	}
	if len(curves) == 0 {
		return nil
	}
	if lo > hi {
		// No interval every split covers: each split is its own curve.
		s := &Series{Splits: len(curves), Disjoint: true}
		minPos, maxX := math.Inf(1), math.Inf(-1)
		for _, cv := range curves {
			s.SplitX, s.SplitY = append(s.SplitX, cv.t), append(s.SplitY, cv.v)
			for _, t := range cv.t {
				if t > 0 {
					minPos = math.Min(minPos, t)
				}
				maxX = math.Max(maxX, t)
			}
		}
		s.LogX = minPos > 0 && Finite(minPos) && maxX/minPos > logGridRatio
		return s
	}
	s := &Series{Splits: len(curves)}
	var g []float64
	if loPos > 0 && loPos <= hi && hi/loPos > logGridRatio {
		g = grid(loPos, hi, gridPoints, true)
		s.LogX = true
	} else {
		g = grid(lo, hi, gridPoints, false)
	}
	for _, t := range g {
		vals := make([]float64, len(curves))
		for i, cv := range curves {
			vals[i] = interp(cv.t, cv.v, t)
		}
		s.X = append(s.X, t)
		s.Vals = append(s.Vals, vals)
	}
	return s
}

// ParticleSeries returns, for each method of one dataset, the metric
// against the number of particles. A method whose kind adds one particle
// per step (KindTraits.OneParticlePerStep) holds n particles at step n, so
// its curve is the trajectory of its largest cell of each split; any other
// method contributes the final value of each of its cells at that cell's
// particle count.
func ParticleSeries(cells []*Cell, dataset, metric string) []Series {
	names, kinds := MethodOrder(cells)
	groups := ByMethod(cells, dataset)
	var out []Series
	for _, name := range names {
		at := map[float64][]float64{}
		splits := map[int]bool{}
		if g := groups[name]; len(g) > 0 && g[0].Traits.OneParticlePerStep {
			largest := map[int]*Cell{}
			for _, c := range groups[name] {
				if b, ok := largest[c.Prov.Split]; !ok || c.Prov.N > b.Prov.N {
					largest[c.Prov.Split] = c
				}
			}
			for sp, c := range largest {
				for _, r := range c.Metric(metric) {
					if r.Step > 0 {
						at[float64(r.Step)] = append(at[float64(r.Step)], r.Value)
						splits[sp] = true
					}
				}
			}
		} else {
			for _, c := range groups[name] {
				if r, ok := c.Final(metric); ok && c.Prov.N > 0 {
					at[float64(c.Prov.N)] = append(at[float64(c.Prov.N)], r.Value)
					splits[c.Prov.Split] = true
				}
			}
		}
		if len(at) == 0 {
			continue
		}
		s := Series{Name: name, Method: name, Kind: kinds[name], Splits: len(splits)}
		for x := range at {
			s.X = append(s.X, x)
		}
		sort.Float64s(s.X)
		for _, x := range s.X {
			s.Vals = append(s.Vals, at[x])
		}
		out = append(out, s)
	}
	return out
}
