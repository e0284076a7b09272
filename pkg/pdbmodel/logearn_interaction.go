package pdbmodel

import "encoding/json"

func init() { register("logearn_interaction", logearnInteraction) }

// logearnInteraction is ARM's log earnings on height and sex with their
// interaction (posteriordb data earnings), under flat priors on β and on
// σ > 0 (the Stan program gives them none):
//
//	log earn ~ N(β₁ + β₂ height + β₃ male + β₄ height·male, σ).
func logearnInteraction(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	earn := f.Vector("earn", n, "N")
	height := f.Vector("height", n, "N")
	male := f.Vector("male", n, "N")
	y := f.LogOf("earn", earn)
	if f.Err() != nil {
		return nil, f.Err()
	}
	inter := make([]float64, n)
	for i := range inter {
		inter[i] = height[i] * male[i]
	}
	X := Columns(n, Ones(n), height, male, inter)
	return LinearRegression("logearn_interaction", y, X, []Coef{{"beta", 4, Flat()}}, "sigma", Flat(), true), nil
}
