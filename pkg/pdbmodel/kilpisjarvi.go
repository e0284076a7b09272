package pdbmodel

import "encoding/json"

func init() { register("kilpisjarvi", kilpisjarvi) }

// kilpisjarvi is a straight-line trend with priors given in the data
// (posteriordb data kilpisjarvi_mod, summer temperatures at Kilpisjärvi by
// year), a flat prior on σ > 0:
//
//	y ~ N(α + βx, σ),   α ~ N(pmualpha, psalpha),   β ~ N(pmubeta, psbeta).
//
// xpred, the year of the Stan program's prediction, plays no part in the
// posterior.
func kilpisjarvi(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	x := f.Vector("x", n, "N")
	y := f.Vector("y", n, "N")
	ma, sa := f.Real("pmualpha"), f.Real("psalpha")
	mb, sb := f.Real("pmubeta"), f.Real("psbeta")
	if f.Err() == nil && !(sa > 0 && sb > 0) {
		f.Fail("data keys psalpha = %v, psbeta = %v: prior scales must be positive", sa, sb)
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	X := Columns(n, Ones(n), x)
	return LinearRegression("kilpisjarvi", y, X, []Coef{{"alpha", 0, Normal(ma, sa)}, {"beta", 0, Normal(mb, sb)}}, "sigma", Flat(), true), nil
}
