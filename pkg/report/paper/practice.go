package paper

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The practitioner's question: of what Table 1 runs from a trained
// network, which to use. The table reads Table 1's arms at the reference
// budget (1×: the SVGD reference protocol's gradient evaluations), each
// cell's snapshot chosen on development rows as Table 1 chooses it, and
// names per data set and metric the arm with the best mean and its paired
// interval over the splits against the runner-up.

// PracticeArm is an arm of the practitioner's table.
type PracticeArm struct {
	// Method is the method of experiments/table1.toml; Label names it in
	// a column head, Noun in a sentence.
	Method, Label, Noun string
}

// PracticeArms are the arms of the practitioner's table: the trained
// network alone, the deep ensemble of such networks at the same budget,
// and MMD-FW and SVGD started from a trained network.
var PracticeArms = []PracticeArm{
	{"start-trained", "trained network alone", "the trained network alone"},
	{"start-ensemble", "deep ensemble", "the deep ensemble"},
	{"mmdfw-trained", "MMD-FW", "MMD-FW"},
	{"svgd-trained", "SVGD", "SVGD"},
}

// PracticeLevel is the budget of the practitioner's table.
const PracticeLevel = "1x"

// PracticeCell is one data set and metric of the practitioner's table.
type PracticeCell struct {
	// Means are the arms' means over splits (NaN where an arm has none).
	Means []float64
	// Winner indexes PracticeArms: the best mean (−1 with fewer than two
	// arms); RunnerUp the second best.
	Winner, RunnerUp int
	// Margin is the paired statistics over the splits both ran of the
	// winner's advantage: ln(runner-up's RMSE / winner's) for the RMSE,
	// the difference of test log-likelihoods for test_ll (positive: the
	// winner is better).
	Margin PairedStats
}

// PracticeRow is one data set of the practitioner's table.
type PracticeRow struct {
	Dataset, Label string
	// Cells are by metric (Table1Metrics).
	Cells map[string]PracticeCell
}

// Practice returns the practitioner's table of res: a row per data set of
// Table 1 where at least two of its arms finished.
func Practice(res *report.Results) []PracticeRow {
	cells := res.Experiment(Table1)
	var out []PracticeRow
	for _, ds := range report.Datasets(report.Done(cells)) {
		row := PracticeRow{Dataset: ds, Label: report.DatasetLabel(cells, ds), Cells: map[string]PracticeCell{}}
		for _, m := range Table1Metrics {
			vals := make([]map[int]float64, len(PracticeArms))
			pc := PracticeCell{Means: make([]float64, len(PracticeArms)), Winner: -1, RunnerUp: -1}
			var ranked []int
			for i, a := range PracticeArms {
				vals[i] = atLevel(cells, ds, a.Method, m, PracticeLevel)
				var v []float64
				for _, x := range vals[i] {
					v = append(v, x)
				}
				pc.Means[i], _ = report.MeanSD(v)
				if report.Finite(pc.Means[i]) {
					ranked = append(ranked, i)
				}
			}
			if len(ranked) < 2 {
				continue
			}
			better := func(a, b float64) bool { return a > b }
			if m == "rmse" {
				better = func(a, b float64) bool { return a < b }
			}
			sort.SliceStable(ranked, func(i, j int) bool { return better(pc.Means[ranked[i]], pc.Means[ranked[j]]) })
			pc.Winner, pc.RunnerUp = ranked[0], ranked[1]
			var d []float64
			for _, s := range sortedSplits(vals[pc.Winner]) {
				w := vals[pc.Winner][s]
				r, ok := vals[pc.RunnerUp][s]
				if !ok {
					continue
				}
				if m == "rmse" {
					if w > 0 && r > 0 {
						d = append(d, math.Log(r/w))
					}
				} else {
					d = append(d, w-r)
				}
			}
			pc.Margin = Paired(d)
			row.Cells[m] = pc
		}
		if len(row.Cells) > 0 {
			out = append(out, row)
		}
	}
	return out
}

// atLevel is method m's value of metric on dataset ds at Table 1's budget
// level, per split: the snapshot pickAtBudget reports.
func atLevel(cells []*report.Cell, ds, m, metric, level string) map[int]float64 {
	var lv BudgetLevel
	for _, l := range BudgetLevels {
		if l.Label == level {
			lv = l
		}
	}
	out := map[int]float64{}
	for s, c := range bySplit(cells, ds, m) {
		if p := pickAtBudget(c, budgetOf(c, lv)); p.ok {
			if v, ok := p.values[metric]; ok && report.Finite(v) {
				out[s] = v
			}
		}
	}
	return out
}

