package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// ruleGrids returns the grids of tuning experiment id under its declared
// choice rules (harness.Choose): per rule, dataset and method kind, the
// configurations with their per-split values and the one the rule
// chooses.
func ruleGrids(res *Results, id string, rules []harness.Choose) []TuningGrid {
	cells := Done(res.Experiment(id))
	names, kinds := MethodOrder(cells)
	var kindOrder []string
	for _, m := range names {
		if !slices.Contains(kindOrder, kinds[m]) {
			kindOrder = append(kindOrder, kinds[m])
		}
	}
	var out []TuningGrid
	for i := range rules {
		r := &rules[i]
		keys := append([]string{r.Metric}, r.Then...)
		if !slices.Contains(keys, harness.ChooseGradEvals) {
			keys = append(keys, harness.ChooseGradEvals)
		}
		var grids []TuningGrid
		for _, ds := range Datasets(cells) {
			groups := ByMethod(cells, ds)
			for _, k := range kindOrder {
				g := TuningGrid{Dataset: ds, Label: DatasetLabel(cells, ds), Kind: k, Chosen: -1, Metric: r.Metric, Rule: r}
				var settings []map[string]string
				for _, m := range names {
					if kinds[m] != k || len(groups[m]) == 0 || !ruleReads(r, m, k) {
						continue
					}
					for _, unit := range ruleUnits(r, groups[m]) {
						tc := TuningConfig{Method: m, N: unit.n, Stats: map[string]Stat{}, Split: map[string]map[int]float64{}}
						for _, key := range keys {
							tc.Split[key] = ruleValues(r, unit.cells, key)
						}
						g.Configs = append(g.Configs, tc)
						settings = append(settings, flatSettings(unit.cells[0].Prov.Settings))
					}
				}
				if len(g.Configs) == 0 {
					continue
				}
				for _, c := range g.Configs {
					for sp := range c.Split[r.Metric] {
						if !slices.Contains(g.Splits, sp) {
							g.Splits = append(g.Splits, sp)
						}
					}
				}
				sort.Ints(g.Splits)
				for i := range g.Configs {
					c := &g.Configs[i]
					for _, key := range keys {
						var s Stat
						for _, sp := range g.Splits {
							if v, ok := c.Split[key][sp]; ok {
								s.Values = append(s.Values, v)
							}
						}
						if len(s.Values) == len(g.Splits) {
							s.Mean, s.SD = MeanSD(s.Values)
							c.Stats[key] = s
						}
					}
				}
				differing(g.Configs, settings)
				g.settings = settings
				g.fileOrder = res.Declared[id].Methods
				if r.Across == "" {
					g.applyRule(res)
				}
				grids = append(grids, g)
			}
		}
		if r.Across == "" {
			out = append(out, grids...)
			continue
		}
		out = append(out, acrossGrids(res, id, r, grids, kindOrder)...)
	}
	return out
}

// ruleReads reports whether rule r reads method m of kind k.
func ruleReads(r *harness.Choose, m, k string) bool {
	switch {
	case len(r.Kinds) > 0:
		return slices.Contains(r.Kinds, k)
	case len(r.Methods) > 0:
		return slices.Contains(r.Methods, m)
	}
	return true
}

// ruleUnit is one configuration of a rule: the cells it reads and its
// particle count (0 when its cells' counts are aggregated).
type ruleUnit struct {
	n     int
	cells []*Cell
}

// ruleUnits splits one method's cells into the configurations of rule r:
// with r.N, the cells with N particles, else those of the smallest larger
// count of a greedy method (read at step N); with cells = "geomean", all
// of them; else one configuration per particle count.
func ruleUnits(r *harness.Choose, cells []*Cell) []ruleUnit {
	ns, atN := byN(cells)
	switch {
	case r.N > 0:
		if g, ok := atN[r.N]; ok {
			return []ruleUnit{{r.N, g}}
		}
		for _, n := range ns {
			if n > r.N && atN[n][0].Traits.OneParticlePerStep {
				return []ruleUnit{{r.N, atN[n]}}
			}
		}
		return nil
	case r.Cells == "geomean":
		return []ruleUnit{{0, cells}}
	}
	var out []ruleUnit
	for _, n := range ns {
		out = append(out, ruleUnit{n, atN[n]})
	}
	return out
}

