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
	n := &cellCounts{total: len(cells)}
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return nil, err
		}
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
	return n, nil
}

func statusCmd(args []string) error {
	cmd := newCellCmd(cellSpec{
		name: "status",
		usage: []string{
			"usage: repro status FILE... [--profile quick|full] [--results DIR] [-v]",
			"\nCounts the cells done, running (a live process holds the cell's running",
			"marker, on any machine sharing the results directory), failed, pending",
			"(never run, stale or interrupted) and skipped (data missing).",
		},
	})
	verbose := cmd.fs.Bool("v", false, "also list the running and failed cells")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	r := cmd.runner(harness.Options{})
	n, err := countCells(r, cells)
	if err != nil {
		return err
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
