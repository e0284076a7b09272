package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// runExp loads the experiment text under profile and runs it into results.
func runExp(t *testing.T, ty *toy, results string, jobs int, text, profile string, force bool) *Summary {
	t.Helper()
	e, err := Load(ty.reg, "exp.toml", []byte(text), profile)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: results, Jobs: jobs, Force: force, Log: quiet})
	sum, err := r.Run(context.Background(), Plan([]*Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// readResults returns every CSV under dir, keyed by relative path, without
// the compute_seconds column.
func readResults(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".csv") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Split(l, ",")
			lines = append(lines, strings.Join(append(f[:7:7], f[8:]...), ","))
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = strings.Join(lines, "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func provenances(t *testing.T, dir string) map[string]*Provenance {
	t.Helper()
	out := map[string]*Provenance{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".json") {
			return err
		}
		p, err := ReadProvenance(path)
		if err != nil {
			t.Fatal(err)
		}
		out[p.Cell] = p
		return nil
	})
	return out
}

func TestDeterminismAcrossJobs(t *testing.T) {
	ty := newToy()
	d1, d2 := t.TempDir(), t.TempDir()
	s1 := runExp(t, ty, d1, 1, base, "", false)
	s2 := runExp(t, ty, d2, 2, base, "", false)
	if s1.Done != 6 || s2.Done != 6 || s1.Err() != nil || s2.Err() != nil {
		t.Fatalf("summaries: %v / %v", s1, s2)
	}
	r1, r2 := readResults(t, d1), readResults(t, d2)
	if len(r1) != 6 {
		t.Fatalf("got %d CSVs, want 6", len(r1))
	}
	seen := map[string]string{}
	for k, v := range r1 {
		if r2[k] != v {
			t.Errorf("%s differs between -j 1 and -j 2:\n%s\n---\n%s", k, v, r2[k])
		}
		// Cells draw different random numbers: no two curves coincide.
		if other, dup := seen[stripIDs(v)]; dup {
			t.Errorf("%s and %s have the same values", k, other)
		}
		seen[stripIDs(v)] = k
	}
	// Header, then 5 evaluations (steps 2…10, budget 10) × 2 metrics.
	for k, v := range r1 {
		if !strings.HasPrefix(k, filepath.Join(BaseProfile, "toy", "walk-a")) {
			continue
		}
		lines := strings.Split(v, "\n")
		if lines[0] != "experiment,cell,method,dataset,split,n_particles,step,grad_evals,metric,value" || len(lines) != 11 {
			t.Errorf("%s: %d lines, header %q", k, len(lines), lines[0])
		}
		if !strings.Contains(lines[len(lines)-1], ",10,") {
			t.Errorf("%s: last row is not at the budget step 10: %s", k, lines[len(lines)-1])
		}
	}
}

// stripIDs keeps only the step and value columns of a CSV.
func stripIDs(csv string) string {
	var b strings.Builder
	for _, l := range strings.Split(csv, "\n")[1:] {
		f := strings.Split(l, ",")
		b.WriteString(f[6] + "," + f[9] + "\n")
	}
	return b.String()
}

func TestCacheInvalidation(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 2, base, "", false)
	if n := ty.runs.Load(); n != 6 {
		t.Fatalf("first run: %d method runs, want 6", n)
	}
	before := provenances(t, dir)
	// Nothing changed: nothing recomputed.
	s := runExp(t, ty, dir, 2, base, "", false)
	if n := ty.runs.Load(); n != 6 || s.Cached != 6 {
		t.Fatalf("second run recomputed: %d runs, summary %v", n, s)
	}
	// One setting of walk-b changes: only its two cells are recomputed.
	changed := strings.Replace(base, "pull = 0.1", "pull = 0.2", 1)
	runExp(t, ty, dir, 2, changed, "", false)
	if n := ty.runs.Load(); n != 8 {
		t.Fatalf("after changing walk-b: %d runs, want 8", n)
	}
	after := provenances(t, dir)
	for id, p := range after {
		recomputed := !p.Start.Equal(before[id].Start)
		if recomputed != strings.Contains(id, "walk-b") {
			t.Errorf("%s: recomputed = %v", id, recomputed)
		}
	}
	// The data checksum changes: everything is recomputed.
	ty.checksum = "decaf"
	runExp(t, ty, dir, 2, changed, "", false)
	if n := ty.runs.Load(); n != 14 {
		t.Fatalf("after changing the data: %d runs, want 14", n)
	}
	// --force recomputes cached cells.
	runExp(t, ty, dir, 2, changed, "", true)
	if n := ty.runs.Load(); n != 20 {
		t.Fatalf("after --force: %d runs, want 20", n)
	}
}

