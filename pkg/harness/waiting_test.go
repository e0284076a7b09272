package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitText is one split whose first cell computes a slow reference (30
// steps of 20 ms) while the five others wait for it.
var waitText = strings.NewReplacer(
	"splits = [0, 1]", "splits = [0]",
	"[methods.walk-b]\nkind = \"walk\"", "[methods.walk-b]\nkind = \"walk\"\nparticles = [1, 2, 3, 4]",
	"settings = { steps = 30 }", "settings = { steps = 30, delay_ms = 20 }",
).Replace(refText)

// With cells waiting side by side, the summed waiting exceeds the wall:
// the summary reports the wall time during which some cell waited, which
// never does, beside the cell-seconds.
func TestWaitingReportedAgainstWall(t *testing.T) {
	ty := newToy()
	cells := loadExp(t, ty, waitText)
	r := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 2, Log: quiet})
	s, err := r.Run(context.Background(), cells)
	if err != nil || s.Done != 6 {
		t.Fatalf("summary %v, error %v", s, err)
	}
	tm := s.Time
	t.Logf("\n%s", tm)
	// Five cells wait for one reference of 30 × 20 ms side by side: the
	// sum is several times the wall.
	if !(tm.Waiting > tm.Wall) {
		t.Errorf("waiting %v summed over cells, wall %v: the cells did not wait side by side", tm.Waiting, tm.Wall)
	}
	if !(tm.WaitingWall > 0 && tm.WaitingWall <= tm.Wall && tm.WaitingWall < tm.Waiting) {
		t.Errorf("wall with a cell waiting %v: want in (0, %v] and below the sum %v", tm.WaitingWall, tm.Wall, tm.Waiting)
	}
	// The longest single wait lies within the waiting wall time.
	var longest float64
	for _, p := range provenances(t, r.opts.Results) {
		longest = max(longest, p.WaitSeconds)
	}
	if longest == 0 || longest > tm.WaitingWall.Seconds()+0.01 {
		t.Errorf("longest wait of a cell %v s, wall with a cell waiting %v", longest, tm.WaitingWall)
	}
	line, _, _ := strings.Cut(tm.String(), "\n")
	want := fmt.Sprintf("time: %s wall, %s of method compute, %s of the wall with cells waiting for shared artefacts (%.1f cell-seconds summed over the waiting cells; no job slot held)",
		fmtDur(tm.Wall), fmtDur(tm.Compute), fmtDur(tm.WaitingWall), tm.Waiting.Seconds())
	if line != want {
		t.Errorf("summary line\n%s\nwant\n%s", line, want)
	}
	// A run in which no cell waits says so.
	if got := (TimeReport{Wall: time.Second}).String(); got != "time: 1.0s wall, 0.0s of method compute, no cell waited for shared artefacts" {
		t.Errorf("no waiting: %q", got)
	}
}

// The waiting clock counts the union of overlapping waits once.
func TestWaitClock(t *testing.T) {
	var w waitClock
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w.start(at(0)) // cell A waits 0–3
	w.start(at(1)) // cell B waits 1–5
	w.stop(at(3))  //
	w.stop(at(5))  // union 0–5
	w.start(at(7)) // cell C waits 7–8
	w.stop(at(8))  //
	if got := w.wall(); got != 6*time.Second {
		t.Errorf("wall with a cell waiting %v, want 6s (0–5 and 7–8; summed the waits are 7s)", got)
	}
	var none *waitClock
	none.start(t0) // a nil clock measures nothing
	none.stop(t0)
}
