package pdbmodel

import "encoding/json"

func init() { register("blr", blr) }

// blr is a Bayesian linear regression on a given design (posteriordb data
// sblrc):
//
//	y ~ N(Xβ, σ),   βⱼ ~ N(0, 10),   σ ~ N(0, 10) on (0, ∞).
func blr(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	d := f.Count("D")
	X := f.Matrix("X", n, d, "N", "D")
	y := f.Vector("y", n, "N")
	if f.Err() == nil && d < 1 {
		f.Fail("data key %q = 0: the model needs at least one coefficient", "D")
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	return LinearRegression("blr", y, X, []Coef{{"beta", d, Normal(0, 10)}}, "sigma", Normal(0, 10), true), nil
}
