package harness

import (
	"fmt"
	"os"
	"strings"
)

// Counts are the states of a list of cells as `repro status` reports them.
// Running takes precedence: a failed or stale cell being recomputed is
// running. Stale and Interrupted are parts of Pending.
type Counts struct {
	Total, Done, Running, Failed, Pending, Skipped int
	Stale, Interrupted                             int
	// RunningCells are the ids of the running cells; FailedCells give
	// "id: first line of the error" per failed cell (a cell whose data
	// cannot be read among them), both in cell order.
	RunningCells, FailedCells []string
	// StaleCells give "id: reason" per stale cell not running
	// (CellStatus.StaleReason), in cell order.
	StaleCells []string
}

// String is the one-line summary of repro status.
func (n *Counts) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cells: %d done, %d running, %d failed, %d pending", n.Total, n.Done, n.Running, n.Failed, n.Pending)
	var parts []string
	if n.Stale > 0 {
		parts = append(parts, fmt.Sprintf("%d stale", n.Stale))
	}
	if n.Interrupted > 0 {
		parts = append(parts, fmt.Sprintf("%d interrupted", n.Interrupted))
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	fmt.Fprintf(&b, ", %d skipped", n.Skipped)
	return b.String()
}

// Count reads the state of every cell from the results directory: done,
// skipped or failed as Status finds it, running while a live process holds
// its marker, and otherwise pending, stale or interrupted (an unlocked
// marker left by a killed process).
func (r *Runner) Count(cells []*Cell) (*Counts, error) {
	n := &Counts{Total: len(cells)}
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return nil, err
		}
		if r.Running(c) {
			n.Running++
			n.RunningCells = append(n.RunningCells, c.ID)
			continue
		}
		switch {
		case st.Err != nil:
			n.Failed++
			n.FailedCells = append(n.FailedCells, c.ID+": "+firstLine(st.Err.Error()))
		case st.Status == Done:
			n.Done++
		case st.Status == Skipped:
			n.Skipped++
		case st.Status == Failed:
			n.Failed++
			n.FailedCells = append(n.FailedCells, c.ID+": "+firstLine(st.Prov.Error))
		default:
			n.Pending++
			if st.Status == Stale {
				n.Stale++
				n.StaleCells = append(n.StaleCells, c.ID+": "+st.StaleReason())
			}
			if fi, err := os.Lstat(r.MarkerPath(c)); err == nil && fi.Mode().IsRegular() {
				n.Interrupted++
			}
		}
	}
	return n, nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