func TestSkippedWhenDataMissing(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := strings.Replace(base, `["gauss"]`, `["gauss", "maybe"]`, 1)
	s := runExp(t, ty, dir, 2, text, "", false)
	if s.Done != 6 || s.Skipped != 6 || s.Err() != nil || !strings.Contains(s.String(), "6 × maybe.csv: data missing") {
		t.Fatalf("summary: %v", s)
	}
	s = runExp(t, ty, dir, 2, text, "", false)
	if ty.runs.Load() != 6 || s.Cached != 12 {
		t.Fatalf("skipped cells retried: %d runs, %v", ty.runs.Load(), s)
	}
	ty.present = true
	s = runExp(t, ty, dir, 2, text, "", false)
	if ty.runs.Load() != 12 || s.Done != 12 || s.Skipped != 0 {
		t.Fatalf("data appeared: %d runs, %v", ty.runs.Load(), s)
	}
}

func TestFailuresAreRecorded(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := base + `
[methods.bad]
kind = "walk"
settings = { fail = true }

[methods.worse]
kind = "walk"
settings = { panic = true }
`
	s := runExp(t, ty, dir, 2, text, "", false)
	if s.Done != 6 || s.Failed != 4 || s.Err() == nil {
		t.Fatalf("summary: %v", s)
	}
	if !strings.Contains(s.String(), "toy/bad/gauss/s0: walk: asked to fail") || !strings.Contains(s.String(), "toy/worse/gauss/s1: panic: walk: asked to panic") {
		t.Errorf("summary does not say why: %v", s)
	}
	p := provenances(t, dir)["toy/worse/gauss/s0"]
	if p == nil || p.Status != Failed || !strings.Contains(p.Error, "runner_test") && !strings.Contains(p.Error, "toy_test.go") {
		t.Errorf("panic provenance: %+v", p)
	}
	// Failed cells are retried, finished ones are not.
	runs := ty.runs.Load()
	runExp(t, ty, dir, 2, text, "", false)
	if got := ty.runs.Load() - runs; got != 4 {
		t.Errorf("rerun ran %d cells, want the 4 failed ones", got)
	}
}

func TestTimeBudgetAndSchedule(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := `id = "clk"
datasets = ["gauss"]
splits = [0]
[budget]
seconds = 2.0
[eval]
metrics = ["mean0"]
log = true
[methods.c]
kind = "clock"
settings = { steps = 100 }
`
	runExp(t, ty, dir, 1, text, "", false)
	got := readResults(t, dir)[filepath.Join(BaseProfile, "clk", "c", "gauss", "s0.csv")]
	var steps []string
	for _, l := range strings.Split(got, "\n")[1:] {
		steps = append(steps, strings.Split(l, ",")[6])
	}
	// log steps 1, 2, 5, then step 8 at which 8·0.25 s reaches the budget.
	if s := strings.Join(steps, " "); s != "1 2 5 8" {
		t.Errorf("evaluated steps %q, want 1 2 5 8", s)
	}
	p := provenances(t, dir)["clk/c/gauss/s0"]
	if p.Steps != 8 || p.Seconds != 2 || p.Status != Done {
		t.Errorf("provenance: steps %d seconds %v status %s", p.Steps, p.Seconds, p.Status)
	}
}

func TestArtefactOnceAcrossJobs(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := strings.Replace(base, `["gauss"]`, `["shared"]`, 1)
	s := runExp(t, ty, dir, 4, text, "", false)
	if s.Done != 6 {
		t.Fatalf("summary %v", s)
	}
	if n := ty.artefacts.Load(); n != 1 {
		t.Errorf("artefact computed %d times under -j 4, want 1", n)
	}
}

// TestArtefactAcrossStores has two stores on one directory, standing for
// two processes: only the lock file keeps them from computing twice.
func TestArtefactAcrossStores(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int64
	var wg sync.WaitGroup
	stores := []*Store{NewStore(dir), NewStore(dir)}
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := stores[i%2].Artefact(context.Background(), "ref/x/s0", func(context.Context) ([]byte, error) {
				calls.Add(1)
				time.Sleep(30 * time.Millisecond)
				return []byte("value"), nil
			})
			if err == nil && string(b) != "value" {
				err = os.ErrInvalid
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("computed %d times, want 1", n)
	}
	if _, err := NewStore(dir).Artefact(context.Background(), "../x", nil); err == nil {
		t.Error("a key escaping the store was accepted")
	}
}

