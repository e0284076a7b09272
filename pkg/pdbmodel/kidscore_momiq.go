package pdbmodel

import "encoding/json"

func init() { register("kidscore_momiq", kidscoreMomiq) }

// kidscoreMomiq is ARM's child test score on the mother's IQ (posteriordb
// data kidiq):
//
//	kid_score ~ N(β₁ + β₂ mom_iq, σ),   β flat,   σ ~ Cauchy(0, 2.5) on (0, ∞).
func kidscoreMomiq(data map[string]json.RawMessage) (*Model, error) {
	f := fields{data: data}
	n := f.count("N")
	y := f.vector("kid_score", n, "N")
	iq := f.vector("mom_iq", n, "N")
	f.within("kid_score", y, 0, 200)
	f.within("mom_iq", iq, 0, 200)
	if f.err != nil {
		return nil, f.err
	}
	X := columns(n, ones(n), iq)
	return linearRegression("kidscore_momiq", y, X, []coef{{"beta", 2, flat()}}, "sigma", cauchy(0, 2.5), true), nil
}
