package repro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// The test method kind "test-judge" returns one particle at the origin
// and, with flag = true, flags its result; the metric "test-first" is its
// first coordinate.
type judgeSettings struct {
	Flag bool `toml:"flag"`
}

func registerJudge(r *harness.Registry) {
	harness.RegisterMethod(r, "test-judge", "1", func(ctx context.Context, in harness.Input[judgeSettings]) (harness.Output, error) {
		set := particle.Set{X: mat.NewDense(1, 2, nil), W: []float64{1}}
		if in.Settings.Flag {
			set.Diag.Raise("ceiling", "stopped at the iteration ceiling before the tolerance")
		}
		return harness.Output{Set: set}, nil
	})
	r.RegisterMetric("test-first", func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		return func(s particle.Snapshot) float64 { return s.X.At(0, 0) }, nil
	})
}

const judgeTOML = `
id = "judged"
datasets = ["test-normal2"]
splits = [1]
[eval]
metrics = ["test-first"]
[methods.suspect]
kind = "test-judge"
settings = { flag = true }
[methods.sound]
kind = "test-judge"
`

// repro run lists a flagged result and exits 0; with --strict the cell
// fails with the reason and the run exits 1; the report lists it.
func TestRunStrict(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "judged.toml")
	if err := os.WriteFile(file, []byte(judgeTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "results")
	code, stderr := runRepro(t, "run", file, "--results", res)
	if code != 0 || !strings.Contains(stderr, "2 cells: 2 done (0 cached)") ||
		!strings.Contains(stderr, "flagged: judged/suspect/test-normal2/s1: ceiling: stopped at the iteration ceiling before the tolerance") {
		t.Errorf("run: exit %d\n%s", code, stderr)
	}
	code, stderr = runRepro(t, "run", file, "--results", res, "--strict")
	if code != 1 || !strings.Contains(stderr, "failed: judged/suspect/test-normal2/s1: suspect: result flagged (cached; --force recomputes it): ceiling: stopped") {
		t.Errorf("strict run over the cached results: exit %d\n%s", code, stderr)
	}
	strict := filepath.Join(dir, "strict")
	code, stderr = runRepro(t, "run", file, "--results", strict, "--strict")
	if code != 1 || !strings.Contains(stderr, "1 failed") || !strings.Contains(stderr, "failed: judged/suspect/test-normal2/s1: suspect: result flagged: ceiling: stopped") {
		t.Errorf("strict run: exit %d\n%s", code, stderr)
	}
	p, err := harness.ReadProvenance(filepath.Join(strict, "base", "judged", "suspect", "test-normal2", "s1.json"))
	if err != nil || p.Status != harness.Failed || !p.Diagnostics.Flagged() || !strings.Contains(p.Error, "result flagged: ceiling") {
		t.Errorf("provenance of the strict cell: %+v, %v", p, err)
	}
	out := filepath.Join(dir, "R.md")
	if code, stderr := runRepro(t, "report", file, "--results", res, "--figures", filepath.Join(dir, "figures"), "--out", out); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "## Flagged results") ||
		!strings.Contains(string(b), "| `judged/suspect/test-normal2/s1` | suspect | ceiling: stopped at the iteration ceiling before the tolerance |") {
		t.Errorf("report: %v\n%s", err, b)
	}
}