// ruleRow is the row of metric in cell c at the snapshot rule r reads:
// the final one, or the one at step r.N of a larger greedy cell.
func ruleRow(r *harness.Choose, c *Cell, metric string) (Row, bool) {
	if r.N == 0 || c.Prov.N == r.N {
		return c.Final(metric)
	}
	for _, row := range c.Metric(metric) {
		if row.Step == r.N {
			return row, true
		}
	}
	return Row{}, false
}

// ruleValues are the values of key on each split of a configuration's
// cells: r.Metric aggregated as r.Cells says (geometric mean), another
// metric the arithmetic mean of the cells, the gradient evaluations (at
// the snapshot of r.Metric) their sum. A split where a cell lacks the
// value, or a geometric mean meets a non-positive one, has none.
func ruleValues(r *harness.Choose, cells []*Cell, key string) map[int]float64 {
	bySplit := map[int][]float64{}
	missing := map[int]bool{}
	for _, c := range cells {
		sp := c.Prov.Split
		var v float64
		if key == harness.ChooseGradEvals {
			row, ok := ruleRow(r, c, r.Metric)
			if !ok {
				missing[sp] = true
				continue
			}
			v = float64(row.GradEvals)
		} else {
			row, ok := ruleRow(r, c, key)
			if !ok || !Finite(row.Value) {
				missing[sp] = true
				continue
			}
			v = row.Value
		}
		bySplit[sp] = append(bySplit[sp], v)
	}
	out := map[int]float64{}
	for sp, vs := range bySplit {
		if missing[sp] {
			continue
		}
		switch {
		case key == harness.ChooseGradEvals:
			s := 0.0
			for _, v := range vs {
				s += v
			}
			out[sp] = s
		case key == r.Metric && r.Cells == "geomean":
			s := 0.0
			for _, v := range vs {
				if v <= 0 {
					s = math.NaN()
					break
				}
				s += math.Log(v)
			}
			if !math.IsNaN(s) {
				out[sp] = math.Exp(s / float64(len(vs)))
			}
		default:
			m, _ := MeanSD(vs)
			out[sp] = m
		}
	}
	return out
}

