package harness_test

import (
	"context"
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// An experiment file declares its figures; a name the experiment does not
// know is an error at the figure's line.
func Example_figures() {
	reg := harness.NewRegistry()
	harness.RegisterMethod(reg, "step", "1", func(ctx context.Context, in harness.Input[StepSettings]) (harness.Output, error) {
		return harness.Output{}, nil
	})
	reg.RegisterDataset("gauss", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			return &harness.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 {
				g[0] = -x[0]
				return -x[0] * x[0] / 2
			}}}, nil
		},
	})
	reg.RegisterMetric("mean", func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		return func(s particle.Snapshot) float64 { return particle.Set{X: s.X, W: s.W}.Mean(nil)[0] }, nil
	})
	src := `
id = "demo"
datasets = ["gauss"]
splits = [0, 1]
[eval]
metrics = ["mean"]
[methods.slow]
kind = "step"
settings = { rate = 0.01 }
[methods.fast]
kind = "step"
settings = { rate = 0.5 }

[[figures]]
id = "demo-mean"
x = "gradients"
y = "mean"
where = { rate = 0.5 }
`
	e, err := harness.Load(reg, "demo.toml", []byte(src), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	f := e.Figures[0]
	fmt.Println(f.ID, f.Title, f.X, f.Y, f.Methods, f.Band)
	_, err = harness.Load(reg, "demo.toml", []byte(src+"methods = [\"medium\"]\n"), "")
	fmt.Println(err)
	// Output:
	// demo-mean demo gradients [mean] [fast] sd
	// demo.toml:19: key figures[0].methods: figure "demo-mean": unknown method "medium" (the experiment's methods: slow, fast)
}
