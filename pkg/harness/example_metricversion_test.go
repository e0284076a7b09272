package harness_test

import (
	"context"
	"fmt"
	"os"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A metric registered with a version enters the cache keys of the cells
// that evaluate it: bumping the version makes exactly those cells stale.
func ExampleRegistry_RegisterVersionedMetric() {
	registry := func(version string) *harness.Registry {
		reg := harness.NewRegistry()
		harness.RegisterMethod(reg, "step", "1", func(ctx context.Context, in harness.Input[StepSettings]) (harness.Output, error) {
			return harness.Output{}, nil
		})
		reg.RegisterDataset("gauss", harness.Dataset{
			Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
				return &harness.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}}, nil
			},
		})
		mean := func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
			return func(s particle.Snapshot) float64 { return particle.Set{X: s.X, W: s.W}.Mean(nil)[0] }, nil
		}
		reg.RegisterMetric("mean", mean)
		reg.RegisterVersionedMetric("spread", version, mean)
		return reg
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	key := func(reg *harness.Registry, metrics string) string {
		src := "id = \"demo\"\ndatasets = [\"gauss\"]\nsplits = [0]\n[eval]\nmetrics = " + metrics + "\n[methods.a]\nkind = \"step\"\n"
		e, err := harness.Load(reg, "demo.toml", []byte(src), "")
		if err != nil {
			return err.Error()
		}
		st, err := harness.NewRunner(reg, harness.Options{Results: dir}).Status(harness.Plan([]*harness.Experiment{e})[0])
		if err != nil {
			return err.Error()
		}
		return st.Key
	}
	v1, v2 := registry("1"), registry("2")
	fmt.Println("cell evaluating spread keeps its key:", key(v1, `["mean", "spread"]`) == key(v2, `["mean", "spread"]`))
	fmt.Println("cell evaluating mean only keeps its key:", key(v1, `["mean"]`) == key(v2, `["mean"]`))
	// Output:
	// cell evaluating spread keeps its key: false
	// cell evaluating mean only keeps its key: true
}
