package harness

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// ckText is one SVGD cell of 60 updates, every snapshot evaluated.
const ckText = `id = "ck"
seed = 3
datasets = ["gauss"]
splits = [1]

[eval]
metrics = ["mean0", "sq"]

[methods.svgd]
kind = "svgd"
particles = [8]
`

// ckSGLDText is one SGLD cell of 2 chains and 600 iterations, a snapshot
// every 10 after a burn-in of 100.
const ckSGLDText = `id = "ck"
seed = 3
datasets = ["gauss"]
splits = [1]

[eval]
metrics = ["mean0", "sq"]

[methods.sgld]
kind = "sgld"
`

// ckFWText is one MMD-FW cell of 30 particles with Stein weights by the
// pairwise solver, every snapshot evaluated.
const ckFWText = `id = "ck"
seed = 3
datasets = ["gauss"]
splits = [1]

[eval]
metrics = ["mean0", "sq"]

[methods.mmdfw]
kind = "mmdfw"
particles = [30]
`

// ckMethod is an SVGD method whose recorder, when cancelAt is set,
// cancels the run's context at that snapshot; it counts the snapshots its
// runs were given, by step.
type ckMethod struct {
	mu       sync.Mutex
	cancel   context.CancelFunc
	cancelAt int
	steps    []int
}

type ckRec struct {
	m   *ckMethod
	rec particle.Recorder
}

func (r ckRec) Record(s particle.Snapshot) error {
	r.m.mu.Lock()
	r.m.steps = append(r.m.steps, s.Step)
	if r.m.cancelAt > 0 && s.Step == r.m.cancelAt {
		r.m.cancel()
	}
	r.m.mu.Unlock()
	return r.rec.Record(s)
}

func (r ckRec) Unwrap() particle.Recorder { return r.rec }

func ckRegistry(m *ckMethod) *Registry {
	ty := newToy()
	RegisterMethod(ty.reg, "svgd", "1", func(ctx context.Context, in Input[struct{}]) (Output, error) {
		s := svgd.Settings{N: in.N, Iterations: 60, RecordEvery: 1, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}}
		start := particle.Start{X0: []float64{0.3, -0.2}}
		set, err := sampler.Set(svgd.Run(ctx, in.Problem.Target, start, s, in.Src, ckRec{m, in.Recorder}))
		return Output{Set: set}, err
	})
	RegisterMethod(ty.reg, "sgld", "1", func(ctx context.Context, in Input[struct{}]) (Output, error) {
		s := sgld.Settings{Iterations: 600, BurnIn: 100, Chains: 2, RecordEvery: 10, Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed}}
		start := particle.Start{X0: []float64{0.3, -0.2}}
		set, err := sampler.Set(sgld.Run(ctx, in.Problem.Target, start, s, in.Src, ckRec{m, in.Recorder}))
		return Output{Set: set}, err
	})
	RegisterMethod(ty.reg, "mmdfw", "1", func(ctx context.Context, in Input[struct{}]) (Output, error) {
		var s mmdfw.Settings
		s.N, s.Weights, s.WeightSolver, s.Stop = in.N, mmdfw.Stein, mmdfw.SolverPairwise, mmdfw.StopFixed
		start := particle.Start{X0: []float64{0.3, -0.2}}
		set, err := sampler.Set(mmdfw.Run(ctx, in.Problem.Target, start, s, in.Src, ckRec{m, in.Recorder}))
		return Output{Set: set}, err
	})
	return ty.reg
}

// runCk runs ckText into dir, cancelling at step cancelAt (0: never), and
// returns the summary, the log and the steps the method recorded.
func runCk(t *testing.T, dir string, cancelAt int) (*Summary, string, []int) {
	return runCkText(t, ckText, dir, cancelAt)
}

