package pdbmodel

import "encoding/json"

func init() { register("kidscore_momiq", kidscoreMomiq) }

// kidscoreMomiq is ARM's child test score on the mother's IQ (posteriordb
// data kidiq):
//
//	kid_score ~ N(β₁ + β₂ mom_iq, σ),   β flat,   σ ~ Cauchy(0, 2.5) on (0, ∞).
func kidscoreMomiq(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	y := f.Vector("kid_score", n, "N")
	iq := f.Vector("mom_iq", n, "N")
	f.Within("kid_score", y, 0, 200)
	f.Within("mom_iq", iq, 0, 200)
	if f.Err() != nil {
		return nil, f.Err()
	}
	X := Columns(n, Ones(n), iq)
	return LinearRegression("kidscore_momiq", y, X, []Coef{{"beta", 2, Flat()}}, "sigma", Cauchy(0, 2.5), true), nil
}
