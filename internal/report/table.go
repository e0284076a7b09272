package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/internal/harness"
)

// Stat is a metric's final value over the splits of one dataset.
type Stat struct {
	Mean, SD float64
	// Values are the final values, one per finished split, in split order.
	Values []float64
}

// finalStat collects the final value of metric of each cell (one per
// split) and their mean and sample sd.
func finalStat(cells []*Cell, metric string) (Stat, bool) {
	sorted := append([]*Cell(nil), cells...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Prov.Split < sorted[j].Prov.Split })
	var s Stat
	for _, c := range sorted {
		if r, ok := c.Final(metric); ok {
			s.Values = append(s.Values, r.Value)
		}
	}
	if len(s.Values) == 0 {
		return s, false
	}
	s.Mean, s.SD = MeanSD(s.Values)
	return s, true
}

// Table is Table 1: for each regression dataset and method, the final RMSE
// and test log-likelihood, mean ± sd over splits, after a fixed budget.
type Table struct {
	// Datasets are the datasets with at least one cell, in name order;
	// Labels their labels.
	Datasets []string
	Labels   map[string]string
	// Methods are in legend order (MMD-FW first).
	Methods []string
	// Metrics are the columns' metrics: rmse, test_ll.
	Metrics []string
	// Stats[dataset][method][metric] is present for finished cells.
	Stats map[string]map[string]map[string]Stat
	// Missing[dataset] says why a dataset has no finished cell.
	Missing map[string]string
	// BudgetSeconds lists the distinct wall-clock budgets of the cells
	// (0 for none).
	BudgetSeconds []float64
}

// Table1Metrics are the metrics of Table 1.
var Table1Metrics = []string{"rmse", "test_ll"}

// MakeTable returns the table of experiment id (Table 1 is "table1").
func MakeTable(res *Results, id string) *Table {
	cells := res.Experiment(id)
	t := &Table{Labels: map[string]string{}, Metrics: Table1Metrics,
		Stats: map[string]map[string]map[string]Stat{}, Missing: map[string]string{}}
	t.Methods, _ = methodOrder(cells)
	budgets := map[float64]bool{}
	for _, c := range cells {
		budgets[c.Prov.KeyDoc.Budget.Seconds] = true
	}
	for b := range budgets {
		t.BudgetSeconds = append(t.BudgetSeconds, b)
	}
	sort.Float64s(t.BudgetSeconds)
	t.Datasets = Datasets(cells)
	for _, ds := range t.Datasets {
		t.Labels[ds] = DatasetLabel(cells, ds)
		t.Stats[ds] = map[string]map[string]Stat{}
		g := byMethod(cells, ds)
		for _, m := range t.Methods {
			for _, metric := range t.Metrics {
				if s, ok := finalStat(g[m], metric); ok {
					if t.Stats[ds][m] == nil {
						t.Stats[ds][m] = map[string]Stat{}
					}
					t.Stats[ds][m][metric] = s
				}
			}
		}
		if len(t.Stats[ds]) == 0 {
			t.Missing[ds] = missingReason(cells, ds)
		}
	}
	return t
}

// missingReason is the first line of the reason of the first skipped or
// failed cell of a dataset.
func missingReason(cells []*Cell, ds string) string {
	for _, c := range cells {
		if c.Prov.Dataset == ds && c.Prov.Status != harness.Done {
			return string(c.Prov.Status) + ": " + firstLine(c.Prov.Error)
		}
	}
	return "no finished cell"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// FormatPM formats mean ± sd with the sd to two significant digits and the
// mean to the same decimal place.
func FormatPM(mean, sd float64) string {
	if !finite(mean) {
		return "–"
	}
	if !finite(sd) || sd == 0 {
		return strconv.FormatFloat(mean, 'g', 4, 64) + " ± 0"
	}
	// The exponent of sd rounded to two significant digits (0.0999… → 1.0e-01).
	e := strconv.FormatFloat(sd, 'e', 1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	dec := max(0, 1-exp)
	return fmt.Sprintf("%.*f ± %.*f", dec, mean, dec, sd)
}

// BudgetText states the wall-clock budget of the table's cells.
func (t *Table) BudgetText() string {
	var parts []string
	for _, b := range t.BudgetSeconds {
		if b == 0 {
			parts = append(parts, "no time limit")
		} else {
			parts = append(parts, strconv.FormatFloat(b, 'g', -1, 64)+" s")
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, ", ")
}

var metricShort = map[string]string{"rmse": "RMSE", "test_ll": "test LL"}

// Markdown renders the table: one row per dataset, one column per method
// and metric.
func (t *Table) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Wall-clock budget per cell: %s. Mean ± sd over splits (sample sd); RMSE lower is better, test LL higher is better.\n\n", t.BudgetText())
	b.WriteString("| dataset |")
	for _, metric := range t.Metrics {
		for _, m := range t.Methods {
			fmt.Fprintf(&b, " %s %s |", m, metricShort[metric])
		}
	}
	b.WriteString(" splits |\n|---|")
	for range t.Metrics {
		for range t.Methods {
			b.WriteString("---|")
		}
	}
	b.WriteString("---|\n")
	for _, ds := range t.Datasets {
		fmt.Fprintf(&b, "| %s |", t.Labels[ds])
		if why, ok := t.Missing[ds]; ok {
			for range len(t.Metrics) * len(t.Methods) {
				b.WriteString(" – |")
			}
			fmt.Fprintf(&b, " 0 (%s) |\n", why)
			continue
		}
		splits := 0
		for _, metric := range t.Metrics {
			for _, m := range t.Methods {
				s, ok := t.Stats[ds][m][metric]
				if !ok {
					b.WriteString(" – |")
					continue
				}
				splits = max(splits, len(s.Values))
				fmt.Fprintf(&b, " %s |", FormatPM(s.Mean, s.SD))
			}
		}
		fmt.Fprintf(&b, " %d |\n", splits)
	}
	return b.String()
}

// CSV renders the table in long form with full precision.
func (t *Table) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"dataset", "label", "method", "metric", "mean", "sd", "n_splits", "budget_seconds"})
	bt := strings.Trim(strings.ReplaceAll(fmt.Sprint(t.BudgetSeconds), " ", ";"), "[]")
	for _, ds := range t.Datasets {
		for _, m := range t.Methods {
			for _, metric := range t.Metrics {
				s, ok := t.Stats[ds][m][metric]
				if !ok {
					continue
				}
				w.Write([]string{ds, t.Labels[ds], m, metric, strconv.FormatFloat(s.Mean, 'g', -1, 64),
					strconv.FormatFloat(s.SD, 'g', -1, 64), strconv.Itoa(len(s.Values)), bt})
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}
