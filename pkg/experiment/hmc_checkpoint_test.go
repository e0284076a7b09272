package experiment

import (
	"bytes"
	"context"
	"encoding/gob"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// refRegistry is a registry with the hmc kind, the mmd2 metric and a
// banana-shaped 3-d target that no exact metric covers, so that its cells
// need an HMC reference.
func refRegistry() *harness.Registry {
	reg := harness.NewRegistry()
	harness.RegisterMethod(reg, KindHMC, "1", runHMC)
	reg.RegisterMetric(MMD2, mmd2Factory)
	ds, _ := refDataset()
	reg.RegisterDataset("banana", ds)
	return reg
}

// refDataset is the banana-shaped 3-d target of refRegistry.
func refDataset() (harness.Dataset, string) {
	return harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			f := func(x, g []float64) float64 {
				b := x[1] - 0.5*x[0]*x[0]
				g[0] = -x[0] + b*x[0]
				g[1] = -b
				g[2] = -x[2] / 4
				return -0.5*x[0]*x[0] - 0.5*b*b - x[2]*x[2]/8
			}
			return &harness.Problem{Target: target.Func{D: 3, F: f}, Model: &Info{Name: "banana", Label: "banana"}}, nil
		},
		Checksums: func(int, *harness.Env) (map[string]string, error) { return map[string]string{"banana": "0"}, nil },
	}, "banana"
}

const refExperiment = `
id = "ckpt"
datasets = ["banana"]
splits = [1]
[eval]
metrics = ["mmd2"]
[reference]
kind = "hmc"
particles = 600
settings = { chains = 3, warmup = 400, init = "prior" }
[methods.short]
kind = "hmc"
particles = [30]
settings = { chains = 1, warmup = 30, init = "prior" }
`

// storedRef is the gob form of a cached reference (the harness's refFile).
type storedRef struct {
	R, C    int
	X, W    []float64
	Summary []byte
}

// runRefExperiment runs refExperiment into results with ctx and returns the
// log.
func runRefExperiment(t *testing.T, ctx context.Context, results string) string {
	t.Helper()
	reg := refRegistry()
	e, err := harness.Load(reg, "ckpt.toml", []byte(refExperiment), "")
	if err != nil {
		t.Fatal(err)
	}
	var buf syncBuffer
	r := harness.NewRunner(reg, harness.Options{Results: results, Jobs: 1, Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if _, err := r.Run(ctx, harness.Plan([]*harness.Experiment{e})); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// loadRef reads the one cached reference under results.
func loadRef(t *testing.T, results string) (storedRef, string) {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(results, ".artefacts", "reference", "hmc", "banana", "s1", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, p := range m {
		if !strings.Contains(filepath.Base(p), ".") {
			refs = append(refs, p)
		}
	}
	if len(refs) != 1 {
		t.Fatalf("reference files %v", m)
	}
	b, err := os.ReadFile(refs[0])
	if err != nil {
		t.Fatal(err)
	}
	var f storedRef
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		t.Fatal(err)
	}
	return f, refs[0]
}

// TestReferenceResumesFromCheckpoint interrupts a run while its HMC
// reference is being computed, once a checkpoint exists beside the
// artefact, runs again, and requires the reference draws of an
// uninterrupted run bit for bit, a log line saying it resumed, and no
// checkpoint left once the reference is stored.
func TestReferenceResumesFromCheckpoint(t *testing.T) {
	old := hmcCheckpoint
	hmcCheckpoint.Every, hmcCheckpoint.Interval = 40, -1
	defer func() { hmcCheckpoint = old }()

	whole := t.TempDir()
	runRefExperiment(t, context.Background(), whole)
	want, _ := loadRef(t, whole)

	results := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	dir := filepath.Join(results, ".artefacts", "reference", "hmc", "banana", "s1")
	go func() {
		defer cancel()
		for ctx.Err() == nil {
			if m, _ := filepath.Glob(filepath.Join(dir, "*.checkpoint")); len(m) > 0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	runRefExperiment(t, ctx, results)
	cancel()
	cks, _ := filepath.Glob(filepath.Join(dir, "*.checkpoint"))
	if len(cks) != 1 {
		t.Fatalf("after the interruption: checkpoints %v", cks)
	}
	log := runRefExperiment(t, context.Background(), results)
	if !strings.Contains(log, "reference resumed from its checkpoint") {
		t.Errorf("second run did not resume:\n%s", log)
	}
	got, path := loadRef(t, results)
	if got.R != want.R || got.C != want.C || len(got.X) != len(want.X) {
		t.Fatalf("resumed reference %d×%d, want %d×%d", got.R, got.C, want.R, want.C)
	}
	for i := range want.X {
		if math.Float64bits(got.X[i]) != math.Float64bits(want.X[i]) {
			t.Fatalf("resumed reference differs at entry %d: %v vs %v", i, got.X[i], want.X[i])
		}
	}
	if _, err := os.Stat(harness.CheckpointPath(path)); !os.IsNotExist(err) {
		t.Errorf("checkpoint left after the reference was stored: %v", err)
	}
}

// TestChainMonitorLogs checks the progress lines of a reference: one per
// chain, with phase, step size and an ETA.
func TestChainMonitorLogs(t *testing.T) {
	var buf syncBuffer
	m := harness.NewChainMonitor("ref", 2, slog.New(slog.NewTextHandler(&buf, nil)), 5*time.Millisecond)
	for it := 1; it <= 10; it++ {
		for c := 0; c < 2; c++ {
			m.Update(harness.ChainStatus{Chain: c, Phase: "warm-up", Iteration: it, Total: 100, StepSize: 0.25, AcceptRate: 0.8, Done: it, Remaining: 200 - it})
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	m.Close()
	out := buf.String()
	for _, want := range []string{"chain=0", "chain=1", "phase=warm-up", "step_size=0.25", "accept=0.8", "eta="} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lines lack %q:\n%s", want, out)
		}
	}
}

// TestReferenceDiscardsForeignCheckpoint puts a file that is not this run's
// checkpoint where the reference keeps its own: the run says it discards
// it, starts afresh from the same random state and stores the draws of an
// uninterrupted run.
func TestReferenceDiscardsForeignCheckpoint(t *testing.T) {
	whole := t.TempDir()
	runRefExperiment(t, context.Background(), whole)
	want, wantPath := loadRef(t, whole)

	results := t.TempDir()
	rel, err := filepath.Rel(whole, wantPath)
	if err != nil {
		t.Fatal(err)
	}
	ck := harness.CheckpointPath(filepath.Join(results, rel))
	if err := os.MkdirAll(filepath.Dir(ck), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ck, []byte("written by something else"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := runRefExperiment(t, context.Background(), results)
	if !strings.Contains(log, "discarding a checkpoint of another run") {
		t.Errorf("no warning about the foreign checkpoint:\n%s", log)
	}
	got, _ := loadRef(t, results)
	for i := range want.X {
		if math.Float64bits(got.X[i]) != math.Float64bits(want.X[i]) {
			t.Fatalf("reference differs at entry %d after discarding the checkpoint", i)
		}
	}
	if _, err := os.Stat(ck); !os.IsNotExist(err) {
		t.Errorf("foreign checkpoint still there: %v", err)
	}
}
