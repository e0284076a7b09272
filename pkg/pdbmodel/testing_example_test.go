package pdbmodel_test

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A test registers a model of its own under a model name, so that code
// that builds models by posteriordb's name (New) runs on it: here sigma ~
// log-normal(0, 1), whose unconstrained coordinate log sigma is N(0, 1).
func ExampleRegisterForTest() {
	remove := pdbmodel.RegisterForTest("lognormal_test", func(data map[string]json.RawMessage) (*pdbmodel.Model, error) {
		return &pdbmodel.Model{
			Name: "lognormal_test",
			Target: target.Func{D: 1, F: func(u, grad []float64) float64 {
				grad[0] = -u[0]
				return -u[0] * u[0] / 2
			}},
			Names: []string{"sigma"},
			Constrain: func(dst, u []float64) []float64 {
				if dst == nil {
					dst = make([]float64, 1)
				}
				dst[0] = math.Exp(u[0])
				return dst
			},
		}, nil
	})
	defer remove()
	m, err := pdbmodel.New("lognormal_test", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Names, m.Constrain(nil, []float64{0}))
	// Output:
	// [sigma] [1]
}
