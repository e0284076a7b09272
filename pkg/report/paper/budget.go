package paper

import (
	"math"
	"sort"
	"strconv"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// RunBudgetMultiple is how many reference budgets a Table 1 cell's run
// budget (budget.grad_evals) holds: the run goes to 4× the compute of the
// SVGD reference protocol, 20 particles × 2,000 iterations × 100 rows =
// 4·10⁶ per-datapoint gradient evaluations, and the table reads its
// snapshots at ¼×, 1× and 4× that reference.
const RunBudgetMultiple = 4

// BudgetLevel is one budget of Table 1, a multiple of the reference budget.
type BudgetLevel struct {
	// Label is the level as the CSV writes it: "0.25x", "1x", "4x".
	Label string
	// Multiple of the reference budget.
	Multiple float64
}

// BudgetLevels are the budgets of Table 1.
var BudgetLevels = []BudgetLevel{{"0.25x", 0.25}, {"1x", 1}, {"4x", 4}}

// selectionMetric is the development metric that chooses a Table 1
// snapshot: the RMSE on the development rows.
const selectionMetric = "dev_rmse"

// budgetPick is the snapshot a cell reports at one budget.
type budgetPick struct {
	values map[string]float64 // metric → value at the snapshot
	ok     bool
}

// pickAtBudget returns the metrics of the snapshot cell c reports at a
// budget of b gradient evaluations: of the snapshots with GradEvals ≤ b,
// the one with the smallest development RMSE (the earliest of equals), or,
// when the cell records no development metric (a baseline with a single
// snapshot), the last of them. No test metric takes part in the choice.
func pickAtBudget(c *report.Cell, b float64) budgetPick {
	snaps := snapshotsOf(c, func(r report.Row) bool { return float64(r.GradEvals) <= b })
	if len(snaps) == 0 {
		return budgetPick{}
	}
	best := -1
	bestV := math.Inf(1)
	for i, sn := range snaps {
		v, ok := sn.vals[selectionMetric]
		if ok && report.Finite(v) && v < bestV {
			best, bestV = i, v
		}
	}
	if best < 0 {
		if report.HasMetric([]*report.Cell{c}, selectionMetric) {
			// Development metrics recorded but none finite within the
			// budget: nothing to select by.
			return budgetPick{}
		}
		best = len(snaps) - 1
	}
	return budgetPick{values: snaps[best].vals, ok: true}
}

// snapshot is one evaluated snapshot of a cell: its cost and every metric
// recorded at it.
type snapshot struct {
	grads int64
	step  int
	secs  float64
	vals  map[string]float64
}

// snapshotsOf groups the rows of c that keep accepts into snapshots, in the
// order the file first names them.
func snapshotsOf(c *report.Cell, keep func(report.Row) bool) []*snapshot {
	type id struct {
		grads int64
		step  int
	}
	at := map[id]*snapshot{}
	var out []*snapshot
	for _, r := range c.Rows {
		if !keep(r) {
			continue
		}
		k := id{r.GradEvals, r.Step}
		sn := at[k]
		if sn == nil {
			sn = &snapshot{grads: r.GradEvals, step: r.Step, secs: r.Seconds, vals: map[string]float64{}}
			at[k] = sn
			out = append(out, sn)
		}
		sn.vals[r.Metric] = r.Value
	}
	return out
}

// budgetStats fills the table's per-budget statistics from the cells
// whose run had a gradient-evaluation budget.
func (t *Table) budgetStats(cells []*report.Cell) {
	for _, c := range cells {
		if g := c.Prov.KeyDoc.Budget.GradEvals; g > 0 {
			t.RunGradEvals = append(t.RunGradEvals, g)
		}
	}
	if len(t.RunGradEvals) == 0 {
		return
	}
	sort.Slice(t.RunGradEvals, func(i, j int) bool { return t.RunGradEvals[i] < t.RunGradEvals[j] })
	t.RunGradEvals = compactInts(t.RunGradEvals)
	t.AtBudget = map[string]map[string]map[string]map[string]report.Stat{}
	for _, lv := range BudgetLevels {
		t.AtBudget[lv.Label] = map[string]map[string]map[string]report.Stat{}
		for _, ds := range t.Datasets {
			g := report.ByMethod(cells, ds)
			m := map[string]map[string]report.Stat{}
			for _, name := range t.Methods {
				cs := report.Done(g[name])
				sort.Slice(cs, func(i, j int) bool { return cs[i].Prov.Split < cs[j].Prov.Split })
				for _, metric := range t.Metrics {
					var s report.Stat
					for _, c := range cs {
						b := budgetOf(c, lv)
						p := pickAtBudget(c, b)
						if v, ok := p.values[metric]; p.ok && ok {
							s.Values = append(s.Values, v)
						}
					}
					if len(s.Values) == 0 {
						continue
					}
					s.Mean, s.SD = report.MeanSD(s.Values)
					if m[name] == nil {
						m[name] = map[string]report.Stat{}
					}
					m[name][metric] = s
				}
			}
			t.AtBudget[lv.Label][ds] = m
		}
	}
}

// budgetOf is the gradient-evaluation budget of level lv for cell c: the
// multiple of its reference budget, its run budget / RunBudgetMultiple. A
// cell without a gradient budget (a baseline kind, which spends none) has
// every snapshot within every budget.
func budgetOf(c *report.Cell, lv BudgetLevel) float64 {
	g := c.Prov.KeyDoc.Budget.GradEvals
	if g <= 0 {
		return math.Inf(1)
	}
	return lv.Multiple * float64(g) / RunBudgetMultiple
}

// BudgetGradEvals is the gradient-evaluation budget of level lv of the
// table (0 when its cells have no gradient budget, or several).
func (t *Table) BudgetGradEvals(lv BudgetLevel) int64 {
	if len(t.RunGradEvals) != 1 {
		return 0
	}
	return int64(math.Round(lv.Multiple * float64(t.RunGradEvals[0]) / RunBudgetMultiple))
}

func compactInts(v []int64) []int64 {
	out := v[:0]
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func fmtInt(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// lastWithin returns the metrics of the last snapshot of c (by gradient
// evaluations, then step) that satisfies keep, with its compute seconds.
func lastWithin(c *report.Cell, keep func(report.Row) bool) (map[string]float64, float64, bool) {
	var last *snapshot
	for _, sn := range snapshotsOf(c, keep) {
		if last == nil || sn.grads > last.grads || (sn.grads == last.grads && sn.step >= last.step) {
			last = sn
		}
	}
	if last == nil {
		return nil, 0, false
	}
	return last.vals, last.secs, true
}
