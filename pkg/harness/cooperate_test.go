package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Running a quick profile into a directory that holds the full profile's
// cells (which share their ids) leaves those cells untouched.
func TestProfilesDoNotCollide(t *testing.T) {
	text := base + `
[profiles.full.budget]
steps = 10
`
	ty := newToy()
	dir := t.TempDir()
	if s := runExp(t, ty, dir, 2, text, "full", false); s.Done != 6 {
		t.Fatalf("full: %v", s)
	}
	full := provenances(t, filepath.Join(dir, "full"))
	// The quick profile has 2 cells, and toy/walk-b/gauss/s0 is also a
	// full cell's id.
	if _, ok := full["toy/walk-b/gauss/s0"]; !ok {
		t.Fatal("no shared id")
	}
	if s := runExp(t, ty, dir, 2, text, "quick", false); s.Done != 2 || s.Cached != 0 {
		t.Fatalf("quick: %v", s)
	}
	after := provenances(t, filepath.Join(dir, "full"))
	if len(full) != 6 || len(after) != 6 {
		t.Fatalf("%d and %d full cells", len(full), len(after))
	}
	for id, p := range full {
		if q := after[id]; q == nil || q.Key != p.Key || !q.End.Equal(p.End) {
			t.Errorf("%s: the quick run touched the full cell", id)
		}
	}
	if q := provenances(t, filepath.Join(dir, "quick")); len(q) != 2 {
		t.Errorf("%d quick cells under quick/", len(q))
	}
	// Both stay current.
	if s := runExp(t, ty, dir, 2, text, "full", false); s.Cached != 6 {
		t.Errorf("full again: %v", s)
	}
}

// Two runners in one process on one directory compute each cell, and each
// shared artefact, exactly once between them; each counts every cell.
func TestTwoRunnersComputeOnce(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	cells := loadExp(t, ty, strings.Replace(refText, "settings = { steps = 30 }", "settings = { steps = 30, delay_ms = 2 }", 1))
	var wg sync.WaitGroup
	sums := make([]*Summary, 2)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet})
			s, err := r.Run(context.Background(), cells)
			if err != nil {
				t.Error(err)
			}
			sums[i] = s
		}()
	}
	wg.Wait()
	// 6 cells and the 2 references (one per split).
	if n := ty.runs.Load(); n != 8 {
		t.Errorf("%d method runs, want 8 (6 cells and 2 references)", n)
	}
	for i, s := range sums {
		if s == nil || s.Done != 6 || s.Failed != 0 || s.Interrupted != 0 {
			t.Errorf("runner %d: %v", i, s)
		}
	}
	if c := sums[0].Cached + sums[1].Cached; c != 6 {
		t.Errorf("cells counted as found done: %d + %d, want 6 between them", sums[0].Cached, sums[1].Cached)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

// Two processes on one directory compute each cell exactly once between
// them, and the results are those of one runner.
func TestTwoProcessesComputeOnce(t *testing.T) {
	dir := t.TempDir()
	var outs [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), childEnv+"="+dir)
		cmds[i].Stdout = &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	runs := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i].String())
		}
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(outs[i].String()), "runs=%d", &n); err != nil {
			t.Fatalf("process %d printed %q", i, outs[i].String())
		}
		runs += n
	}
	if runs != 12 {
		t.Errorf("the two processes ran %d cells between them, want each of the 12 once", runs)
	}
	ref := t.TempDir()
	runExp(t, newToy(), ref, 2, slowText, "", false)
	got, want := readResults(t, dir), readResults(t, ref)
	if len(got) != 12 {
		t.Fatalf("%d CSVs", len(got))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs from one runner's", k)
		}
	}
}

