package pdbmodel

import (
	"encoding/json"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

func init() { register("arK", arK) }

// arK is the autoregressive model of order K (posteriordb data arK), the
// first K observations conditioned on:
//
//	yₜ ~ N(μₜ, σ),  μₜ = α + Σₖ₌₁ᴷ βₖ yₜ₋ₖ,  t = K+1, …, T,
//	α, βₖ ~ N(0, 10),  σ ~ Cauchy(0, 2.5) on (0, ∞).
//
// With rₜ = yₜ − μₜ, n = T − K and S = Σrₜ²,
//
//	log p = −(α² + Σβₖ²)/200 − log(1 + σ²/6.25) − n log σ − S/(2σ²),
//	∂/∂α = −α/100 + Σrₜ/σ²,  ∂/∂βₖ = −βₖ/100 + Σrₜyₜ₋ₖ/σ²,
//	∂/∂σ = −2σ/(6.25 + σ²) − n/σ + S/σ³.
func arK(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	K := f.Count("K")
	T := f.Count("T")
	y := f.Vector("y", T, "T")
	if f.Err() == nil && K < 1 {
		f.Fail("data key %q = 0: the model needs at least one lag", "K")
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	var s constrain.Space
	alpha := s.Real("alpha")
	beta := s.Real("beta", K)
	sigma := s.Lower("sigma", 0)
	ia, is := alpha.Offset(), sigma.Offset()
	post := s.Posterior(func(x, grad []float64) float64 {
		a, sd := x[ia], x[is]
		b, gb := beta.Slice(x), beta.Slice(grad)
		var ss, ga float64
		for t := K; t < T; t++ {
			mu := a
			for k, bk := range b {
				mu += bk * y[t-1-k]
			}
			r := y[t] - mu
			ss += r * r
			ga += r
			for k := range gb {
				gb[k] += r * y[t-1-k]
			}
		}
		iv := 1 / (sd * sd)
		n := float64(max(T-K, 0))
		lp := -a*a/200 - math.Log1p(sd*sd/6.25) - n*math.Log(sd) - 0.5*ss*iv
		grad[ia] = ga*iv - a/100
		for k, bk := range b {
			lp -= bk * bk / 200
			gb[k] = gb[k]*iv - bk/100
		}
		grad[is] = -2*sd/(6.25+sd*sd) - n/sd + ss*iv/sd
		return lp
	})
	return FromPosterior("arK", post), nil
}
