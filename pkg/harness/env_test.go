package harness_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestEnvMemoMetricsDataDir: within one cell the loader, the metric
// factories and the method share Env.Memo (each key computed once,
// whichever asks first, errors kept too); Env.Metrics is the experiment's
// metrics in a cell and empty in the reference's own run; Env.DataDir is
// Options.DataDir, "data" when it is empty, in the loader and the
// checksums alike.
func TestEnvMemoMetricsDataDir(t *testing.T) {
	var mu sync.Mutex
	computed := map[string]int{}
	var cellMetrics, refMetrics [][]string
	var dirs []string
	memo := func(env *harness.Env, key string) (any, error) {
		return env.Memo(key, func() (any, error) {
			mu.Lock()
			computed[key]++
			mu.Unlock()
			if key == "bad" {
				return nil, errors.New("bad")
			}
			return new(int), nil
		})
	}
	reg := harness.NewRegistry()
	harness.RegisterMethod(reg, "m", "1", func(ctx context.Context, in harness.Input[struct{}]) (harness.Output, error) {
		if in.N == 0 { // the reference's run
			refMetrics = append(refMetrics, in.Env.Metrics())
			return harness.Output{Set: particle.Set{X: mat.NewDense(1, 1, []float64{0}), W: []float64{1}}}, nil
		}
		cellMetrics = append(cellMetrics, in.Env.Metrics())
		a, _ := memo(in.Env, "shared")
		b, _ := memo(in.Env, "shared")
		if a != b {
			t.Error("Memo gave two values for one key in one cell")
		}
		if _, err := memo(in.Env, "bad"); err == nil {
			t.Error("Memo lost the error")
		}
		// A key computed from another key (mmd2's kernel from the
		// reference) does not wait for itself.
		outer, _ := in.Env.Memo("outer", func() (any, error) { return memo(in.Env, "shared") })
		if outer != a {
			t.Error("a nested Memo gave another value")
		}
		if _, _, err := in.Env.Reference(ctx); err != nil {
			t.Error(err)
		}
		return harness.Output{Set: particle.Set{X: mat.NewDense(1, 1, []float64{0}), W: []float64{1}}}, nil
	})
	reg.RegisterDataset("d", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			mu.Lock()
			dirs = append(dirs, env.DataDir())
			mu.Unlock()
			return &harness.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}}, nil
		},
		Checksums: func(split int, env *harness.Env) (map[string]string, error) {
			mu.Lock()
			dirs = append(dirs, env.DataDir())
			mu.Unlock()
			return map[string]string{"d": "0"}, nil
		},
	})
	reg.RegisterMetric("x", func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		memo(env, "shared")
		memo(env, "bad")
		return func(particle.Snapshot) float64 { return 0 }, nil
	})
	src := `
id = "memo"
datasets = ["d"]
splits = [0, 1]
[eval]
metrics = ["x"]
[reference]
kind = "m"
[methods.a]
kind = "m"
particles = [1]
`
	e, err := harness.Load(reg, "memo.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "elsewhere"} {
		computed, cellMetrics, refMetrics, dirs = map[string]int{}, nil, nil, nil
		r := harness.NewRunner(reg, harness.Options{Results: t.TempDir(), DataDir: dir, Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if sum, err := r.Run(context.Background(), harness.Plan([]*harness.Experiment{e})); err != nil || sum.Done != 2 {
			t.Fatalf("%v %v", sum, err)
		}
		// Two cells: once each per cell.
		if computed["shared"] != 2 || computed["bad"] != 2 {
			t.Errorf("computed %v, want each key twice (once per cell)", computed)
		}
		if len(cellMetrics) != 2 || !slices.Equal(cellMetrics[0], []string{"x"}) {
			t.Errorf("cells' metrics %v, want [x] each", cellMetrics)
		}
		if len(refMetrics) != 2 || len(refMetrics[0]) != 0 {
			t.Errorf("references' metrics %v, want none", refMetrics)
		}
		want := dir
		if want == "" {
			want = harness.DefaultDataDir
		}
		if len(dirs) == 0 {
			t.Fatal("no loader or checksum ran")
		}
		for _, d := range dirs {
			if d != want {
				t.Errorf("data folder %q, want %q", d, want)
			}
		}
	}
}
