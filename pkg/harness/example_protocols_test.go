package harness_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A method's protocols key declares the arm the report reads for its kind
// under the paper's and the fair protocol.
func ExampleMethod_protocols() {
	reg := harness.NewRegistry()
	harness.RegisterMethod(reg, "step", "1", func(ctx context.Context, in harness.Input[StepSettings]) (harness.Output, error) {
		return harness.Output{}, nil
	})
	reg.RegisterDataset("gauss", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			return &harness.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}}, nil
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
splits = [0]
[eval]
metrics = ["mean"]
[methods.reference]
kind = "step"
protocols = ["paper", "fair"]
[methods.tuned]
kind = "step"
protocols = ["fair"]
settings = { rate = 0.05 }
`
	// Two arms of kind step claim the fair protocol: refused at the line.
	_, err := harness.Load(reg, "demo.toml", []byte(src), "")
	fmt.Println(err)
	// The reference arm is the paper's, the tuned one the fair protocol's.
	e, err := harness.Load(reg, "demo.toml", []byte(strings.Replace(src, `["paper", "fair"]`, `["paper"]`, 1)), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range e.Methods {
		fmt.Println(m.Name, m.Protocols)
	}
	// Output:
	// demo.toml:12: key methods.tuned.protocols: methods "reference" and "tuned" of kind "step" both claim protocol "fair" (one arm per kind and protocol)
	// reference [paper]
	// tuned [fair]
}