// A cell claimed by another live process is not touched: the runner waits
// for it and counts its outcome; it never removes a result it did not
// write.
func TestClaimedCellIsWaitedFor(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	cells := loadExp(t, ty, base)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet})
	c := cells[0]
	if err := os.MkdirAll(filepath.Dir(r.MarkerPath(c)), 0o755); err != nil {
		t.Fatal(err)
	}
	end, err := r.claim(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.claim(c); !errors.Is(err, errClaimed) {
		t.Fatalf("second claim: %v, want errClaimed", err)
	}
	done := make(chan *Summary)
	go func() {
		s, err := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet}).Run(context.Background(), cells)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	// The other cells finish while the claimed one is held.
	deadline := time.Now().Add(10 * time.Second)
	for len(provenances(t, dir)) < len(cells)-1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if _, pp := r.Paths(c); fileExists(pp) {
		t.Fatal("the claimed cell was computed by the runner that did not hold it")
	}
	// The holder "finishes" it (here: a run of that cell alone, as the
	// holder would), then releases the marker.
	end()
	s := <-done
	if s.Done != len(cells) || s.Elsewhere != 1 || s.Failed != 0 {
		t.Errorf("summary %v", s)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// A forced recomputation keeps the old result until the new one is
// complete: interrupted, it leaves the old result whole and done.
func TestForceReplacesOnCompletion(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	if s := runExp(t, ty, dir, 2, slowText, "", false); s.Done != 12 {
		t.Fatalf("%v", s)
	}
	before := readResults(t, dir)
	oldProv := provenances(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	e, err := Load(ty.reg, "exp.toml", []byte(slowText), "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Force: true, Log: quiet})
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	s, err := r.Run(ctx, Plan([]*Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Interrupted == 0 {
		t.Fatalf("the forced run was not interrupted: %v", s)
	}
	after := readResults(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	for id, p := range provenances(t, dir) {
		if p.Status != Done || oldProv[id] == nil {
			t.Errorf("%s: %s", id, p.Status)
		}
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	// A replacement cut short between its renames is completed by the
	// next runner that claims the cell.
	c := Plan([]*Experiment{e})[0]
	csvPath, provPath := r.Paths(c)
	b, err := os.ReadFile(provPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(provPath+newSuffix, bytes.Replace(b, []byte(`"jobs": 2`), []byte(`"jobs": 3`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := recoverResult(csvPath, provPath); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadProvenance(provPath); err != nil || p.Jobs != 3 || fileExists(provPath+newSuffix) {
		t.Errorf("recovered provenance: %+v, %v", p, err)
	}
	// One whose CSV does not match is discarded.
	if err := os.WriteFile(provPath+newSuffix, bytes.Replace(b, []byte(`"csv_sha256": "`), []byte(`"csv_sha256": "0`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := recoverResult(csvPath, provPath); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadProvenance(provPath); err != nil || p.Jobs != 3 || fileExists(provPath+newSuffix) {
		t.Errorf("after discarding: %+v, %v", p, err)
	}
}

// A dataset whose files cannot be read fails its cells only, with the
// reason, and touches none of their files; the other cells run.
func TestDataErrorScopedToCells(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := strings.Replace(base, `datasets = ["gauss"]`, `datasets = ["gauss", "broken"]`, 1)
	ty.broken = true
	s := runExp(t, ty, dir, 2, text, "", false)
	if s.Done != 6 || s.Failed != 6 {
		t.Fatalf("summary %v", s)
	}
	for _, f := range s.Failures {
		if !strings.Contains(f, "broken.csv: wrong size") {
			t.Errorf("failure without its file: %s", f)
		}
	}
	for id := range provenances(t, dir) {
		if strings.Contains(id, "/broken/") {
			t.Errorf("%s: a cell whose data cannot be read wrote a result", id)
		}
	}
	// Mended, the data's cells run and the others stay cached.
	ty.broken = false
	if s := runExp(t, ty, dir, 2, text, "", false); s.Done != 12 || s.Cached != 6 {
		t.Errorf("after mending: %v", s)
	}
}

// A cell waiting for a reference another cell computes gives its job slot
// back, so that cells needing no reference run meanwhile.
func TestWaitingCellsFreeTheirSlot(t *testing.T) {
	ty := newToy()
	slowRef := strings.Replace(refText, "settings = { steps = 30 }", "settings = { steps = 30, delay_ms = 20 }", 1)
	refExp, err := Load(ty.reg, "ref.toml", []byte(slowRef), "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Load(ty.reg, "plain.toml", []byte(strings.Replace(base, `id = "toy"`, `id = "plain"`, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	dir := t.TempDir()
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 3, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	// The cells waiting for a reference come before the plain cells.
	s, err := r.Run(context.Background(), Plan([]*Experiment{refExp, plain}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Done != 12 || s.Time.Waiting <= 0 || len(s.Time.References) != 2 {
		t.Fatalf("summary %v, time %+v", s, s.Time)
	}
	provs := provenances(t, dir)
	var firstRefEnd, lastPlainEnd time.Time
	for id, p := range provs {
		if strings.HasPrefix(id, "plain/") {
			if p.End.After(lastPlainEnd) {
				lastPlainEnd = p.End
			}
			continue
		}
		if firstRefEnd.IsZero() || p.End.Before(firstRefEnd) {
			firstRefEnd = p.End
		}
	}
	// Every plain cell finished before any reference cell: none had to
	// wait for a slot held by a cell that was only waiting.
	if !lastPlainEnd.Before(firstRefEnd) {
		t.Errorf("the last plain cell ended at %v, after the first reference cell (%v)", lastPlainEnd, firstRefEnd)
	}
	if !strings.Contains(logs.String(), `msg="cell waiting"`) || !strings.Contains(logs.String(), "for=reference/walk/shared/s") {
		t.Errorf("no log line says what a cell waits for:\n%s", logs.String())
	}
	for id, p := range provs {
		if p.WaitSeconds > p.End.Sub(p.Start).Seconds() {
			t.Errorf("%s: waited %v s of a %v s cell", id, p.WaitSeconds, p.End.Sub(p.Start).Seconds())
		}
	}
}

// The first cell of each dataset split of an experiment with a reference
// moves to the front: it computes the reference, which then overlaps the
// other cells.
func TestReferencesFirst(t *testing.T) {
	ty := newToy()
	refExp, err := Load(ty.reg, "ref.toml", []byte(refText), "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Load(ty.reg, "plain.toml", []byte(strings.Replace(base, `id = "toy"`, `id = "plain"`, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	var todo []CellStatus
	for _, c := range Plan([]*Experiment{plain, refExp}) {
		todo = append(todo, CellStatus{Cell: c})
	}
	got := referencesFirst(todo)
	if len(got) != len(todo) {
		t.Fatalf("%d cells, want %d", len(got), len(todo))
	}
	var ids []string
	for _, st := range got[:3] {
		ids = append(ids, st.Cell.ID)
	}
	if want := "toy/walk-a/shared/s0/n3 toy/walk-a/shared/s1/n3 plain/walk-a/gauss/s0/n3"; strings.Join(ids, " ") != want {
		t.Errorf("order starts %v, want %s", ids, want)
	}
}

// After an interrupt the overall bar shows the cells finished, not the
// total, and no log line gives a cell that never started a duration.
func TestProgressAfterInterrupt(t *testing.T) {
	ty := newToy()
	e, err := Load(ty.reg, "exp.toml", []byte(slowText), "")
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	r := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 1, Progress: &out})
	go func() {
		for !strings.Contains(out.String(), `msg="cell finished"`) {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	s, err := r.Run(ctx, Plan([]*Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Interrupted == 0 || s.Done == 0 {
		t.Fatalf("summary %v", s)
	}
	m := regexp.MustCompile(`cells +(\d+)/(\d+)`).FindAllStringSubmatch(out.String(), -1)
	if len(m) == 0 {
		t.Fatalf("no overall bar in\n%q", out.String())
	}
	last := m[len(m)-1]
	if last[1] != fmt.Sprint(s.Done) || last[2] != "12" {
		t.Errorf("the overall bar ends at %s/%s, want %d/12", last[1], last[2], s.Done)
	}
	if !strings.Contains(out.String(), "ETA") {
		t.Error("no ETA")
	}
	if strings.Contains(out.String(), "seconds=-") {
		t.Errorf("a negative duration:\n%s", out.String())
	}
}

// A cell another runner failed during this run is counted failed, not run
// again.
func TestOtherRunnersFailureNotRetried(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := strings.Replace(base, "[methods.walk-b]\nkind = \"walk\"", "[methods.walk-b]\nkind = \"walk\"\nsettings = { fail = true, delay_ms = 20 }", 1)
	text = strings.Replace(text, "[methods.walk-b.settings.inner]\npull = 0.1\n", "", 1)
	cells := loadExp(t, ty, text)
	var wg sync.WaitGroup
	sums := make([]*Summary, 2)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet}).Run(context.Background(), cells)
			if err != nil {
				t.Error(err)
			}
			sums[i] = s
		}()
	}
	wg.Wait()
	if n := ty.runs.Load(); n != int64(len(cells)) {
		t.Errorf("%d method runs for %d cells", n, len(cells))
	}
	for i, s := range sums {
		if s.Failed != 2 || s.Done != len(cells)-2 {
			t.Errorf("runner %d: %v", i, s)
		}
	}
}

// On a terminal, a chain monitor draws a bar per chain beside the cells'
// bars, with the chain's phase and acceptance.
func TestChainBars(t *testing.T) {
	var out lockedBuffer
	run := &runState{prog: newProgress(&out, 1, 0)}
	env := &Env{runner: &Runner{}, run: run}
	m := env.ChainMonitor("reference/hmc/gauss/s0", 2)
	for i := 1; i <= 5; i++ {
		for c := range 2 {
			m.Update(ChainStatus{Chain: c, Phase: "sampling", Iteration: i, Total: 10, StepSize: 0.25, AcceptRate: 0.875, Done: 10 + i, Remaining: 10 - i})
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "chain 1") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	run.prog.mu.Lock()
	note := m.bars[1].note
	run.prog.mu.Unlock()
	if note != " sampling 5/10 step 0.25 accept 0.88" {
		t.Errorf("chain 1's note %q", note)
	}
	m.Close()
	run.prog.total.Increment()
	run.prog.wait()
	s := out.String()
	// 15 of 20 iterations done; the phase and acceptance follow the
	// percentage, as far as the line's width allows (a buffer has no
	// terminal width, so they are cut here).
	for _, want := range []string{"reference/hmc/gauss/s0 chain 0  75 %", "reference/hmc/gauss/s0 chain 1  75 %"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in the bars:\n%q", want, s)
		}
	}
	// Without bars (not a terminal) the monitor draws none.
	plain := (&Env{runner: &Runner{}}).ChainMonitor("x", 2)
	if plain.bars != nil {
		t.Error("bars without a terminal")
	}
	plain.Close()
}
