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
	f := Fields{Data: data}
	n := f.Count("N")
	k := f.Count("K")
	y := f.Vector("Y", n, "N")
	X := f.Matrix("X", n, k, "N", "K")
	priorOnly := f.Real("prior_only")
	if f.Err() == nil && n < 1 {
		f.Fail("data key %q = 0: brms's program needs at least one observation", "N")
	}
	if f.Err() == nil && k < 2 {
		f.Fail("data key %q = %d: the model needs the intercept column and at least one predictor", "K", k)
	}
	if f.Err() != nil {
		return nil, f.Err()
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
	coefs := []Coef{{"b", kc, Normal(0, 1)}, {"Intercept", 0, StudentT(3, 8, 10)}}
	return LinearRegression("diamonds", y, Xc, coefs, "sigma", StudentT(3, 0, 10), priorOnly == 0), nil
}
