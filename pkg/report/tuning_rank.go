package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// AcrossChoice is how a rule with across = "datasets" (harness.Choose)
// chooses, for one method kind, the configuration that serves every
// dataset. Slices indexed by i follow the grid's Configs; by j, Groups.
type AcrossChoice struct {
	// Datasets and Labels are the datasets the configurations ran on.
	Datasets, Labels []string
	// Value[i][ds] is configuration i's mean over the splits of the
	// rule's metric on dataset ds (absent when a split lacks it).
	Value []map[string]float64
	// Group[i] is configuration i's start under per = "start" (its
	// recorded setting start, else init, else "default"), or "".
	Group []string
	// Groups are the distinct Group values in order of first appearance.
	Groups []string
	// Rank[i][ds] is configuration i's rank on ds among the configurations
	// of its group (1 the best; equal values share the mean of their
	// places), on the datasets where every one of them has a value;
	// MeanRank[i] is the mean over those datasets (NaN when there is none).
	Rank     []map[string]float64
	MeanRank []float64
	// PerGroup[j] indexes the grid's Configs: the choice among the
	// configurations of Groups[j] (smallest mean rank), -1 when none is
	// ranked; PerReason[j] says how a tie was broken ("" when none).
	PerGroup  []int
	PerReason []string
	// FinalRank[j][ds] and FinalMean[j] rank PerGroup[j] among the
	// per-group choices the same way (per = "start" only; nil otherwise).
	FinalRank []map[string]float64
	FinalMean []float64
}

// startGroup is a configuration's start for per = "start": its recorded
// setting start, else init, else "default" (the kind's own).
func startGroup(settings map[string]string) string {
	for _, k := range []string{"start", "init"} {
		if v, ok := settings[k]; ok {
			return strings.Trim(v, `"`)
		}
	}
	return "default"
}

