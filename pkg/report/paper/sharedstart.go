package paper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// SharedStart is what one experiment's results show of its shared start
// artefacts: the cells that record the start artefact they read (a
// method summary's "start_artefact", or its first training's for a deep
// ensemble), grouped by dataset and split.
type SharedStart struct {
	// Experiment is the experiment's id; Methods the methods whose cells
	// read a start artefact, sorted.
	Experiment string
	Methods    []string
	// Splits counts the (dataset, split) pairs with at least two such
	// cells, Shared those on which every such cell read the same artefact;
	// Differ names the others.
	Splits, Shared int
	Differ         []string
	// First counts the pairs on which an MMD-FW cell and the start
	// baseline of the same artefact both have a first snapshot, and
	// FirstEqual those on which the two first snapshots have the same
	// value of every metric at the same gradient evaluations; FirstDiffer
	// names the others.
	First, FirstEqual int
	FirstDiffer       []string
	// StartGrads and StartSeconds are the mean over the pairs of the
	// start's own cost (member 0's training, "train_grad_evals" and
	// "train_seconds" of the summaries), charged alike to every arm that
	// reads it; NaN when no summary records it.
	StartGrads, StartSeconds float64
}

// startArtefact returns the start artefact a cell read, "" for none.
func startArtefact(c *report.Cell) string {
	m, _ := c.Summary["method"].(map[string]any)
	if k, ok := m["start_artefact"].(string); ok {
		return k
	}
	if tr, ok := m["trainings"].([]any); ok && len(tr) > 0 {
		if first, ok := tr[0].(map[string]any); ok {
			k, _ := first["start_artefact"].(string)
			return k
		}
	}
	return ""
}

// firstRows returns a cell's rows at its first step.
func firstRows(c *report.Cell) []report.Row {
	if len(c.Rows) == 0 {
		return nil
	}
	step := c.Rows[0].Step
	var out []report.Row
	for _, r := range c.Rows {
		if r.Step == step {
			out = append(out, r)
		}
	}
	return out
}

// sameFirst reports whether two first snapshots agree: the same metrics,
// each with the same value at the same gradient evaluations.
func sameFirst(a, b []report.Row) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	vb := map[string]report.Row{}
	for _, r := range b {
		vb[r.Metric] = r
	}
	for _, r := range a {
		s, ok := vb[r.Metric]
		if !ok || s.Value != r.Value || s.GradEvals != r.GradEvals {
			return false
		}
	}
	return true
}

// SharedStarts returns, per experiment with cells that read a start
// artefact, whether the arms from one start read one artefact on each
// dataset and split, and whether MMD-FW's first snapshot is the start
// baseline's answer.
func SharedStarts(res *report.Results) []SharedStart {
	var out []SharedStart
	var ids []string
	for _, c := range res.Cells {
		if !slices.Contains(ids, c.Prov.Experiment) {
			ids = append(ids, c.Prov.Experiment)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		type group struct {
			keys        map[string]bool
			n           int
			fw          *report.Cell
			start       *report.Cell
			grads, secs float64
			costed      bool
		}
		groups := map[string]*group{}
		methods := map[string]bool{}
		for _, c := range report.Done(res.Experiment(id)) {
			k := startArtefact(c)
			if k == "" {
				continue
			}
			methods[c.Prov.Method] = true
			g := fmt.Sprintf("%s split %d", c.Prov.Dataset, c.Prov.Split)
			if groups[g] == nil {
				groups[g] = &group{keys: map[string]bool{}}
			}
			gr := groups[g]
			gr.keys[k] = true
			gr.n++
			m, _ := c.Summary["method"].(map[string]any)
			if g, ok := m["train_grad_evals"].(float64); ok && !gr.costed {
				sec, _ := m["train_seconds"].(float64)
				gr.grads, gr.secs, gr.costed = g, sec, true
			}
			switch {
			case IsMMDFW(c.Prov.Kind):
				gr.fw = c
			case c.Prov.Kind == "start" && m["start"] == "trained":
				gr.start = c
			}
		}
		if len(groups) == 0 {
			continue
		}
		s := SharedStart{Experiment: id, StartGrads: math.NaN(), StartSeconds: math.NaN()}
		var grads, secs []float64
		for m := range methods {
			s.Methods = append(s.Methods, m)
		}
		slices.Sort(s.Methods)
		names := make([]string, 0, len(groups))
		for g := range groups {
			names = append(names, g)
		}
		slices.Sort(names)
		for _, g := range names {
			gr := groups[g]
			if gr.n < 2 {
				continue
			}
			s.Splits++
			if gr.costed {
				grads, secs = append(grads, gr.grads), append(secs, gr.secs)
			}
			if len(gr.keys) == 1 {
				s.Shared++
			} else {
				s.Differ = append(s.Differ, g)
			}
			if gr.fw != nil && gr.start != nil {
				s.First++
				if sameFirst(firstRows(gr.fw), firstRows(gr.start)) {
					s.FirstEqual++
				} else {
					s.FirstDiffer = append(s.FirstDiffer, g)
				}
			}
		}
		if len(grads) > 0 {
			s.StartGrads, _ = report.MeanSD(grads)
			s.StartSeconds, _ = report.MeanSD(secs)
		}
		if s.Splits > 0 {
			out = append(out, s)
		}
	}
	return out
}

// WriteSharedStarts writes one paragraph per experiment of SharedStarts.
func WriteSharedStarts(b *strings.Builder, res *report.Results) {
	ss := SharedStarts(res)
	if len(ss) == 0 {
		return
	}
	b.WriteString("**Shared starts.** A trained network is computed once per dataset, split and member, and every arm that starts there reads it and is charged its recorded cost. ")
	for _, s := range ss {
		fmt.Fprintf(b, "%s: on %d of %d dataset splits the arms %s read one start artefact", s.Experiment, s.Shared, s.Splits, strings.Join(s.Methods, ", "))
		if len(s.Differ) > 0 {
			fmt.Fprintf(b, " (not on %s)", strings.Join(s.Differ, ", "))
		}
		if report.Finite(s.StartGrads) {
			fmt.Fprintf(b, "; each is charged the network's training, on average %.3g gradient evaluations and %.3g s per split (train_grad_evals and train_seconds in every cell's summary)", s.StartGrads, s.StartSeconds)
		}
		if s.First > 0 {
			fmt.Fprintf(b, "; MMD-FW's first snapshot is the network alone (same metrics at the same gradient evaluations) on %d of %d", s.FirstEqual, s.First)
			if len(s.FirstDiffer) > 0 {
				fmt.Fprintf(b, " (not on %s)", strings.Join(s.FirstDiffer, ", "))
			}
		}
		b.WriteString(". ")
	}
	b.WriteString("\n\n")
}
