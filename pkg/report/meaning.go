package report

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// Unregistered marks the label of a metric that no registry describes
// (harness.Registry.DescribeMetric): the figure shows its name, drawn on a
// linear axis unless the figure says otherwise, and no rule ranks it.
const Unregistered = " (meaning not registered)"

// Meaning returns what metric m means, from the registry that planned the
// results (Results.Metrics).
func (r *Results) Meaning(m string) (harness.MetricMeaning, error) {
	return r.Metrics.Meaning(m)
}

// HigherBetter reports whether a larger value of metric m is better, as
// its registered meaning says; an error names a metric without one, or one
// that is best at an ideal value rather than in one direction (the level
// rules of the claims need one).
func (r *Results) HigherBetter(m string) (bool, error) {
	mm, err := r.Meaning(m)
	if err != nil {
		return false, err
	}
	if mm.Better == harness.NearerBetter {
		return false, fmt.Errorf("metric %q is best at %g, not larger or smaller", m, mm.Ideal)
	}
	return mm.Better == harness.HigherBetter, nil
}

// metricLabel is the axis label of metric m on dataset ds of cells (one
// experiment's): its registered label, with the rows the experiment's
// metrics evaluate, and the exact label where the dataset's reference is
// the target's closed form; the name marked Unregistered when t has none.
func metricLabel(t harness.MetricTable, cells []*Cell, ds, m string) string {
	mm, err := t.Meaning(m)
	if err != nil {
		return m + Unregistered
	}
	if mm.LabelExact != "" && ExactReference(cells, ds) {
		return mm.LabelExact
	}
	return mm.AxisLabel(evalRows(cells))
}

// logScale reports whether metric m is drawn on a log axis by default, as
// its registered meaning says (linear for a metric without one).
func logScale(t harness.MetricTable, m string) bool {
	mm, err := t.Meaning(m)
	return err == nil && mm.Log
}

// evalRows is the eval.rows the cells record ("" for the test rows).
func evalRows(cells []*Cell) string {
	for _, c := range cells {
		if c.Prov != nil {
			return c.Prov.KeyDoc.Eval.Rows
		}
	}
	return ""
}

// ExactReference reports whether the reference of dataset ds, as the
// first of its cells that records one says, is the target's closed form.
func ExactReference(cells []*Cell, ds string) bool {
	for _, c := range cells {
		if c.Prov.Dataset != ds {
			continue
		}
		if m, ok := RefObject(c); ok {
			k, _ := m["kind"].(string)
			return k == "exact"
		}
	}
	return false
}
