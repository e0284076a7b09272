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
	f := fields{data: data}
	n := f.count("N")
	x := f.vector("x", n, "N")
	y := f.vector("y", n, "N")
	ma, sa := f.real("pmualpha"), f.real("psalpha")
	mb, sb := f.real("pmubeta"), f.real("psbeta")
	if f.err == nil && !(sa > 0 && sb > 0) {
		f.fail("data keys psalpha = %v, psbeta = %v: prior scales must be positive", sa, sb)
	}
	if f.err != nil {
		return nil, f.err
	}
	X := columns(n, ones(n), x)
	return linearRegression("kilpisjarvi", y, X, []coef{{"alpha", 0, normal(ma, sa)}, {"beta", 0, normal(mb, sb)}}, "sigma", flat(), true), nil
}
