package pdbmodel

import (
	"encoding/json"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

func init() { register("low_dim_gauss_mix", lowDimGaussMix) }

// lowDimGaussMix is a two-component normal mixture (posteriordb data
// low_dim_gauss_mix) with ordered means μ₁ < μ₂:
//
//	yₙ ~ θ N(μ₁, σ₁) + (1 − θ) N(μ₂, σ₂),
//	μₖ ~ N(0, 2),  σₖ ~ N(0, 2) on (0, ∞),  θ ~ Beta(5, 5).
//
// With ℓₙₖ = log of the k-th weighted component density and
// wₙₖ = exp(ℓₙₖ − log Σₖ exp ℓₙₖ) the responsibilities, zₙₖ = (yₙ − μₖ)/σₖ,
//
//	∂/∂μₖ = Σₙ wₙₖ zₙₖ/σₖ − μₖ/4,  ∂/∂σₖ = Σₙ wₙₖ (zₙₖ² − 1)/σₖ − σₖ/4,
//	∂/∂θ = Σₙ (wₙ₁/θ − wₙ₂/(1 − θ)) + 4/θ − 4/(1 − θ).
func lowDimGaussMix(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	y := f.Vector("y", n, "N")
	if f.Err() != nil {
		return nil, f.Err()
	}
	var s constrain.Space
	s.Ordered("mu", 2)
	s.Lower("sigma", 0, 2)
	s.Interval("theta", 0, 1)
	post := s.Posterior(func(x, grad []float64) float64 {
		m1, m2, s1, s2, th := x[0], x[1], x[2], x[3], x[4]
		lw1, lw2 := math.Log(th)-math.Log(s1), math.Log1p(-th)-math.Log(s2)
		var lp, g1, g2, gs1, gs2, gth float64
		for _, v := range y {
			z1, z2 := (v-m1)/s1, (v-m2)/s2
			l1, l2 := lw1-0.5*z1*z1, lw2-0.5*z2*z2
			hi := math.Max(l1, l2)
			e1, e2 := math.Exp(l1-hi), math.Exp(l2-hi)
			sum := e1 + e2
			lp += hi + math.Log(sum)
			w1, w2 := e1/sum, e2/sum
			g1 += w1 * z1
			g2 += w2 * z2
			gs1 += w1 * (z1*z1 - 1)
			gs2 += w2 * (z2*z2 - 1)
			gth += w1/th - w2/(1-th)
		}
		lp += -(m1*m1+m2*m2+s1*s1+s2*s2)/8 + 4*math.Log(th) + 4*math.Log1p(-th)
		grad[0] = g1/s1 - m1/4
		grad[1] = g2/s2 - m2/4
		grad[2] = gs1/s1 - s1/4
		grad[3] = gs2/s2 - s2/4
		grad[4] = gth + 4/th - 4/(1-th)
		return lp
	})
	return FromPosterior("low_dim_gauss_mix", post), nil
}
