package paper

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

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
	Stats map[string]map[string]map[string]report.Stat
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
	AtBudget map[string]map[string]map[string]map[string]report.Stat
	// Starts[dataset][method] is the start a method runs from, in words
	// ("" for the floors); StartBase[dataset][method] the start-only
	// baseline its gain over the start is measured against (its start
	// alone, else another baseline of its start class; "" when none).
	Starts, StartBase map[string]map[string]string
	// Gain[level][dataset][method] are the paired statistics over splits
	// of ln(baseline's RMSE / the method's RMSE) at a budget level: above
	// 0 the method beats its start alone.
	Gain map[string]map[string]map[string]PairedStats
	// ChosenStarts say, per tuning experiment and kind, which start
	// validation chose on each dataset (see chosenStarts).
	ChosenStarts []string
}

// Table1Metrics are the metrics of Table 1.
var Table1Metrics = []string{"rmse", "test_ll"}

// MakeTable returns the table of experiment id (Table 1 is "table1").
func MakeTable(res *report.Results, id string) *Table {
	cells := res.Experiment(id)
	t := &Table{Labels: map[string]string{}, Metrics: Table1Metrics,
		Stats: map[string]map[string]map[string]report.Stat{}, Missing: map[string]string{}}
	t.Methods, t.Kinds = report.MethodOrder(cells)
	budgets := map[float64]bool{}
	for _, c := range cells {
		budgets[c.Prov.KeyDoc.Budget.Seconds] = true
	}
	for b := range budgets {
		t.BudgetSeconds = append(t.BudgetSeconds, b)
	}
	sort.Float64s(t.BudgetSeconds)
	t.Datasets = report.Datasets(cells)
	for _, ds := range t.Datasets {
		t.Labels[ds] = report.DatasetLabel(cells, ds)
		t.Stats[ds] = map[string]map[string]report.Stat{}
		g := report.ByMethod(cells, ds)
		for _, m := range t.Methods {
			for _, metric := range t.Metrics {
				if s, ok := report.FinalStat(g[m], metric); ok {
					if t.Stats[ds][m] == nil {
						t.Stats[ds][m] = map[string]report.Stat{}
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
	t.starts(res, id, cells)
	t.ChosenStarts = chosenStarts(res)
	return t
}

// missingReason is the first line of the reason of the first skipped or
// failed cell of a dataset.
func missingReason(cells []*report.Cell, ds string) string {
	for _, c := range cells {
		if c.Prov.Dataset == ds && c.Prov.Status != harness.Done {
			return string(c.Prov.Status) + ": " + report.FirstLine(c.Prov.Error)
		}
	}
	return "no finished cell"
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
func IsFloor(kind string) bool { k := report.NormKind(kind); return k == "ols" || k == "constant" }

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
	stats := func(level string) map[string]map[string]map[string]report.Stat {
		if level == "" {
			return t.Stats
		}
		return t.AtBudget[level]
	}
	gains := t.AtBudget != nil && t.Starts != nil
	extra := 0
	b.WriteString("| dataset | method |")
	if gains {
		b.WriteString(" start |")
		extra = 1 + len(levels)
	}
	for _, metric := range t.Metrics {
		for _, lv := range levels {
			fmt.Fprintf(&b, " %s |", strings.TrimSpace(metricShort[metric]+" "+lv))
		}
	}
	if gains {
		for _, lv := range levels {
			fmt.Fprintf(&b, " RMSE gain over its start alone %s |", lv)
		}
	}
	b.WriteString(" splits |\n|---|---|")
	for range len(t.Metrics)*len(levels) + extra {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, ds := range t.Datasets {
		if why, ok := t.Missing[ds]; ok {
			fmt.Fprintf(&b, "| %s | – |", t.Labels[ds])
			for range len(t.Metrics)*len(levels) + extra {
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
					cells = append(cells, report.FormatPM(s.Mean, s.SD))
				}
			}
			if !any {
				continue
			}
			if gains {
				st := t.Starts[ds][m]
				if st == "" {
					st = "–"
				}
				cells = append([]string{st}, cells...)
				for _, lv := range levels {
					cells = append(cells, t.gainText(lv, ds, m))
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", t.Labels[ds], m, strings.Join(cells, " | "), splits)
		}
	}
	if gains {
		fmt.Fprintf(&b, "\nStart: the start each method runs from (the start-only baselines, kind `start`, are their start alone or a deep ensemble of it). "+
			"RMSE gain over its start alone: per split the start-only baseline's RMSE over the method's at the same budget (the start alone where recorded, "+
			"else another baseline of its start class, named), mean over splits of the log ratio shown as a ratio with its 95 %% paired-t interval; above 1 the "+
			"method beats its start; – where no baseline of its start class is recorded.\n")
	}
	if len(t.ChosenStarts) > 0 {
		b.WriteString("\n**Start chosen on validation rows.** " + strings.Join(t.ChosenStarts, " ") + "\n")
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
		if report.NormKind(t.Kinds[m]) == "ols" {
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
	levels := map[string]map[string]map[string]map[string]report.Stat{"": t.Stats}
	if t.AtBudget != nil {
		levels = t.AtBudget
	}
	out := map[string]map[string][]string{}
	for lv, st := range levels {
		out[lv] = map[string][]string{}
		for _, ds := range t.Datasets {
			o, ok := st[ds][ols]["rmse"]
			if !ok || !report.Finite(o.Mean) {
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
var CSVHeader = []string{"dataset", "method", "budget", "budget_grad_evals", "rmse_mean", "rmse_sd", "test_ll_mean", "test_ll_sd", "splits",
	"start", "start_baseline", "rmse_gain_over_start"}

// CSV renders the table in tidy form with full precision: one row per
// dataset × method × budget, columns CSVHeader. budget is a BudgetLevels
// label and budget_grad_evals its gradient evaluations; cells without a
// gradient-evaluation budget (a wall-clock run) give one row per dataset ×
// method with budget "final" and budget_grad_evals empty. The floors
// (methods of kinds ols and constant, IsFloor) spend no gradient
// evaluations and have one row at every budget with the same values, so
// that the rows of one budget hold every method and floor to compare. A metric a row
// lacks is empty; splits counts the splits with an RMSE. start is the
// start the method runs from (empty for the floors); start_baseline the
// start-only baseline of its start class and rmse_gain_over_start the
// geometric mean over splits of that baseline's RMSE over the method's at
// the budget (empty where there is none, and for a wall-clock run).
func (t *Table) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(CSVHeader)
	num := func(s report.Stat, ok bool) (string, string) {
		if !ok {
			return "", ""
		}
		return strconv.FormatFloat(s.Mean, 'g', -1, 64), strconv.FormatFloat(s.SD, 'g', -1, 64)
	}
	row := func(ds, m, budget, grads string, st map[string]report.Stat) {
		start, base, gain := t.Starts[ds][m], "", ""
		if p, ok := t.Gain[budget][ds][m]; ok && p.N > 0 {
			base, gain = t.StartBase[ds][m], strconv.FormatFloat(math.Exp(p.Mean), 'g', -1, 64)
		}
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
		w.Write([]string{ds, m, budget, grads, rm, rs, lm, ls, strconv.Itoa(n), start, base, gain})
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

// starts fills the table's starts and, at each budget level, each
// method's gain over its start alone (see Table.Gain).
func (t *Table) starts(res *report.Results, id string, cells []*report.Cell) {
	t.Starts, t.StartBase = map[string]map[string]string{}, map[string]map[string]string{}
	bnnSets := map[string]bool{}
	for _, ds := range t.Datasets {
		bnnSets[ds] = isBNN(report.CellsOf(report.Done(cells), ds))
		t.Starts[ds], t.StartBase[ds] = map[string]string{}, map[string]string{}
		var bases = map[string][]string{} // start class → start-only baselines
		class := map[string]string{}
		for _, m := range t.Methods {
			for _, c := range report.CellsOf(report.Done(cells), ds) {
				if c.Prov.Method == m {
					t.Starts[ds][m], class[m] = StartOf(c, bnnSets[ds])
					break
				}
			}
		}
		for _, m := range t.Methods {
			if IsStartKind(t.Kinds[m]) || class[m] == "" {
				continue
			}
			if _, ok := bases[class[m]]; !ok {
				bases[class[m]] = startBaselinesIn(cells, ds, class[m], bnnSets[ds])
			}
			if b := bases[class[m]]; len(b) > 0 {
				t.StartBase[ds][m] = b[0]
			}
		}
	}
	if t.AtBudget == nil {
		return
	}
	t.Gain = map[string]map[string]map[string]PairedStats{}
	for _, lv := range BudgetLevels {
		t.Gain[lv.Label] = map[string]map[string]PairedStats{}
		for _, ds := range t.Datasets {
			t.Gain[lv.Label][ds] = map[string]PairedStats{}
			for m, base := range t.StartBase[ds] {
				if base == "" {
					continue
				}
				mv, bv := t.atBudgetBySplit(cells, lv, ds, m), t.atBudgetBySplit(cells, lv, ds, base)
				var d []float64
				for _, s := range sortedSplits(mv) {
					if b, ok := bv[s]; ok && mv[s] > 0 && b > 0 {
						d = append(d, math.Log(b/mv[s]))
					}
				}
				if len(d) > 0 {
					t.Gain[lv.Label][ds][m] = Paired(d)
				}
			}
		}
	}
}

// atBudgetBySplit is the test RMSE of method m on dataset ds at budget
// level lv, per split (the snapshot pickAtBudget reports).
func (t *Table) atBudgetBySplit(cells []*report.Cell, lv BudgetLevel, ds, m string) map[int]float64 {
	out := map[int]float64{}
	for _, c := range report.Done(report.ByMethod(cells, ds)[m]) {
		if p := pickAtBudget(c, budgetOf(c, lv)); p.ok {
			if v, ok := p.values["rmse"]; ok && report.Finite(v) {
				out[c.Prov.Split] = v
			}
		}
	}
	return out
}

// startBaselinesIn returns the start-only baselines among cells on
// dataset ds whose start class is class: the start alone first, then the
// others, in legend order.
func startBaselinesIn(cells []*report.Cell, ds, class string, bnn bool) []string {
	names, kinds := report.MethodOrder(cells)
	var alone, other []string
	for _, m := range names {
		if !IsStartKind(kinds[m]) {
			continue
		}
		for _, c := range report.CellsOf(report.Done(cells), ds) {
			if c.Prov.Method != m {
				continue
			}
			if _, cl := StartOf(c, bnn); cl == class {
				if startAlone(c) {
					alone = append(alone, m)
				} else {
					other = append(other, m)
				}
			}
			break
		}
	}
	return append(alone, other...)
}

// gainText is the gain of method m over its start alone at a budget level
// as a table cell: "1.20 [1.10, 1.31] vs start-trained".
func (t *Table) gainText(lv, ds, m string) string {
	p, ok := t.Gain[lv][ds][m]
	if !ok || p.N == 0 {
		return "–"
	}
	iv := "[–]"
	if report.Finite(p.Lo) {
		iv = fmt.Sprintf("[%s, %s]", fmtRatio(math.Exp(p.Lo)), fmtRatio(math.Exp(p.Hi)))
	}
	return fmt.Sprintf("%s %s vs %s", fmtRatio(math.Exp(p.Mean)), iv, t.StartBase[ds][m])
}

// chosenStarts says, per tuning experiment and method kind, which start
// the configuration chosen on validation rows runs from on each dataset,
// and which starts the grid offered: "tune-bnn, kind svgd: offered model
// init draws and draws around a trained network; chosen draws around a
// trained network on 7 datasets (…), model init draws on 2 (…)." An
// experiment with declared choice rules says it per kind and rule:
// "tune-covertype, kind sgld (rule fig1a): …". A rule with across =
// "datasets" chooses once for every dataset (acrossStarts).
func chosenStarts(res *report.Results) []string {
	var out []string
	for _, id := range report.TuningExperiments(res) {
		cells := report.Done(res.Experiment(id))
		type kindStarts struct {
			offered []string
			chosen  map[string][]string
			order   []string
		}
		byKind := map[string]*kindStarts{}
		var kinds []string
		for _, g := range report.TuningGrids(res, id) {
			if g.Across != nil {
				if s := acrossStarts(cells, g); s != "" {
					out = append(out, id+", "+s)
				}
				continue
			}
			dsCells := report.CellsOf(cells, g.Dataset)
			bnn := isBNN(dsCells)
			startOf := func(m string) string {
				for _, c := range dsCells {
					if c.Prov.Method == m {
						l, _ := StartOf(c, bnn)
						return l
					}
				}
				return ""
			}
			key := g.Kind
			if g.Rule != nil {
				key = g.Kind + " (rule " + g.Rule.Name + ")"
			}
			k := byKind[key]
			if k == nil {
				k = &kindStarts{chosen: map[string][]string{}}
				byKind[key] = k
				kinds = append(kinds, key)
			}
			for _, c := range g.Configs {
				if s := startOf(c.Method); s != "" && !slices.Contains(k.offered, s) {
					k.offered = append(k.offered, s)
				}
			}
			if g.Chosen < 0 {
				continue
			}
			s := startOf(g.Configs[g.Chosen].Method)
			if s == "" {
				continue
			}
			if _, ok := k.chosen[s]; !ok {
				k.order = append(k.order, s)
			}
			k.chosen[s] = append(k.chosen[s], g.Label)
		}
		for _, kind := range kinds {
			k := byKind[kind]
			if len(k.offered) == 0 {
				continue
			}
			var ch []string
			for _, s := range k.order {
				ch = append(ch, fmt.Sprintf("%s on %d (%s)", s, len(k.chosen[s]), strings.Join(k.chosen[s], ", ")))
			}
			chosen := "none chosen"
			if len(ch) > 0 {
				chosen = "chosen " + strings.Join(ch, "; ")
			}
			out = append(out, fmt.Sprintf("%s, kind %s: offered %s; %s.", id, kind, joinAnd(k.offered), chosen))
		}
	}
	return out
}

// acrossStarts says which start the configuration a rule with across =
// "datasets" chose for every dataset runs from, with the per-start
// choices: "kind svgd (rule r): offered …; chosen for all 9 datasets by
// mean rank: draws around a trained network (`svgd-trained-e1e-3`); per
// start: model init draws `svgd-e3e-3-b100`, …".
func acrossStarts(cells []*report.Cell, g report.TuningGrid) string {
	startOf := func(m string) string {
		for _, c := range cells {
			if c.Prov.Method == m {
				l, _ := StartOf(c, isBNN(report.CellsOf(cells, c.Prov.Dataset)))
				return l
			}
		}
		return ""
	}
	var offered []string
	for _, c := range g.Configs {
		if s := startOf(c.Method); s != "" && !slices.Contains(offered, s) {
			offered = append(offered, s)
		}
	}
	if len(offered) == 0 {
		return ""
	}
	a := g.Across
	chosen := "none chosen"
	if g.Chosen >= 0 {
		m := g.Configs[g.Chosen].Method
		chosen = fmt.Sprintf("chosen for all %d datasets by mean rank: %s (`%s`)", len(a.Datasets), startOf(m), m)
	}
	var per []string
	if len(a.Groups) > 1 {
		for _, i := range a.PerGroup {
			if i >= 0 {
				m := g.Configs[i].Method
				per = append(per, fmt.Sprintf("%s `%s`", startOf(m), m))
			}
		}
	}
	if len(per) > 0 {
		chosen += "; per start: " + strings.Join(per, ", ")
	}
	return fmt.Sprintf("kind %s (rule %s): offered %s; %s.", g.Kind, g.Rule.Name, joinAnd(offered), chosen)
}
