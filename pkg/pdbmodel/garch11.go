package pdbmodel

import (
	"encoding/json"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

func init() { register("garch11", garch11) }

// garch11 is the GARCH(1, 1) model (posteriordb data garch) with the first
// volatility σ₁ given and flat priors (the Stan program has none) on
// μ, α₀ > 0, α₁ ∈ (0, 1) and β₁ ∈ (0, 1 − α₁), a bound that depends on α₁:
//
//	vₜ = σₜ² = α₀ + α₁(yₜ₋₁ − μ)² + β₁vₜ₋₁ (t ≥ 2),  v₁ = σ₁²,  yₜ ~ N(μ, σₜ).
//
// With rₜ = yₜ − μ, log p = Σₜ −½ log vₜ − rₜ²/(2vₜ). The gradient runs
// forward with the recursion: the tangents of vₜ with respect to
// (μ, α₀, α₁, β₁) obey
//
//	∂vₜ = (−2α₁rₜ₋₁, 1, rₜ₋₁², vₜ₋₁) + β₁ ∂vₜ₋₁,  ∂v₁ = 0,
//
// and ∂log p = Σₜ (rₜ²/vₜ − 1)/(2vₜ) ∂vₜ + (Σₜ rₜ/vₜ) ∂μ.
func garch11(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	T := f.Count("T")
	y := f.Vector("y", T, "T")
	sigma1 := f.Real("sigma1")
	if f.Err() == nil && !(sigma1 >= 0) {
		f.Fail("data key %q = %v: want a non-negative number", "sigma1", sigma1)
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	var s constrain.Space
	s.Real("mu")
	s.Lower("alpha0", 0)
	alpha1 := s.Interval("alpha1", 0, 1)
	s.Bounded("beta1", constrain.Const(0), constrain.Affine(1, -1, alpha1))
	v1 := sigma1 * sigma1
	post := s.Posterior(func(x, grad []float64) float64 {
		mu, a0, a1, b1 := x[0], x[1], x[2], x[3]
		var lp, gmu, g0, g1, gb float64
		v := v1
		var dm, d0, d1, db float64 // ∂v with respect to μ, α₀, α₁, β₁
		for t := 0; t < T; t++ {
			if t > 0 {
				rp := y[t-1] - mu
				dm, d0, d1, db = -2*a1*rp+b1*dm, 1+b1*d0, rp*rp+b1*d1, v+b1*db
				v = a0 + a1*rp*rp + b1*v
			}
			r := y[t] - mu
			lp -= 0.5 * (math.Log(v) + r*r/v)
			w := 0.5 * (r*r/v - 1) / v
			gmu += r/v + w*dm
			g0 += w * d0
			g1 += w * d1
			gb += w * db
		}
		grad[0], grad[1], grad[2], grad[3] = gmu, g0, g1, gb
		return lp
	})
	return FromPosterior("garch11", post), nil
}
