package harness_test

import (
	"context"
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Overrides, as repro run --set gives them: applied after the profile,
// checked like the file, recorded in the experiment.
func ExampleLoadSet() {
	reg := harness.NewRegistry()
	harness.RegisterMethod(reg, "step", "1", func(ctx context.Context, in harness.Input[StepSettings]) (harness.Output, error) {
		return harness.Output{}, nil
	})
	reg.RegisterDataset("gauss", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			return &harness.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}}, nil
		},
	})
	reg.RegisterMetric("none", nil)
	src := `
id = "demo"
datasets = ["gauss"]
splits = [0, 1, 2]
[eval]
metrics = ["none"]
[methods.slow]
kind = "step"
settings = { rate = 0.01 }
[profiles.quick]
splits = [0]
`
	e, err := harness.LoadSet(reg, "demo.toml", []byte(src), "quick", []string{"methods.slow.settings.rate=0.5", "splits=[1,2]"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range harness.Cells(e) {
		fmt.Println(c.ID, c.Method.Settings.(StepSettings).Rate)
	}
	fmt.Println(e.Overrides)
	_, err = harness.LoadSet(reg, "demo.toml", []byte(src), "", []string{"methods.slow.settings.rat=0.5"})
	fmt.Println(err)
	// Output:
	// demo/slow/gauss/s1 0.5
	// demo/slow/gauss/s2 0.5
	// [methods.slow.settings.rate=0.5 splits=[1,2]]
	// demo.toml: key methods.slow.settings.rat: --set methods.slow.settings.rat=0.5: unknown key
}
