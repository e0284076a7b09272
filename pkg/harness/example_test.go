package harness_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// StepSettings are the settings of a method: the zero value is usable.
type StepSettings struct {
	// Rate is the step size (0.1 when zero).
	Rate float64 `toml:"rate"`
}

func Example() {
	reg := harness.NewRegistry()
	harness.RegisterMethod(reg, "step", "1", func(ctx context.Context, in harness.Input[StepSettings]) (harness.Output, error) {
		// A real wiring calls the method package's Run here.
		return harness.Output{}, nil
	})
	reg.RegisterDataset("gauss", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			return &harness.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 {
				g[0] = -x[0]
				return -x[0] * x[0] / 2
			}}}, nil
		},
		Checksums: func(split int, env *harness.Env) (map[string]string, error) {
			return map[string]string{"gauss.csv": "00"}, nil
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
particles = [10, 100]
settings = { rate = 0.01 }
[profiles.quick]
splits = [0]
`
	for _, profile := range []string{"", "quick"} {
		e, err := harness.Load(reg, "demo.toml", []byte(src), profile)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range harness.Plan([]*harness.Experiment{e}) {
			fmt.Println(profile, c.Index, c.ID, c.Method.Settings.(StepSettings).Rate)
		}
	}
	// A misspelled setting is caught at its line.
	_, err := harness.Load(reg, "demo.toml", []byte(strings.Replace(src, "rate", "rat", 1)), "quick")
	fmt.Println(err)

	// Output:
	//  0 demo/slow/gauss/s0/n10 0.01
	//  1 demo/slow/gauss/s0/n100 0.01
	//  2 demo/slow/gauss/s1/n10 0.01
	//  3 demo/slow/gauss/s1/n100 0.01
	// quick 0 demo/slow/gauss/s0/n10 0.01
	// quick 1 demo/slow/gauss/s0/n100 0.01
	// demo.toml:10: key methods.slow.settings.rat: unknown key
}