// marginText is the winner's advantage over the runner-up with its 95 %
// interval: "1.030 [0.990, 1.070]" for the RMSE, "+0.02 [−0.01, 0.05]" for
// the test log-likelihood; "(one split)" without an interval.
func (c PracticeCell) marginText(metric string) string {
	p := c.Margin
	if p.N == 0 {
		return "–"
	}
	f := func(v float64) string { return fmt.Sprintf("%+.3g", v) }
	if metric == "rmse" {
		// Three decimals: the ratios lie near 1, where three significant
		// digits would print 1.004 as 1.
		f = func(v float64) string { return fmt.Sprintf("%.3f", math.Exp(v)) }
	}
	if !report.Finite(p.Lo) {
		return f(p.Mean) + " (one split)"
	}
	return fmt.Sprintf("%s [%s, %s]", f(p.Mean), f(p.Lo), f(p.Hi))
}

// Clear reports whether the winner's interval against the runner-up
// excludes no advantage.
func (c PracticeCell) Clear() bool { return c.Margin.N >= 2 && c.Margin.Lo > 0 }

// PracticeMarkdown is the practitioner's table in Markdown.
func PracticeMarkdown(rows []PracticeRow) string {
	var b strings.Builder
	b.WriteString("| data set |")
	for _, a := range PracticeArms {
		fmt.Fprintf(&b, " %s RMSE |", a.Label)
	}
	b.WriteString(" best RMSE (over the runner-up) |")
	for _, a := range PracticeArms {
		fmt.Fprintf(&b, " %s test LL |", a.Label)
	}
	b.WriteString(" best test LL (over the runner-up) |\n|---|")
	b.WriteString(strings.Repeat("---|", 2*len(PracticeArms)+2) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |", r.Label)
		for _, m := range Table1Metrics {
			c, ok := r.Cells[m]
			for i := range PracticeArms {
				v := "–"
				if ok && report.Finite(c.Means[i]) {
					v = report.FormatG(c.Means[i])
					if i == c.Winner {
						v = "**" + v + "**"
					}
				}
				fmt.Fprintf(&b, " %s |", v)
			}
			w := "–"
			if ok && c.Winner >= 0 {
				w = fmt.Sprintf("%s, %s over %s", PracticeArms[c.Winner].Label, c.marginText(m), PracticeArms[c.RunnerUp].Label)
				if !c.Clear() {
					w += ": a tie within the noise"
				}
			}
			fmt.Fprintf(&b, " %s |", w)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// PracticeSentence says in one sentence how often each arm has the best
// mean RMSE and how often clearly (its interval over the runner-up above
// no advantage).
func PracticeSentence(rows []PracticeRow) string {
	best, clear := make([]int, len(PracticeArms)), make([]int, len(PracticeArms))
	n := 0
	for _, r := range rows {
		c, ok := r.Cells["rmse"]
		if !ok || c.Winner < 0 {
			continue
		}
		n++
		best[c.Winner]++
		if c.Clear() {
			clear[c.Winner]++
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for i, a := range PracticeArms {
		if best[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s on %d (%d clearly)", a.Noun, best[i], clear[i]))
		}
	}
	return fmt.Sprintf("At the reference budget the lowest mean test RMSE of %d data sets is that of %s; \"clearly\" counts the data sets where the 95 %% interval of its advantage over the runner-up excludes none.", n, strings.Join(parts, ", "))
}

// WritePractice writes the practitioner's section, when Table 1 has
// results.
func WritePractice(b *strings.Builder, res *report.Results) {
	rows := Practice(res)
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Which to use: Table 1's arms from a trained network at equal budget\n\n")
	fmt.Fprintf(b, "Table 1's arms that start from a trained network, read at the reference budget (%s: the SVGD reference protocol's gradient evaluations), "+
		"each cell's snapshot chosen on development rows as in Table 1. Best mean in bold; the last column of each metric gives the best arm's paired "+
		"advantage over the runner-up over the splits both ran, with its 95 %% paired-t interval (RMSE as the runner-up's over the best's, test LL as "+
		"the difference). The arms read one shared trained network per split (the ensemble's first member is that network), so the differences are the methods'.\n\n", PracticeLevel)
	if s := PracticeSentence(rows); s != "" {
		b.WriteString(s + "\n\n")
	}
	b.WriteString(PracticeMarkdown(rows))
	b.WriteString("\n")
}
