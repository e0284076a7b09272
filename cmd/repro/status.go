package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/mmdfw/mmdfw/internal/harness"
)

func init() {
	register(&command{
		name:    "status",
		summary: "count the cells of experiment files done, running, failed, pending and skipped",
		run:     statusCmd,
	})
}

// cellCounts are the states repro status counts. Running takes precedence:
// a failed or stale cell being recomputed is running.
type cellCounts struct {
	total, done, running, failed, pending, skipped int
	stale, interrupted                             int // parts of pending
	running1, failed1                              []string
}

func (n *cellCounts) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cells: %d done, %d running, %d failed, %d pending", n.total, n.done, n.running, n.failed, n.pending)
	var parts []string
	if n.stale > 0 {
		parts = append(parts, fmt.Sprintf("%d stale", n.stale))
	}
	if n.interrupted > 0 {
		parts = append(parts, fmt.Sprintf("%d interrupted", n.interrupted))
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	fmt.Fprintf(&b, ", %d skipped", n.skipped)
	return b.String()
}

// countCells reads the state of every cell from the results directory.
func countCells(r *harness.Runner, cells []*harness.Cell) (*cellCounts, error) {
	sts, err := cellStates(r, cells)
	if err != nil {
		return nil, err
	}
	return countStates(r, sts), nil
}

// cellStates reads the state of every cell from the results directory.
func cellStates(r *harness.Runner, cells []*harness.Cell) ([]harness.CellStatus, error) {
	var sts []harness.CellStatus
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return nil, err
		}
		sts = append(sts, st)
	}
	return sts, nil
}

// countStates counts the states sts.
func countStates(r *harness.Runner, sts []harness.CellStatus) *cellCounts {
	n := &cellCounts{total: len(sts)}
	for _, st := range sts {
		c := st.Cell
		if r.Running(c) {
			n.running++
			n.running1 = append(n.running1, c.ID)
			continue
		}
		switch st.Status {
		case harness.Done:
			n.done++
		case harness.Skipped:
			n.skipped++
		case harness.Failed:
			n.failed++
			n.failed1 = append(n.failed1, c.ID+": "+firstLine(st.Prov.Error))
		default:
			n.pending++
			if st.Status == harness.Stale {
				n.stale++
			}
			if _, err := os.Stat(r.MarkerPath(c)); err == nil {
				n.interrupted++
			}
		}
	}
	return n
}

// countsJSON is cellCounts in the JSON of repro status.
type countsJSON struct {
	Total       int `json:"total"`
	Done        int `json:"done"`
	Running     int `json:"running"`
	Failed      int `json:"failed"`
	Pending     int `json:"pending"`
	Stale       int `json:"stale"`
	Interrupted int `json:"interrupted"`
	Skipped     int `json:"skipped"`
}

func (n *cellCounts) json() countsJSON {
	return countsJSON{n.total, n.done, n.running, n.failed, n.pending, n.stale, n.interrupted, n.skipped}
}

// fileStatusJSON is one experiment file in the JSON of repro status.
type fileStatusJSON struct {
	File       string     `json:"file"`
	Experiment string     `json:"experiment"`
	Profile    string     `json:"profile"`
	Counts     countsJSON `json:"counts"`
	Cells      []cellJSON `json:"cells"`
}

// byFile groups the states by experiment file, in the order of the files.
func byFile(sts []harness.CellStatus) [][]harness.CellStatus {
	var out [][]harness.CellStatus
	at := map[*harness.Experiment]int{}
	for _, st := range sts {
		e := st.Cell.Experiment
		i, ok := at[e]
		if !ok {
			i = len(out)
			at[e] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], st)
	}
	return out
}

func statusCmd(args []string) error {
	cmd := newCellCmd(cellSpec{
		name: "status",
		usage: []string{
			"usage: repro status FILE... [--profile quick|full] [--set KEY=VALUE]... [--results DIR] [-v] [--json]",
			"\nCounts the cells done, running (a live process holds the cell's running",
			"marker, on any machine sharing the results directory), failed, pending",
			"(never run, stale or interrupted) and skipped (data missing): one line per",
			"file, then the total when there are several. With --json, one object per",
			"file with its counts and its cells (as repro list --json), and the total.",
		},
	})
	verbose := cmd.fs.Bool("v", false, "also list the running and failed cells")
	asJSON := cmd.fs.Bool("json", false, "print the counts and cells of every file as JSON")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	r := cmd.runner(harness.Options{})
	sts, err := cellStates(r, cells)
	if err != nil {
		return err
	}
	n := countStates(r, sts)
	groups := byFile(sts)
	if *asJSON {
		out := struct {
			Files []fileStatusJSON `json:"files"`
			Total countsJSON       `json:"total"`
		}{Files: []fileStatusJSON{}, Total: n.json()}
		for _, g := range groups {
			e := g[0].Cell.Experiment
			f := fileStatusJSON{File: e.File, Experiment: e.ID, Profile: e.Profile, Counts: countStates(r, g).json()}
			for _, st := range g {
				f.Cells = append(f.Cells, newCellJSON(r, st))
			}
			out.Files = append(out.Files, f)
		}
		return writeJSON(os.Stdout, out)
	}
	if len(groups) > 1 {
		for _, g := range groups {
			fmt.Printf("%s: %v\n", g[0].Cell.Experiment.File, countStates(r, g))
		}
		fmt.Print("total: ")
	}
	fmt.Println(n)
	if *verbose {
		for _, id := range n.running1 {
			fmt.Println("  running: " + id)
		}
		for _, f := range n.failed1 {
			fmt.Println("  failed:  " + f)
		}
	}
	return nil
}
