package pdbmodel

import "encoding/json"

func init() { register("diamonds", diamonds) }

// diamonds is brms's normal regression of log price on 24 predictors
// (posteriordb data diamonds). brms drops the design's first column (the
// intercept) and centres the others, X꜀ = X₋₁ − column means, so that the
// intercept parameter is that of the centred design:
//
//	Y ~ N(Intercept + X꜀ b, σ),   b ~ N(0, 1),   Intercept ~ t₃(8, 10),
//	σ ~ t₃(0, 10) on (0, ∞),
//
// the likelihood left out when prior_only is not 0. The reference reports
// b, Intercept and σ (not the generated b_Intercept = Intercept − x̄ᵀb);
// the normalising constants Stan's target += keeps are constants here.
func diamonds(data map[string]json.RawMessage) (*Model, error) {
	f := fields{data: data}
	n := f.count("N")
	k := f.count("K")
	y := f.vector("Y", n, "N")
	X := f.matrix("X", n, k, "N", "K")
	priorOnly := f.real("prior_only")
	if f.err == nil && n < 1 {
		f.fail("data key %q = 0: brms's program needs at least one observation", "N")
	}
	if f.err == nil && k < 2 {
		f.fail("data key %q = %d: the model needs the intercept column and at least one predictor", "K", k)
	}
	if f.err != nil {
		return nil, f.err
	}
	kc := k - 1
	Xc := make([]float64, n*k) // X꜀ and a last column of ones
	for j := 1; j < k; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += X[i*k+j]
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			Xc[i*k+j-1] = X[i*k+j] - mean
		}
	}
	for i := 0; i < n; i++ {
		Xc[i*k+kc] = 1
	}
	coefs := []coef{{"b", kc, normal(0, 1)}, {"Intercept", 0, studentT(3, 8, 10)}}
	return linearRegression("diamonds", y, Xc, coefs, "sigma", studentT(3, 0, 10), priorOnly == 0), nil
}
