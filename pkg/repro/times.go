package repro

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// refID names a reference sample as the cells' summaries describe it: the
// dataset and split it is of, its kind, draws and chains.
type refID struct {
	Dataset       string
	Split         int
	Kind          string
	Draws, Chains int
}

// cellRefSummary is the part of a cell's summary that times reads: the
// reference it measured against and the seconds its sampler recorded
// (summary.reference.diagnostics.seconds).
type cellRefSummary struct {
	Reference *struct {
		Kind        string `json:"kind"`
		Draws       int    `json:"draws"`
		Chains      int    `json:"chains"`
		Diagnostics struct {
			Seconds *float64 `json:"seconds"`
		} `json:"diagnostics"`
	} `json:"reference"`
}

// cellReference returns the reference p's summary records with its
// seconds, and false when it records none with seconds.
func cellReference(p *Provenance) (refID, float64, bool) {
	if len(p.Summary) == 0 {
		return refID{}, 0, false
	}
	var s cellRefSummary
	if json.Unmarshal(p.Summary, &s) != nil || s.Reference == nil || s.Reference.Diagnostics.Seconds == nil {
		return refID{}, 0, false
	}
	r := s.Reference
	return refID{p.Dataset, p.Split, r.Kind, r.Draws, r.Chains}, *r.Diagnostics.Seconds, true
}

// timeRow is one experiment (or the total) of repro status --times.
type timeRow struct {
	Experiment string
	Cells      int // cells of the file
	Done       int // cells with a done result
	// Method is Σ compute_seconds over the done cells: the methods' own
	// clocks, evaluation excluded.
	Method float64
	// Cell is Σ over the done cells of their own wall: End − Start −
	// WaitSeconds, less the reference's seconds where the cell's wall
	// holds them (the cell that computed the reference).
	Cell float64
	// Longest is the longest own wall of a cell.
	Longest float64
	// Refs are the distinct references the cells measured against, with
	// the largest seconds recorded for each.
	Refs map[refID]float64
	// MaxLoad is the largest 1-minute load average recorded at a cell's
	// start or end; Hosts counts the done cells by CPU model.
	MaxLoad float64
	Hosts   map[string]int
}

// add adds the cell of provenance p (nil: never run) to the row.
func (r *timeRow) add(p *Provenance) {
	r.Cells++
	if p == nil || p.Status != Done {
		return
	}
	r.Done++
	r.Method += p.Seconds
	own := p.End.Sub(p.Start).Seconds() - p.WaitSeconds
	if id, s, ok := cellReference(p); ok {
		if s > r.Refs[id] {
			r.Refs[id] = s
		}
		if own >= s {
			own -= s
		}
	}
	own = math.Max(own, 0)
	r.Cell += own
	r.Longest = math.Max(r.Longest, own)
	if l := p.Load; l != nil {
		r.MaxLoad = math.Max(r.MaxLoad, math.Max(l.Start, l.End))
	}
	r.Hosts[p.Host.CPUModel]++
}

// refSeconds is the sum of the row's reference seconds.
func (r *timeRow) refSeconds() float64 {
	var s float64
	for _, v := range r.Refs {
		s += v
	}
	return s
}

// wall is the projected wall at j job slots: the recorded cell walls and
// reference seconds packed perfectly onto j slots, and no less than the
// longest of them. It is a lower bound of a run at -j j on a machine like
// the ones that recorded them.
func (r *timeRow) wall(j int) float64 {
	w := (r.Cell + r.refSeconds()) / float64(j)
	w = math.Max(w, r.Longest)
	for _, v := range r.Refs {
		w = math.Max(w, v)
	}
	return w
}

func newTimeRow(name string) *timeRow {
	return &timeRow{Experiment: name, Refs: map[refID]float64{}, Hosts: map[string]int{}}
}

// merge adds o's cells to r; a reference both hold counts once, at the
// larger of its seconds.
func (r *timeRow) merge(o *timeRow) {
	r.Cells += o.Cells
	r.Done += o.Done
	r.Method += o.Method
	r.Cell += o.Cell
	r.Longest = math.Max(r.Longest, o.Longest)
	r.MaxLoad = math.Max(r.MaxLoad, o.MaxLoad)
	for id, s := range o.Refs {
		if s > r.Refs[id] {
			r.Refs[id] = s
		}
	}
	for h, n := range o.Hosts {
		r.Hosts[h] += n
	}
}

// timeRows sums the recorded times of each experiment (one row per group
// of cells, provs[i] being the provenance of groups' i-th cell in order,
// nil where there is none) and of all of them.
func timeRows(groups [][]*Cell, provs []*Provenance) (rows []*timeRow, total *timeRow) {
	total = newTimeRow("total")
	i := 0
	for _, g := range groups {
		r := newTimeRow(g[0].Experiment.ID)
		for range g {
			r.add(provs[i])
			i++
		}
		rows = append(rows, r)
		total.merge(r)
	}
	return rows, total
}

// writeTimes writes the rows and their total as a Markdown table, the
// walls projected at j job slots, then the CPU models of the done cells.
func writeTimes(w io.Writer, rows []*timeRow, total *timeRow, j int) {
	fmt.Fprintf(w, "| experiment | cells | done | method s | cell s | references | reference s | wall at -j %d | max load |\n", j)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	line := func(r *timeRow, bold bool) {
		name := r.Experiment
		if bold {
			name = "**" + name + "**"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.0f | %.0f | %d | %.0f | %s | %.1f |\n",
			name, r.Cells, r.Done, r.Method, r.Cell, len(r.Refs), r.refSeconds(), hms(r.wall(j)), r.MaxLoad)
	}
	for _, r := range rows {
		line(r, false)
	}
	if len(rows) > 1 {
		line(total, true)
	}
	hosts := make([]string, 0, len(total.Hosts))
	for h := range total.Hosts {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for i, h := range hosts {
		if h == "" {
			h = "unrecorded"
		}
		hosts[i] = fmt.Sprintf("%s (%d cells)", h, total.Hosts[hosts[i]])
	}
	fmt.Fprintf(w, "\nCPU models of the done cells: %s.\n", strings.Join(hosts, ", "))
}

// hms writes s seconds as 1 h 02 min, 12 min 05 s or 42 s.
func hms(s float64) string {
	n := int(math.Round(s))
	switch {
	case n >= 3600:
		m := (n + 30) / 60
		return fmt.Sprintf("%d h %02d min", m/60, m%60)
	case n >= 60:
		return fmt.Sprintf("%d min %02d s", n/60, n%60)
	}
	return fmt.Sprintf("%d s", n)
}
