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
	// Methods are in legend order (MMD-FW first, the floors of kinds ols
	// and constant among the last); Kinds their kinds.
	Methods []string
	Kinds   map[string]string
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
	t.Methods, t.Kinds = methodOrder(cells)
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

// IsFloor reports whether a method kind is one of Table 1's closed-form
// floors: ordinary least squares ("ols") or the training-mean predictor
// ("constant"). They spend no gradient evaluations, so they report the
// same value at every budget.
func IsFloor(kind string) bool { k := normKind(kind); return k == "ols" || k == "constant" }

// Markdown renders the table: one row per dataset × method (the floors,
// methods of kinds ols and constant, as rows of their own), one column per
// metric, and with gradient-evaluation budgets one per metric and budget
// level; then the list of the BNN methods whose RMSE is not below OLS's
// (NotBelowOLS).
func (t *Table) Markdown() string {
	var b strings.Builder
	floors := ""
	if t.hasFloor() {
		floors = "Rows of kinds ols and constant are closed-form floors (ordinary least squares and the training mean, each with its Gaussian noise " +
			"estimated on the training rows) that every BNN result must clear. "
		if t.AtBudget != nil {
			floors += "They spend no gradient evaluations, so they have the same value at every budget. "
		}
	}
	levels := []string{""}
	if t.AtBudget == nil {
		fmt.Fprintf(&b, "Wall-clock budget per cell: %s. %sMean ± sd over splits (sample sd); RMSE lower is better, test LL higher is better.\n\n", t.BudgetText(), floors)
	} else {
		var bs []string
		for _, lv := range BudgetLevels {
			bs = append(bs, fmt.Sprintf("**%s** = %s", lv.Label, gradText(t.BudgetGradEvals(lv))))
		}
		fmt.Fprintf(&b, "Budgets in per-datapoint gradient evaluations, as multiples of the SVGD reference protocol's (20 particles × 2,000 iterations × 100 rows): %s; "+
			"each cell reports, of its snapshots within the budget, the one with the best RMSE on the development rows, and that snapshot's test metrics. "+
			"%sMean ± sd over splits (sample sd); RMSE lower is better, test LL higher is better.\n\n", strings.Join(bs, ", "), floors)
		levels = nil
		for _, lv := range BudgetLevels {
			levels = append(levels, lv.Label)
		}
	}
	stats := func(level string) map[string]map[string]map[string]Stat {
		if level == "" {
			return t.Stats
		}
		return t.AtBudget[level]
	}
	b.WriteString("| dataset | method |")
	for _, metric := range t.Metrics {
		for _, lv := range levels {
			fmt.Fprintf(&b, " %s |", strings.TrimSpace(metricShort[metric]+" "+lv))
		}
	}
	b.WriteString(" splits |\n|---|---|")
	for range len(t.Metrics) * len(levels) {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, ds := range t.Datasets {
		if why, ok := t.Missing[ds]; ok {
			fmt.Fprintf(&b, "| %s | – |", t.Labels[ds])
			for range len(t.Metrics) * len(levels) {
				b.WriteString(" – |")
			}
			fmt.Fprintf(&b, " 0 (%s) |\n", why)
			continue
		}
		for _, m := range t.Methods {
			var cells []string
			splits, any := 0, false
			for _, metric := range t.Metrics {
				for _, lv := range levels {
					s, ok := stats(lv)[ds][m][metric]
					if !ok {
						cells = append(cells, "–")
						continue
					}
					any = true
					splits = max(splits, len(s.Values))
					cells = append(cells, FormatPM(s.Mean, s.SD))
				}
			}
			if !any {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", t.Labels[ds], m, strings.Join(cells, " | "), splits)
		}
	}
	if nb := t.NotBelowOLS(); nb != nil {
		b.WriteString("\n**Not below OLS.** The BNN methods whose mean test RMSE over splits is not below the OLS row's (mean ≥ OLS's mean), per budget and dataset:\n\n")
		for _, lv := range levels {
			name := lv
			if name == "" {
				name = "final"
			}
			var parts []string
			for _, ds := range t.Datasets {
				if len(nb[lv][ds]) == 0 {
					continue
				}
				ols := stats(lv)[ds][t.olsMethod()]["rmse"].Mean
				var ms []string
				for _, m := range nb[lv][ds] {
					ms = append(ms, fmt.Sprintf("%s %.4g", m, stats(lv)[ds][m]["rmse"].Mean))
				}
				parts = append(parts, fmt.Sprintf("%s: %s (OLS %.4g)", t.Labels[ds], strings.Join(ms, ", "), ols))
			}
			if len(parts) == 0 {
				parts = []string{"none: every BNN method is below OLS on every dataset with an OLS row"}
			}
			fmt.Fprintf(&b, "- %s: %s\n", name, strings.Join(parts, "; "))
		}
	}
	return b.String()
}

func (t *Table) hasFloor() bool {
	for _, m := range t.Methods {
		if IsFloor(t.Kinds[m]) {
			return true
		}
	}
	return false
}

// olsMethod is the table's first method of kind ols ("" when none).
func (t *Table) olsMethod() string {
	for _, m := range t.Methods {
		if normKind(t.Kinds[m]) == "ols" {
			return m
		}
	}
	return ""
}

// NotBelowOLS returns, per budget level ("" for a wall-clock table, else
// a BudgetLevels label) and dataset, the BNN methods (every method that
// is not a floor, see IsFloor) whose mean test RMSE is not below the mean
// test RMSE of the table's OLS method: the BNN results that fail to clear
// the linear floor. It is nil when the table has no method of kind ols;
// a dataset without an OLS RMSE is left out.
func (t *Table) NotBelowOLS() map[string]map[string][]string {
	ols := t.olsMethod()
	if ols == "" {
		return nil
	}
	levels := map[string]map[string]map[string]map[string]Stat{"": t.Stats}
	if t.AtBudget != nil {
		levels = t.AtBudget
	}
	out := map[string]map[string][]string{}
	for lv, st := range levels {
		out[lv] = map[string][]string{}
		for _, ds := range t.Datasets {
			o, ok := st[ds][ols]["rmse"]
			if !ok || !finite(o.Mean) {
				continue
			}
			for _, m := range t.Methods {
				if IsFloor(t.Kinds[m]) {
					continue
				}
				if s, ok := st[ds][m]["rmse"]; ok && !(s.Mean < o.Mean) {
					out[lv][ds] = append(out[lv][ds], m)
				}
			}
		}
	}
	return out
}

// CSVHeader is the header of figures/table1.csv.
var CSVHeader = []string{"dataset", "method", "budget", "budget_grad_evals", "rmse_mean", "rmse_sd", "test_ll_mean", "test_ll_sd", "splits"}

// CSV renders the table in tidy form with full precision: one row per
// dataset × method × budget, columns CSVHeader. budget is a BudgetLevels
// label and budget_grad_evals its gradient evaluations; cells without a
// gradient-evaluation budget (a wall-clock run) give one row per dataset ×
// method with budget "final" and budget_grad_evals empty. The floors
// (methods of kinds ols and constant, IsFloor) spend no gradient
// evaluations and have one row at every budget with the same values, so
// that the rows of one budget hold every method and floor to compare. A metric a row
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

func gradText(g int64) string {
	if g == 0 {
		return "various"
	}
	return strconv.FormatFloat(float64(g), 'g', 4, 64)
}
