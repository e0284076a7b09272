package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// FloorLabel is the legend text of the reference floor line.
const FloorLabel = "reference floor"

// ReferenceFloor returns the reference floor of metric m on dataset ds:
// the within-reference MMD² (first half of every chain's draws against the
// second half, in m's kernel) that the done cells record under
// summary.reference.floors[m], as the geometric mean over the splits that
// record one (the curves of a log axis are geometric means too), and the
// SummaryNumber of those splits. It is 0 splits for a metric without floors, such
// as the exact MMD² of a closed-form target.
func ReferenceFloor(cells []*Cell, ds, m string) (floor float64, splits int) {
	per := map[int]float64{}
	for _, c := range Done(cells) {
		if c.Prov.Dataset != ds {
			continue
		}
		if _, ok := per[c.Prov.Split]; ok {
			continue
		}
		if v, ok := cellFloor(c, m); ok {
			per[c.Prov.Split] = v
		}
	}
	if len(per) == 0 {
		return math.NaN(), 0
	}
	keys := make([]int, 0, len(per))
	for s := range per {
		keys = append(keys, s)
	}
	sort.Ints(keys)
	var sum float64
	for _, s := range keys {
		sum += math.Log(per[s])
	}
	return math.Exp(sum / float64(len(keys))), len(keys)
}

// cellFloor returns the positive floor of metric m one cell records.
func cellFloor(c *Cell, m string) (float64, bool) {
	ref, ok := RefObject(c)
	if !ok {
		return 0, false
	}
	fl, ok := ref["floors"].(map[string]any)
	if !ok {
		return 0, false
	}
	v, ok := fl[m].(float64)
	if !ok || !(v > 0) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// floorColor is the reference floor's grey.
var floorColor = color.NRGBA{R: 90, G: 90, B: 90, A: 255}

// addFloor draws the reference floor of metric m on dataset ds as a
// horizontal dashed line across the x range of the series, and returns its
// legend entry, which names the metric by label (its label in words); nil
// when the cells record no floor for m.
func addFloor(p *fig, cells []*Cell, ds, m, label string, series []Series) []entry {
	v, n := ReferenceFloor(cells, ds, m)
	if n == 0 {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, x := range s.X {
			if Finite(x) && (!p.logX || x > 0) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	if !(lo <= hi) {
		return nil
	}
	a, ok0 := p.xy(lo, v)
	b, ok1 := p.xy(hi, v)
	if !ok0 || !ok1 {
		return nil
	}
	line, err := plotter.NewLine(plotter.XYs{a, b})
	if err != nil {
		panic("report: " + err.Error())
	}
	line.Color = floorColor
	line.Width = vg.Points(1)
	line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(line)
	text := fmt.Sprintf("%s, %s between the reference's two halves: %.2g (%s)", FloorLabel, label, v, splitsText(n))
	return []entry{{text, []plot.Thumbnailer{line}}}
}

// FunctionInputs is the number of test inputs at which the wiring's fmmd2
// compares the network's predictions (the first rows of the evaluation
// rows); the claim 2 rule names it.
const FunctionInputs = 100