// runCkText is runCk of the experiment text.
func runCkText(t *testing.T, text, dir string, cancelAt int) (*Summary, string, []int) {
	t.Helper()
	m := &ckMethod{cancelAt: cancelAt}
	reg := ckRegistry(m)
	e, err := Load(reg, "ck.toml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.cancel = cancel
	sum, err := NewRunner(reg, Options{Results: dir, Jobs: 1, Log: slog.New(slog.NewTextHandler(&log, nil))}).Run(ctx, Plan([]*Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	return sum, log.String(), m.steps
}

func checkpointFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(CheckpointDir), "*.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCellResumesFromCheckpoint interrupts an SVGD cell at its 25th
// update, an SGLD cell at its 250th iteration and an MMD-FW cell at its
// 12th particle, and reruns each: the
// rerun resumes from there, says so, records only the snapshots from
// there on, removes the checkpoint and writes the CSV of an uninterrupted
// run (the seconds aside).
func TestCellResumesFromCheckpoint(t *testing.T) {
	old := CellCheckpointEvery
	defer func() { CellCheckpointEvery = old }()
	CellCheckpointEvery = old // the checkpoint comes from the cancellation

	for _, c := range []struct {
		name, text string
		at         int
	}{{"svgd", ckText, 25}, {"sgld", ckSGLDText, 250}, {"mmdfw", ckFWText, 12}} {
		ref := t.TempDir()
		sum, _, all := runCkText(t, c.text, ref, 0)
		if sum.Err() != nil {
			t.Fatal(sum)
		}
		want := readResults(t, ref)
		if len(want) != 1 {
			t.Fatalf("%s: %d CSVs", c.name, len(want))
		}
		if f := checkpointFiles(t, ref); len(f) != 0 {
			t.Errorf("%s: checkpoints left after a finished cell: %v", c.name, f)
		}
		var after []int // the steps from c.at on
		for _, s := range all {
			if s >= c.at {
				after = append(after, s)
			}
		}

		dir := t.TempDir()
		sum, _, _ = runCkText(t, c.text, dir, c.at)
		if sum.Interrupted != 1 {
			t.Fatalf("%s: first run: %v", c.name, sum)
		}
		if f := checkpointFiles(t, dir); len(f) != 1 {
			t.Fatalf("%s: checkpoints after the interruption: %v", c.name, f)
		}
		sum, log, steps := runCkText(t, c.text, dir, 0)
		if sum.Err() != nil {
			t.Fatal(sum)
		}
		if s := fmt.Sprintf("resumed from step %d", c.at); !strings.Contains(log, s) {
			t.Errorf("%s: log does not say %q:\n%s", c.name, s, log)
		}
		if fmt.Sprint(steps) != fmt.Sprint(after) {
			t.Errorf("%s: the rerun recorded steps %v, want %v", c.name, steps, after)
		}
		got := readResults(t, dir)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s differs from the uninterrupted run's:\n%s\nwant\n%s", c.name, k, got[k], v)
			}
		}
		if f := checkpointFiles(t, dir); len(f) != 0 {
			t.Errorf("%s: checkpoints left after the resumed cell: %v", c.name, f)
		}
	}
}

// TestCellIgnoresBadCheckpoint reruns an interrupted cell whose
// checkpoint was damaged, replaced by a symbolic link, or written for
// another cell: each is ignored with a log line, and the cell starts from
// its beginning and gives the uninterrupted run's CSV.
func TestCellIgnoresBadCheckpoint(t *testing.T) {
	old := CellCheckpointEvery
	defer func() { CellCheckpointEvery = old }()
	CellCheckpointEvery = 0 // a checkpoint at every snapshot

	ref := t.TempDir()
	runCk(t, ref, 0)
	want := readResults(t, ref)
	damage := map[string]func(path string) error{
		"flipped byte": func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b[len(b)-10] ^= 0x40
			return os.WriteFile(path, b, 0o644)
		},
		"truncated": func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(path, b[:len(b)/3], 0o644)
		},
		"symlink": func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			other := path + ".real"
			if err := os.WriteFile(other, b, 0o644); err != nil {
				return err
			}
			os.Remove(path)
			return os.Symlink(other, path)
		},
		"another key": func(path string) error {
			k := &recCheckpoints{log: quiet, path: path}
			return k.write(&cellCheckpoint{Format: cellCheckpointFormat, Key: "other", Cell: "ck/svgd/gauss/s1/n8", CSV: []byte(CSVHeader + "\n")})
		},
	}
	for name, f := range damage {
		dir := t.TempDir()
		if sum, _, _ := runCk(t, dir, 20); sum.Interrupted != 1 {
			t.Fatalf("%s: first run: %v", name, sum)
		}
		files := checkpointFiles(t, dir)
		if len(files) != 1 {
			t.Fatalf("%s: checkpoints %v", name, files)
		}
		if err := f(files[0]); err != nil {
			t.Fatal(err)
		}
		sum, log, steps := runCk(t, dir, 0)
		if sum.Err() != nil {
			t.Errorf("%s: %v", name, sum)
		}
		if !strings.Contains(log, "checkpoint ignored") || strings.Contains(log, "resumed from step") {
			t.Errorf("%s: log does not say the checkpoint was ignored:\n%s", name, log)
		}
		if len(steps) != 61 {
			t.Errorf("%s: the rerun recorded %d snapshots, want 61 (from the start)", name, len(steps))
		}
		got := readResults(t, dir)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s differs from the uninterrupted run's", name, k)
			}
		}
	}
}
