//go:build unix

package harness

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe in place of a marker or a provenance hangs neither status
// nor run.
func TestFIFODoesNotHang(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 1, base, "", false)
	cells := loadExp(t, ty, base)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	_, pp := r.Paths(cells[0])
	os.Remove(pp)
	if err := syscall.Mkfifo(pp, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := syscall.Mkfifo(r.MarkerPath(cells[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var n *Counts
	var cerr error
	var running bool
	go func() {
		defer close(done)
		running = r.Running(cells[1])
		n, cerr = r.Count(cells)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("status blocked on a named pipe")
	}
	if cerr != nil {
		t.Fatal(cerr)
	}
	if running || n.Running != 0 {
		t.Error("a named pipe in place of a marker counts as running")
	}
	if n.Stale != 1 || n.Done != len(cells)-1 || !strings.Contains(n.StaleCells[0], "named pipe") {
		t.Errorf("counts %v, stale %q", n, n.StaleCells)
	}
	// The run replaces the pipe of the provenance, without blocking; the
	// cell whose marker is a pipe stays cached.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := r.Run(ctx, cells)
	if err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v, %v", err, ctx.Err())
	}
	if sum.Failed != 0 || sum.Done != len(cells) || sum.Cached != len(cells)-1 {
		t.Errorf("run summary %v", sum)
	}
	if st, _ := r.Status(cells[0]); st.Status != Done {
		t.Errorf("after the run: %s %q", st.Status, st.StaleReason())
	}
}
