package pdbmodel

import "encoding/json"

func init() { register("kidscore_interaction", kidscoreInteraction) }

// kidscoreInteraction is ARM's child test score on the mother's high-school
// completion and IQ with their interaction (posteriordb data kidiq):
//
//	kid_score ~ N(β₁ + β₂ mom_hs + β₃ mom_iq + β₄ mom_hs·mom_iq, σ),
//	β flat,   σ ~ Cauchy(0, 2.5) on (0, ∞).
func kidscoreInteraction(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	y := f.Vector("kid_score", n, "N")
	iq := f.Vector("mom_iq", n, "N")
	hs := f.Vector("mom_hs", n, "N")
	f.Within("kid_score", y, 0, 200)
	f.Within("mom_iq", iq, 0, 200)
	f.Within("mom_hs", hs, 0, 1)
	if f.Err() != nil {
		return nil, f.Err()
	}
	inter := make([]float64, n)
	for i := range inter {
		inter[i] = hs[i] * iq[i]
	}
	X := Columns(n, Ones(n), hs, iq, inter)
	return LinearRegression("kidscore_interaction", y, X, []Coef{{"beta", 4, Flat()}}, "sigma", Cauchy(0, 2.5), true), nil
}
