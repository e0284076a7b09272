package harness

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// refText is the base experiment on the "shared" dataset (loaded through
// an artefact) with a reference sample per split: 6 cells, 2 splits.
var refText = strings.Replace(strings.Replace(base, `["gauss"]`, `["shared"]`, 1),
	`metrics = ["mean0", "sq"]`, `metrics = ["refmean", "sq"]`, 1) + `
[reference]
kind = "walk"
particles = 50
settings = { steps = 30 }
`

func loadExp(t *testing.T, ty *toy, text string) []*Cell {
	t.Helper()
	e, err := Load(ty.reg, "exp.toml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	return Plan([]*Experiment{e})
}

// leftovers lists the files under dir that a finished run must not leave:
// running markers, temporary files and results written beside the ones
// they replace.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, MarkerSuffix) || strings.Contains(d.Name(), ".tmp-") || strings.HasSuffix(path, newSuffix) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

func TestRunningMarker(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := strings.Replace(base, "scale = 0.5", "scale = 0.5\ndelay_ms = 40", 1)
	cells := loadExp(t, ty, text)
	c := cells[0]
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	if r.Running(c) {
		t.Fatal("running before any run")
	}
	done := make(chan *Summary)
	go func() {
		s, _ := r.Run(context.Background(), cells[:1])
		done <- s
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !r.Running(c) {
		if time.Now().After(deadline) {
			t.Fatal("the running cell never showed as running")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A second runner on the directory (another process) sees it too.
	if !NewRunner(ty.reg, Options{Results: dir}).Running(c) {
		t.Error("the running cell is not running for another runner")
	}
	b, err := os.ReadFile(r.MarkerPath(c))
	if err != nil {
		t.Fatal(err)
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil || m.PID != os.Getpid() {
		t.Errorf("marker %q: %v", b, err)
	}
	st, err := r.Status(c)
	if err != nil || st.Status != Pending {
		t.Errorf("status while running %v, %v; want pending", st.Status, err)
	}
	if s := <-done; s.Done != 1 {
		t.Fatalf("summary %v", s)
	}
	if r.Running(c) {
		t.Error("still running after the run")
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	// A marker nobody holds, as a killed process leaves it, is not running.
	if err := os.WriteFile(r.MarkerPath(c), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r.Running(c) {
		t.Error("an abandoned marker counts as running")
	}
	// The next run of the cell replaces it and removes it.
	if s := runExp(t, ty, dir, 1, text, "", true); s.Done != 6 {
		t.Fatalf("summary %v", s)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestConcurrentRunners has three runners (standing for three processes of
// a job array) run every cell of one experiment into one directory at the
// same time, each cell up to three times at once: the results are those of
// a sequential run and each shared artefact is computed once.
func TestConcurrentRunners(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	cells := loadExp(t, ty, refText)
	var wg sync.WaitGroup
	sums := make([]*Summary, 3)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet})
			// Each starts at a different cell, so the runs overlap.
			order := append(append([]*Cell(nil), cells[2*i:]...), cells[:2*i]...)
			s, err := r.Run(context.Background(), order)
			if err != nil {
				t.Error(err)
			}
			sums[i] = s
		}()
	}
	wg.Wait()
	for _, s := range sums {
		if s == nil || s.Done != 6 || s.Failed != 0 {
			t.Fatalf("summary %v", s)
		}
	}
	if n := ty.artefacts.Load(); n != 1 {
		t.Errorf("MAP artefact computed %d times, want 1", n)
	}
	seq := t.TempDir()
	runExp(t, newToy(), seq, 1, refText, "", false)
	got, want := readResults(t, dir), readResults(t, seq)
	if len(want) != 6 || !reflect.DeepEqual(got, want) {
		t.Errorf("concurrent results differ from the sequential ones:\n%v\n%v", got, want)
	}
	for id, p := range provenances(t, dir) {
		if p.Status != Done {
			t.Errorf("%s: %s %s", id, p.Status, p.Error)
		}
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

func TestPrepare(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	cells := loadExp(t, ty, refText)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet})
	n, err := r.Prepare(context.Background(), cells)
	if err != nil || n != 2 {
		t.Fatalf("Prepare: %d groups, %v; want 2 (one per split)", n, err)
	}
	// Only the two references ran, and the MAP artefact was computed.
	if got := ty.runs.Load(); got != 2 {
		t.Errorf("%d method runs while preparing, want the 2 references", got)
	}
	if got := ty.artefacts.Load(); got != 1 {
		t.Errorf("MAP artefact computed %d times, want 1", got)
	}
	if l := provenances(t, dir); len(l) != 0 {
		t.Errorf("preparing wrote cell results: %v", l)
	}
	// A run in another process (a fresh registry and runner) computes no
	// artefact: every one is read.
	ty2 := newToy()
	if s := runExp(t, ty2, dir, 2, refText, "", false); s.Done != 6 {
		t.Fatalf("summary %v", s)
	}
	if got := ty2.runs.Load(); got != 6 {
		t.Errorf("%d method runs after preparing, want the 6 cells only", got)
	}
	if got := ty2.artefacts.Load(); got != 0 {
		t.Errorf("MAP artefact recomputed %d times", got)
	}
	// Nothing is left to prepare once every cell is done.
	if n, err := r.Prepare(context.Background(), cells); n != 0 || err != nil {
		t.Errorf("Prepare after the run: %d groups, %v", n, err)
	}
}

func TestPrepareReportsFailures(t *testing.T) {
	ty := newToy()
	text := strings.Replace(refText, "settings = { steps = 30 }", "settings = { steps = 30, fail = true }", 1)
	r := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 1, Log: quiet})
	n, err := r.Prepare(context.Background(), loadExp(t, ty, text))
	if n != 0 || err == nil || !strings.Contains(err.Error(), "asked to fail") || !strings.Contains(err.Error(), "toy/shared/s1") {
		t.Errorf("Prepare with a failing reference: %d, %v", n, err)
	}
}