func TestReference(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	text := strings.Replace(base, `metrics = ["mean0", "sq"]`, `metrics = ["refmean"]`, 1) + `
[reference]
kind = "walk"
particles = 50
settings = { steps = 30 }
`
	e, err := Load(ty.reg, "exp.toml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	s, err := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: log}).Run(context.Background(), Plan([]*Experiment{e}))
	if err != nil || s.Done != 6 {
		t.Fatalf("summary %v, error %v", s, err)
	}
	// Each reference says when it starts and finishes, once.
	for _, split := range []string{"s0", "s1"} {
		for _, what := range []string{"started", "finished"} {
			line := fmt.Sprintf(`msg="reference %s" reference=reference/walk/gauss/%s`, what, split)
			if n := strings.Count(logBuf.String(), line); n != 1 {
				t.Errorf("%d lines %q in the log:\n%s", n, line, logBuf.String())
			}
		}
	}
	// 6 cells and one reference per split.
	if n := ty.runs.Load(); n != 8 {
		t.Errorf("%d method runs, want 6 cells + 2 references", n)
	}
	refs, _ := filepath.Glob(filepath.Join(dir, ".artefacts", "reference", "walk", "gauss", "s*", "*"))
	var files []string
	for _, r := range refs {
		if !strings.HasSuffix(r, ".lock") && !strings.HasSuffix(r, SumSuffix) {
			files = append(files, r)
		}
	}
	if len(files) != 2 {
		t.Errorf("reference files %v", refs)
	}
}

// The resume test re-executes the test binary as a child that runs an
// experiment until it is interrupted.
const childEnv = "HARNESS_TEST_CHILD_RESULTS"

// slowText is an experiment of 12 cells of about 150 ms each.
var slowText = strings.Replace(strings.Replace(base, "scale = 0.5", "scale = 0.5\ndelay_ms = 15", 1),
	"[methods.walk-b]\nkind = \"walk\"", "[methods.walk-b]\nkind = \"walk\"\nparticles = [1, 2, 3, 4]\nsettings.delay_ms = 15", 1)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(childMain(dir))
	}
	os.Exit(m.Run())
}

func childMain(dir string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ty := newToy()
	e, err := Load(ty.reg, "exp.toml", []byte(slowText), "")
	if err != nil {
		return 3
	}
	sum, err := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet}).Run(ctx, Plan([]*Experiment{e}))
	if err != nil {
		return 3
	}
	fmt.Printf("runs=%d\n", ty.runs.Load())
	if sum.Err() != nil {
		return 1
	}
	return 0
}

func TestResumeAfterInterrupt(t *testing.T) {
	ty := newToy()
	e, err := Load(ty.reg, "exp.toml", []byte(slowText), "")
	if err != nil {
		t.Fatal(err)
	}
	total := len(Plan([]*Experiment{e}))
	if total != 12 {
		t.Fatalf("%d cells", total)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once a few cells are finished.
	deadline := time.Now().Add(20 * time.Second)
	for len(provenances(t, dir)) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child finished no cell")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("interrupted child: %v", err)
	}
	first := provenances(t, dir)
	t.Logf("%d of %d cells finished before the interrupt", len(first), total)
	if len(first) == 0 || len(first) >= total {
		t.Fatalf("child finished %d of %d cells before the interrupt", len(first), total)
	}
	// Nothing half-written: every CSV has its provenance, no temporary
	// files remain.
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if strings.Contains(filepath.Base(path), ".tmp-") {
			t.Errorf("temporary file left: %s", path)
		}
		if strings.HasSuffix(path, ".csv") {
			if _, err := os.Stat(strings.TrimSuffix(path, ".csv") + ".json"); err != nil {
				t.Errorf("CSV without provenance: %s", path)
			}
		}
		return nil
	})
	// Resume: only the unfinished cells run.
	sum, err := NewRunner(ty.reg, Options{Results: dir, Jobs: 2, Log: quiet}).Run(context.Background(), Plan([]*Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Err() != nil || sum.Cached != len(first) || int(ty.runs.Load()) != total-len(first) {
		t.Errorf("resume: %v, %d runs, %d were finished", sum, ty.runs.Load(), len(first))
	}
	for id, p := range provenances(t, dir) {
		if f, ok := first[id]; ok && !f.Start.Equal(p.Start) {
			t.Errorf("%s recomputed", id)
		}
	}
	// The same results as an uninterrupted run.
	ref := t.TempDir()
	runExp(t, newToy(), ref, 2, slowText, "", false)
	got, want := readResults(t, dir), readResults(t, ref)
	if len(got) != total || len(want) != total {
		t.Fatalf("%d and %d CSVs, want %d", len(got), len(want), total)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs after resume", k)
		}
	}
}