// applyRule sets g.Chosen and g.Reason by g.Rule: the best mean of the
// rule's metric, ties within the tolerance broken by the rule's Then in
// order, then by legend order (file order under ties = "file-order"). A metric without a registered meaning
// leaves g unranked.
func (g *TuningGrid) applyRule(res *Results) {
	r := g.Rule
	mm, err := res.Meaning(r.Metric)
	if err != nil {
		g.Unranked = err.Error()
		return
	}
	score := func(v float64) float64 {
		if mm.Better == harness.NearerBetter {
			return math.Abs(v - mm.Ideal)
		}
		return v
	}
	best := -1
	for i, c := range g.Configs {
		s, ok := c.Stats[r.Metric]
		if !ok || !Finite(s.Mean) {
			continue
		}
		if best < 0 || mm.Beats(s.Mean, g.Configs[best].Stats[r.Metric].Mean) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	b := g.Configs[best].Stats[r.Metric].Mean
	tol := r.TieAbsolute
	if r.TieRelative > 0 {
		tol = r.TieRelative * math.Abs(score(b))
	}
	var tied []int
	for i, c := range g.Configs {
		s, ok := c.Stats[r.Metric]
		if !ok || !Finite(s.Mean) {
			continue
		}
		if d := math.Abs(score(s.Mean) - score(b)); d == 0 || d < tol {
			tied = append(tied, i)
		}
	}
	if len(tied) > 1 {
		var steps []string
		steps = append(steps, fmt.Sprintf("tied within %s of the best mean %s: %s", tolText(r), r.Metric, g.configNames(tied)))
		for _, key := range r.Then {
			if len(tied) == 1 {
				break
			}
			beats, what := func(a, b float64) bool { return a < b }, "fewer "+key
			if key != harness.ChooseGradEvals {
				km, err := res.Meaning(key)
				if err != nil {
					g.Unranked = fmt.Sprintf("tie-break %s", err)
					return
				}
				beats, what = km.Beats, "better mean "+key
			}
			var kept []int
			for _, i := range tied {
				s, ok := g.Configs[i].Stats[key]
				if !ok || !Finite(s.Mean) {
					continue
				}
				if len(kept) > 0 && beats(s.Mean, g.Configs[kept[0]].Stats[key].Mean) {
					kept = kept[:0]
				}
				if len(kept) == 0 || !beats(g.Configs[kept[0]].Stats[key].Mean, s.Mean) {
					kept = append(kept, i)
				}
			}
			if len(kept) == 0 {
				break
			}
			if len(kept) < len(tied) {
				steps = append(steps, what+" keeps "+g.configNames(kept))
			} else {
				steps = append(steps, what+" keeps all")
			}
			tied = kept
		}
		if len(tied) > 1 && r.Ties == harness.ChooseFileOrder {
			pos := func(i int) int {
				if k := slices.Index(g.fileOrder, g.Configs[i].Method); k >= 0 {
					return k
				}
				return len(g.fileOrder)
			}
			sort.SliceStable(tied, func(a, b int) bool { return pos(tied[a]) < pos(tied[b]) })
			steps = append(steps, "the first listed in the file")
		} else if len(tied) > 1 {
			steps = append(steps, "the first in legend order")
		}
		g.Reason = strings.Join(steps, "; ")
	}
	g.Chosen = tied[0]
}

// configNames lists configurations idx of g by name (with N where the
// configurations differ in it).
func (g *TuningGrid) configNames(idx []int) string {
	var s []string
	for _, i := range idx {
		s = append(s, g.Configs[i].Name())
	}
	return strings.Join(s, ", ")
}

// tolText states rule r's tie tolerance.
func tolText(r *harness.Choose) string {
	if r.TieRelative > 0 {
		return fmt.Sprintf("%g %%", 100*r.TieRelative)
	}
	return fmt.Sprintf("%g", r.TieAbsolute)
}

// ruleText states rule r in a sentence.
func ruleText(r *harness.Choose, metric string, splits []int) string {
	var sp []string
	for _, s := range splits {
		sp = append(sp, fmt.Sprint(s))
	}
	at := "the final snapshot"
	if r.N > 0 {
		at = fmt.Sprintf("n = %d (the cell with %d particles, else the snapshot at %d of a greedy run)", r.N, r.N, r.N)
	}
	agg := ""
	if r.Cells == "geomean" {
		agg = ", a split's value the geometric mean over the method's particle counts"
	}
	tie := ""
	if r.TieRelative > 0 || r.TieAbsolute > 0 {
		tie = fmt.Sprintf("; a mean within %s of the best is a tie", tolText(r))
	}
	var then []string
	for _, t := range r.Then {
		if t == harness.ChooseGradEvals {
			then = append(then, "fewer gradient evaluations")
		} else {
			then = append(then, "the better mean "+t)
		}
	}
	if r.Ties == harness.ChooseFileOrder {
		then = append(then, "the first listed in the file")
	} else {
		then = append(then, "the first in legend order")
	}
	over := "splits"
	if len(sp) == 1 {
		over = "split"
	}
	return fmt.Sprintf("best mean %s at %s%s, mean over %s %s%s; ties go to %s", metric, at, agg, over, strings.Join(sp, ", "), tie, strings.Join(then, ", then "))
}
