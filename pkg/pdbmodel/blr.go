package pdbmodel

import "encoding/json"

func init() { register("blr", blr) }

// blr is a Bayesian linear regression on a given design (posteriordb data
// sblrc):
//
//	y ~ N(Xβ, σ),   βⱼ ~ N(0, 10),   σ ~ N(0, 10) on (0, ∞).
func blr(data map[string]json.RawMessage) (*Model, error) {
	f := fields{data: data}
	n := f.count("N")
	d := f.count("D")
	X := f.matrix("X", n, d, "N", "D")
	y := f.vector("y", n, "N")
	if f.err == nil && d < 1 {
		f.fail("data key %q = 0: the model needs at least one coefficient", "D")
	}
	if f.err != nil {
		return nil, f.err
	}
	return linearRegression("blr", y, X, []coef{{"beta", d, normal(0, 10)}}, "sigma", normal(0, 10), true), nil
}