func TestProvenance(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 2, base, "quick", false)
	p := provenances(t, dir)["toy/walk-a/gauss/s0/n2"]
	if p == nil {
		t.Fatal("no provenance")
	}
	if p.Status != Done || p.Profile != "quick" || p.Key == "" || p.Data["gauss.csv"] != "c0ffee" ||
		p.Code.GoVersion == "" || p.Host.NumCPU == 0 || p.End.Before(p.Start) || p.CSVSHA256 == "" || p.Steps != 4 {
		t.Errorf("provenance incomplete: %+v", p)
	}
	var summary map[string]int
	if err := json.Unmarshal(p.Summary, &summary); err != nil || summary["threads"] < 1 {
		t.Errorf("summary %s: %v", p.Summary, err)
	}
	settings := p.Settings.(map[string]any)
	if settings["Scale"] != 2.0 {
		t.Errorf("resolved settings %v", settings)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProgressAndLog(t *testing.T) {
	ty := newToy()
	e, err := Load(ty.reg, "exp.toml", []byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	// The bars go to one buffer, the log to another: mpb's rendering into
	// a buffer that is not a terminal can drop a line written between two
	// frames, which is the bars' business, not the log's.
	var out, logged lockedBuffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	sum, err := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 2, Progress: &out, Log: log}).Run(context.Background(), Plan([]*Experiment{e}))
	if err != nil || sum.Done != 6 {
		t.Fatalf("%v %v", sum, err)
	}
	// One log line per finished cell, with its key metric.
	s := logged.String()
	if n := strings.Count(s, "msg=\"cell finished\""); n != 6 {
		t.Errorf("%d log lines, want 6:\n%s", n, s)
	}
	if !strings.Contains(s, "cell=toy/walk-b/gauss/s1 status=done") || !strings.Contains(s, "mean0=") {
		t.Errorf("log lacks cell, status or key metric:\n%s", s)
	}
	// Each finished line says how far the run is, the time left until the
	// last: plain periodic lines where no bar is drawn.
	for k := 1; k <= 6; k++ {
		if !strings.Contains(s, fmt.Sprintf(" cells=%d/6", k)) {
			t.Errorf("no finished line says cells=%d/6:\n%s", k, s)
		}
	}
	if n := strings.Count(s, " left_seconds="); n != 5 {
		t.Errorf("%d lines give the time left, want 5 (all but the last):\n%s", n, s)
	}
	// The bars: every cell's and the overall one, complete.
	bars := out.String()
	for _, want := range []string{"toy/walk-a/gauss/s0/n3", "toy/walk-b/gauss/s1", "cells  6/6"} {
		if !strings.Contains(bars, want) {
			t.Errorf("the bars lack %q:\n%s", want, bars)
		}
	}
}

// Results made where the data existed stay current for a reader without the
// data (plots, reports) under RecordedData, and only then.
func TestStatusRecordedData(t *testing.T) {
	ty := newToy()
	ty.present = true
	dir := t.TempDir()
	text := strings.Replace(base, `["gauss"]`, `["maybe"]`, 1)
	if s := runExp(t, ty, dir, 2, text, "", false); s.Done != 6 {
		t.Fatalf("summary: %v", s)
	}
	ty.present = false // the data folder is gone
	e, err := Load(ty.reg, "exp.toml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, recorded := range []bool{false, true} {
		r := NewRunner(ty.reg, Options{Results: dir, RecordedData: recorded, Log: quiet})
		for _, c := range Cells(e) {
			st, err := r.Status(c)
			if err != nil {
				t.Fatal(err)
			}
			want := Stale
			if recorded {
				want = Done
			}
			if st.Status != want {
				t.Errorf("RecordedData %v: %s is %s, want %s", recorded, c.ID, st.Status, want)
			}
		}
	}
	// A result made under other settings stays stale with recorded data.
	changed := strings.Replace(text, "scale = 0.5", "scale = 0.77", 1)
	if changed == text {
		t.Fatal("the toy file has no walk-a scale to change")
	}
	e2, err := Load(ty.reg, "exp.toml", []byte(changed), "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: dir, RecordedData: true, Log: quiet})
	stale := 0
	for _, c := range Cells(e2) {
		st, err := r.Status(c)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status == Stale {
			stale++
		}
	}
	if stale == 0 {
		t.Error("changed settings left every cell current under RecordedData")
	}
}

// A results directory that cannot be written is one error of Run, before
// any cell runs, rather than one failure per cell.
func TestRunUnwritableResults(t *testing.T) {
	ty := newToy()
	// A folder without write permission; root writes there all the same,
	// so it takes a folder of /proc instead, which reads as empty and
	// refuses every new file.
	results := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(results, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if runtime.GOOS != "linux" {
			t.Skip("running as root, and no /proc to refuse writes")
		}
		results = "/proc/self/results"
	}
	e, err := Load(ty.reg, "exp.toml", []byte(base), "quick")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := NewRunner(ty.reg, Options{Results: results, Log: quiet}).Run(context.Background(), Plan([]*Experiment{e}))
	if err == nil || sum != nil || !strings.Contains(err.Error(), "results directory "+results+" cannot be written") {
		t.Fatalf("Run into %s: %v, %v", results, sum, err)
	}
	if n := ty.runs.Load(); n != 0 {
		t.Errorf("%d cells ran", n)
	}
}