// acrossGrids turns the per-dataset grids of rule r (without choices) into
// one grid per kind of kindOrder, its configurations in the order ties go
// by (file order under ties = "file-order", else legend order), chosen by
// the mean rank over the datasets.
func acrossGrids(res *Results, id string, r *harness.Choose, perDS []TuningGrid, kindOrder []string) []TuningGrid {
	legend, _ := MethodOrder(Done(res.Experiment(id)))
	order := legend
	if r.Ties == harness.ChooseFileOrder && len(res.Declared[id].Methods) > 0 {
		order = res.Declared[id].Methods
	}
	pos := func(m string) int {
		if i := slices.Index(order, m); i >= 0 {
			return i
		}
		return len(order)
	}
	var out []TuningGrid
	for _, k := range kindOrder {
		g := TuningGrid{Kind: k, Chosen: -1, Metric: r.Metric, Rule: r, Across: &AcrossChoice{}}
		a := g.Across
		type key struct {
			m string
			n int
		}
		var keys []key
		settings := map[key]map[string]string{}
		values := map[key]map[string]float64{}
		for _, dg := range perDS {
			if dg.Kind != k {
				continue
			}
			if !slices.Contains(a.Datasets, dg.Dataset) {
				a.Datasets = append(a.Datasets, dg.Dataset)
				a.Labels = append(a.Labels, dg.Label)
			}
			for _, sp := range dg.Splits {
				if !slices.Contains(g.Splits, sp) {
					g.Splits = append(g.Splits, sp)
				}
			}
			for i, c := range dg.Configs {
				kk := key{c.Method, c.N}
				if _, ok := values[kk]; !ok {
					keys = append(keys, kk)
					values[kk] = map[string]float64{}
					settings[kk] = dg.settings[i]
				}
				if s, ok := c.Stats[r.Metric]; ok && Finite(s.Mean) {
					values[kk][dg.Dataset] = s.Mean
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		sort.Ints(g.Splits)
		sort.SliceStable(keys, func(i, j int) bool {
			if pi, pj := pos(keys[i].m), pos(keys[j].m); pi != pj {
				return pi < pj
			}
			return keys[i].n < keys[j].n
		})
		var flat []map[string]string
		for _, kk := range keys {
			g.Configs = append(g.Configs, TuningConfig{Method: kk.m, N: kk.n, Stats: map[string]Stat{}})
			flat = append(flat, settings[kk])
			a.Value = append(a.Value, values[kk])
			grp := ""
			if r.Per == harness.ChoosePerStart {
				grp = startGroup(settings[kk])
			}
			a.Group = append(a.Group, grp)
			if !slices.Contains(a.Groups, grp) {
				a.Groups = append(a.Groups, grp)
			}
		}
		differing(g.Configs, flat)
		g.settings = flat
		g.chooseAcross(res)
		out = append(out, g)
	}
	return out
}

// chooseAcross ranks g's configurations within their groups on every
// dataset, chooses per group the smallest mean rank (the first in the
// grid's order of equals), and, with several groups, chooses between the
// groups' choices the same way.
func (g *TuningGrid) chooseAcross(res *Results) {
	a, r := g.Across, g.Rule
	mm, err := res.Meaning(r.Metric)
	if err != nil {
		g.Unranked = err.Error()
		return
	}
	n := len(g.Configs)
	a.Rank = make([]map[string]float64, n)
	a.MeanRank = make([]float64, n)
	for i := range a.MeanRank {
		a.MeanRank[i] = math.NaN()
	}
	order := "the first in legend order"
	if r.Ties == harness.ChooseFileOrder {
		order = "the first listed in the file"
	}
	for _, grp := range a.Groups {
		var idx []int
		for i := range g.Configs {
			if a.Group[i] == grp {
				idx = append(idx, i)
			}
		}
		ranks, means := meanRanks(idx, a.Datasets, a.Value, mm)
		for k, i := range idx {
			a.Rank[i], a.MeanRank[i] = ranks[k], means[k]
		}
		best, reason := smallestMean(g, idx, means, order)
		a.PerGroup = append(a.PerGroup, best)
		a.PerReason = append(a.PerReason, reason)
	}
	if r.Per == "" {
		g.Chosen, g.Reason = a.PerGroup[0], a.PerReason[0]
		return
	}
	var idx []int
	for _, i := range a.PerGroup {
		if i >= 0 {
			idx = append(idx, i)
		}
	}
	ranks, means := meanRanks(idx, a.Datasets, a.Value, mm)
	a.FinalRank = make([]map[string]float64, len(a.Groups))
	a.FinalMean = make([]float64, len(a.Groups))
	for j, i := range a.PerGroup {
		a.FinalMean[j] = math.NaN()
		if k := slices.Index(idx, i); i >= 0 && k >= 0 {
			a.FinalRank[j], a.FinalMean[j] = ranks[k], means[k]
		}
	}
	g.Chosen, g.Reason = smallestMean(g, idx, means, order)
}

// meanRanks ranks the configurations idx on each dataset where all of them
// have a value (1 the best in the direction of mm; equal values share the
// mean of their places) and returns each one's ranks and their mean (NaN
// when no dataset ranks them).
func meanRanks(idx []int, datasets []string, value []map[string]float64, mm harness.MetricMeaning) ([]map[string]float64, []float64) {
	ranks := make([]map[string]float64, len(idx))
	means := make([]float64, len(idx))
	for k := range idx {
		ranks[k] = map[string]float64{}
	}
	for _, ds := range datasets {
		all := true
		for _, i := range idx {
			_, ok := value[i][ds]
			all = all && ok
		}
		if !all {
			continue
		}
		for k, i := range idx {
			v, rank := value[i][ds], 1.0
			for _, j := range idx {
				switch w := value[j][ds]; {
				case j == i:
				case mm.Beats(w, v):
					rank++
				case !mm.Beats(v, w):
					rank += 0.5
				}
			}
			ranks[k][ds] = rank
		}
	}
	for k := range idx {
		means[k] = math.NaN()
		if len(ranks[k]) == 0 {
			continue
		}
		s := 0.0
		for _, v := range ranks[k] {
			s += v
		}
		means[k] = s / float64(len(ranks[k]))
	}
	return ranks, means
}

// smallestMean returns the configuration of idx (in g's order) with the
// smallest mean rank, the first of equals, and how a tie was broken.
func smallestMean(g *TuningGrid, idx []int, means []float64, order string) (int, string) {
	best := -1
	for k := range idx {
		if !math.IsNaN(means[k]) && (best < 0 || means[k] < means[best]) {
			best = k
		}
	}
	if best < 0 {
		return -1, ""
	}
	var tied []int
	for k, i := range idx {
		if means[k] == means[best] {
			tied = append(tied, i)
		}
	}
	if len(tied) == 1 {
		return idx[best], ""
	}
	return idx[best], fmt.Sprintf("mean rank %.4g tied between %s; %s", means[best], g.configNames(tied), order)
}

// writeAcrossGrid writes the tables of a grid chosen by a rule with
// across = "datasets": per configuration its rank (and mean value) on each
// dataset, its mean rank, its start's choice and the final choice; with
// per = "start", the per-start choices ranked against each other.
func writeAcrossGrid(b *strings.Builder, g TuningGrid) {
	r, a := g.Rule, g.Across
	fmt.Fprintf(b, "**Kind %s, rule %s** (%d configurations, one chosen for all %d datasets): %s.\n\n", g.Kind, r.Name, len(g.Configs), len(a.Datasets), acrossText(r, g.Metric, g.Splits))
	per := r.Per == harness.ChoosePerStart
	b.WriteString("| configuration | settings that differ |")
	if per {
		b.WriteString(" start |")
	}
	for _, l := range a.Labels {
		fmt.Fprintf(b, " %s |", l)
	}
	b.WriteString(" mean rank |")
	cols := 2 + len(a.Labels) + 1
	if per {
		b.WriteString(" chosen for its start |")
		cols += 2
	}
	b.WriteString(" chosen |\n|" + strings.Repeat("---|", cols+1) + "\n")
	cell := func(rank map[string]float64, value map[string]float64, ds string) string {
		v, ok := value[ds]
		if !ok {
			return "–"
		}
		if rk, ok := rank[ds]; ok {
			return fmt.Sprintf("%g (%.4g)", rk, v)
		}
		return fmt.Sprintf("– (%.4g)", v)
	}
	mean := func(m float64) string {
		if math.IsNaN(m) {
			return "–"
		}
		return fmt.Sprintf("%.3f", m)
	}
	for i, c := range g.Configs {
		d := strings.Join(c.Differs, ", ")
		if d == "" {
			d = "–"
		}
		fmt.Fprintf(b, "| %s | %s |", c.Name(), d)
		if per {
			fmt.Fprintf(b, " %s |", a.Group[i])
		}
		for _, ds := range a.Datasets {
			var rank map[string]float64
			if a.Rank != nil {
				rank = a.Rank[i]
			}
			fmt.Fprintf(b, " %s |", cell(rank, a.Value[i], ds))
		}
		mr := "–"
		if a.MeanRank != nil {
			mr = mean(a.MeanRank[i])
		}
		fmt.Fprintf(b, " %s |", mr)
		if per {
			s := ""
			if slices.Contains(a.PerGroup, i) {
				s = "yes"
			}
			fmt.Fprintf(b, " %s |", s)
		}
		s := ""
		if i == g.Chosen {
			s = "**yes**"
		}
		fmt.Fprintf(b, " %s |\n", s)
	}
	if per && a.FinalMean != nil {
		b.WriteString("\nThe per-start choices, ranked against each other (rank and mean value per dataset):\n\n| start | its choice |")
		for _, l := range a.Labels {
			fmt.Fprintf(b, " %s |", l)
		}
		b.WriteString(" mean rank | chosen |\n|" + strings.Repeat("---|", 2+len(a.Labels)+2) + "\n")
		for j, grp := range a.Groups {
			i := a.PerGroup[j]
			if i < 0 {
				fmt.Fprintf(b, "| %s | none |%s – | |\n", grp, strings.Repeat(" – |", len(a.Labels)))
				continue
			}
			fmt.Fprintf(b, "| %s | %s |", grp, g.Configs[i].Name())
			for _, ds := range a.Datasets {
				fmt.Fprintf(b, " %s |", cell(a.FinalRank[j], a.Value[i], ds))
			}
			s := ""
			if i == g.Chosen {
				s = "**yes**"
			}
			fmt.Fprintf(b, " %s | %s |\n", mean(a.FinalMean[j]), s)
		}
	}
	switch {
	case g.Chosen >= 0:
		c := g.Configs[g.Chosen]
		var notes []string
		if per {
			var ps []string
			for j, grp := range a.Groups {
				name := "none"
				if i := a.PerGroup[j]; i >= 0 {
					name = "`" + g.Configs[i].Name() + "`"
				}
				if a.PerReason[j] != "" {
					name += " (" + a.PerReason[j] + ")"
				}
				ps = append(ps, grp+": "+name)
			}
			notes = append(notes, " Per start: "+strings.Join(ps, "; ")+".")
		}
		if g.Reason != "" {
			notes = append(notes, " Decided by order: "+g.Reason+".")
		}
		fmt.Fprintf(b, "\nChosen by rule %s for every dataset: `%s` (%s).%s\n\n", r.Name, c.Name(), strings.Join(c.Differs, ", "), strings.Join(notes, ""))
	case g.Unranked != "":
		fmt.Fprintf(b, "\nNone chosen: %s.\n\n", g.Unranked)
	default:
		fmt.Fprintf(b, "\nNo dataset has %s for every configuration: none chosen.\n\n", g.Metric)
	}
}

// acrossText states a rule with across = "datasets" in a sentence.
func acrossText(r *harness.Choose, metric string, splits []int) string {
	var sp []string
	for _, s := range splits {
		sp = append(sp, fmt.Sprint(s))
	}
	over := "splits"
	if len(sp) == 1 {
		over = "split"
	}
	at := "the final snapshot"
	if r.N > 0 {
		at = fmt.Sprintf("n = %d", r.N)
	}
	agg := ""
	if r.Cells == "geomean" {
		agg = " (geometric mean over the method's particle counts)"
	}
	whose := "the configurations"
	if r.Per == harness.ChoosePerStart {
		whose = "the configurations of each start (the recorded setting start, else init)"
	}
	order := "the first in legend order"
	if r.Ties == harness.ChooseFileOrder {
		order = "the first listed in the file"
	}
	s := fmt.Sprintf("each dataset ranks %s by mean %s at %s%s over %s %s (1 the best, equal values sharing their places; a cell gives rank (value)); the smallest mean rank over the datasets wins, ties to %s",
		whose, metric, at, agg, over, strings.Join(sp, ", "), order)
	if r.Per == harness.ChoosePerStart {
		s += "; the per-start choices are then ranked against each other the same way"
	}
	return s
}
