package pdbmodel

import "encoding/json"

func init() { register("logearn_interaction", logearnInteraction) }

// logearnInteraction is ARM's log earnings on height and sex with their
// interaction (posteriordb data earnings), under flat priors on β and on
// σ > 0 (the Stan program gives them none):
//
//	log earn ~ N(β₁ + β₂ height + β₃ male + β₄ height·male, σ).
func logearnInteraction(data map[string]json.RawMessage) (*Model, error) {
	f := fields{data: data}
	n := f.count("N")
	earn := f.vector("earn", n, "N")
	height := f.vector("height", n, "N")
	male := f.vector("male", n, "N")
	y := f.logOf("earn", earn)
	if f.err != nil {
		return nil, f.err
	}
	inter := make([]float64, n)
	for i := range inter {
		inter[i] = height[i] * male[i]
	}
	X := columns(n, ones(n), height, male, inter)
	return linearRegression("logearn_interaction", y, X, []coef{{"beta", 4, flat()}}, "sigma", flat(), true), nil
}
