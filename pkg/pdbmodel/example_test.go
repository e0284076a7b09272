package pdbmodel_test

import (
	"encoding/json"
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
)

// A posteriordb model bound to its data: the non-centred eight schools,
// whose target lives on (θ̃, μ, log τ) while its draws are reported as the
// reference names them, θ, μ, τ.
func ExampleNew() {
	var data map[string]json.RawMessage
	_ = json.Unmarshal([]byte(`{"J": 2, "y": [28, 8], "sigma": [15, 10]}`), &data)
	m, err := pdbmodel.New("eight_schools_noncentered", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.UnconstrainedNames, "→", m.Names)

	u := []float64{1, -0.5, 4, 0} // θ̃ = (1, −0.5), μ = 4, τ = e⁰ = 1
	g := make([]float64, m.Target.Dim())
	lp := m.Target.LogProbGrad(u, g)
	fmt.Printf("%.4g\n", m.Constrain(nil, u))
	fmt.Printf("log p = %.4f, gradient %.4f\n", lp, g)

	back, err := m.Unconstrain(nil, []float64{5, 3.5, 4, 1})
	fmt.Println(back, err)
	// Output:
	// [theta_trans[1] theta_trans[2] mu tau] → [theta[1] theta[2] mu tau]
	// [5 3.5 4 1]
	// log p = -2.2610, gradient [-0.8978 0.5450 -0.0128 1.0028]
	// [1 -0.5 4 0] <nil>
}
