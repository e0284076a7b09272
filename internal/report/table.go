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
	// RunGradEvals lists the distinct gradient-evaluation run budgets
	// (budget.grad_evals) of the cells, nil when none has one.
	RunGradEvals []int64
	// AtBudget[level][dataset][method][metric] is the statistic over
	// splits of the snapshot each cell reports at a BudgetLevels level
	// (chosen on development rows, see pickAtBudget); nil without
	// gradient-evaluation budgets.
	AtBudget map[string]map[string]map[string]map[string]Stat
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
	t.budgetStats(cells)
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
// and metric; with gradient-evaluation budgets, one such table per budget
// level.
func (t *Table) Markdown() string {
	if t.AtBudget == nil {
		var b strings.Builder
		fmt.Fprintf(&b, "Wall-clock budget per cell: %s. Mean ± sd over splits (sample sd); RMSE lower is better, test LL higher is better.\n\n", t.BudgetText())
		t.markdown(&b, t.Stats)
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Budgets in per-datapoint gradient evaluations, as multiples of the SVGD reference protocol's (20 particles × 2,000 iterations × 100 rows); "+
		"each cell reports, of its snapshots within the budget, the one with the best RMSE on the development rows, and that snapshot's test metrics. "+
		"Mean ± sd over splits (sample sd); RMSE lower is better, test LL higher is better.\n\n")
	for _, lv := range BudgetLevels {
		fmt.Fprintf(&b, "**%s** (%s gradient evaluations)\n\n", lv.Label, gradText(t.BudgetGradEvals(lv)))
		t.markdown(&b, t.AtBudget[lv.Label])
		b.WriteString("\n")
	}
	return b.String()
}

func gradText(g int64) string {
	if g == 0 {
		return "various"
	}
	return strconv.FormatFloat(float64(g), 'g', 4, 64)
}

func (t *Table) markdown(b *strings.Builder, stats map[string]map[string]map[string]Stat) {
	b.WriteString("| dataset |")
	for _, metric := range t.Metrics {
		for _, m := range t.Methods {
			fmt.Fprintf(b, " %s %s |", m, metricShort[metric])
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
		fmt.Fprintf(b, "| %s |", t.Labels[ds])
		if why, ok := t.Missing[ds]; ok {
			for range len(t.Metrics) * len(t.Methods) {
				b.WriteString(" – |")
			}
			fmt.Fprintf(b, " 0 (%s) |\n", why)
			continue
		}
		splits := 0
		for _, metric := range t.Metrics {
			for _, m := range t.Methods {
				s, ok := stats[ds][m][metric]
				if !ok {
					b.WriteString(" – |")
					continue
				}
				splits = max(splits, len(s.Values))
				fmt.Fprintf(b, " %s |", FormatPM(s.Mean, s.SD))
			}
		}
		fmt.Fprintf(b, " %d |\n", splits)
	}
}

// CSVHeader is the header of figures/table1.csv.
var CSVHeader = []string{"dataset", "method", "budget", "budget_grad_evals", "rmse_mean", "rmse_sd", "test_ll_mean", "test_ll_sd", "splits"}

// CSV renders the table in tidy form with full precision: one row per
// dataset × method × budget, columns CSVHeader. budget is a BudgetLevels
// label and budget_grad_evals its gradient evaluations; cells without a
// gradient-evaluation budget (a wall-clock run) give one row per dataset ×
// method with budget "final" and budget_grad_evals empty. A metric a row
// lacks is empty; splits counts the splits with an RMSE.
func (t *Table) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(CSVHeader)
	num := func(s Stat, ok bool) (string, string) {
		if !ok {
			return "", ""
		}
		return strconv.FormatFloat(s.Mean, 'g', -1, 64), strconv.FormatFloat(s.SD, 'g', -1, 64)
	}
	row := func(ds, m, budget, grads string, st map[string]Stat) {
		r, rok := st["rmse"]
		l, lok := st["test_ll"]
		if !rok && !lok {
			return
		}
		rm, rs := num(r, rok)
		lm, ls := num(l, lok)
		n := len(r.Values)
		if !rok {
			n = len(l.Values)
		}
		w.Write([]string{ds, m, budget, grads, rm, rs, lm, ls, strconv.Itoa(n)})
	}
	for _, ds := range t.Datasets {
		for _, m := range t.Methods {
			if t.AtBudget == nil {
				row(ds, m, "final", "", t.Stats[ds][m])
				continue
			}
			for _, lv := range BudgetLevels {
				row(ds, m, lv.Label, fmtInt(t.BudgetGradEvals(lv)), t.AtBudget[lv.Label][ds][m])
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}
