package pdbmodel

import "encoding/json"

func init() { register("kidscore_interaction", kidscoreInteraction) }

// kidscoreInteraction is ARM's child test score on the mother's high-school
// completion and IQ with their interaction (posteriordb data kidiq):
//
//	kid_score ~ N(β₁ + β₂ mom_hs + β₃ mom_iq + β₄ mom_hs·mom_iq, σ),
//	β flat,   σ ~ Cauchy(0, 2.5) on (0, ∞).
func kidscoreInteraction(data map[string]json.RawMessage) (*Model, error) {
	f := fields{data: data}
	n := f.count("N")
	y := f.vector("kid_score", n, "N")
	iq := f.vector("mom_iq", n, "N")
	hs := f.vector("mom_hs", n, "N")
	f.within("kid_score", y, 0, 200)
	f.within("mom_iq", iq, 0, 200)
	f.within("mom_hs", hs, 0, 1)
	if f.err != nil {
		return nil, f.err
	}
	inter := make([]float64, n)
	for i := range inter {
		inter[i] = hs[i] * iq[i]
	}
	X := columns(n, ones(n), hs, iq, inter)
	return linearRegression("kidscore_interaction", y, X, []coef{{"beta", 4, flat()}}, "sigma", cauchy(0, 2.5), true), nil
}
