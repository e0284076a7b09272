package toy

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

const exp = `id = "t"
seed = 1
datasets = ["toygauss"]
splits = [1, 3]
[budget]
steps = 30
[eval]
metrics = ["toymean"]
[reference]
kind = "toyref"
particles = 200
settings = { steps = 40 }
[methods.w]
kind = "toywalk"
particles = [20]
`

// TestToy runs the toy experiment: each split's artefacts are computed once
// (logged), and the walk ends near the reference. After 30 steps of η = 0.1
// the mean's bias is 0.9³⁰·μ ≤ 0.13 for μ ≤ 3, and the walk's stationary
// variance σ²/(1−(1−η)²) = 0.47 per coordinate gives the mean of 20
// particles a standard error of 0.15 per coordinate (the reference's is
// smaller): 1.2 is more than five standard errors of the distance.
func TestToy(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log")
	t.Setenv(LogEnv, logPath)
	t.Setenv("SLURM_JOB_ID", "9")
	reg := harness.NewRegistry()
	Register(reg)
	e, err := harness.Load(reg, "t.toml", []byte(exp), "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(reg, harness.Options{Results: dir, Jobs: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cells := harness.Plan([]*harness.Experiment{e})
	if s, err := r.Run(context.Background(), cells); err != nil || s.Done != 2 {
		t.Fatalf("%v %v", s, err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	sort.Strings(lines)
	if want := "map s1 job 9,map s3 job 9,reference s1 job 9,reference s3 job 9"; strings.Join(lines, ",") != want {
		t.Errorf("artefact log %q, want %q", lines, want)
	}
	for _, c := range cells {
		csv, _ := r.Paths(c)
		b, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(b)), "\n")
		f := strings.Split(rows[len(rows)-1], ",")
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil || v > 1.2 || v < 0 {
			t.Errorf("%s: final distance to the reference mean %v (%v)", c.ID, v, err)
		}
		first := strings.Split(rows[1], ",")
		if v0, _ := strconv.ParseFloat(first[len(first)-1], 64); v0 < float64(c.Split)/2 {
			t.Errorf("%s: first distance %v: the walk starts at 0, far from the mean %d", c.ID, v0, c.Split)
		}
	}
}
