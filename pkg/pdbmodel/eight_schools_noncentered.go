package pdbmodel

import (
	"encoding/json"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

func init() { register("eight_schools_noncentered", eightSchoolsNoncentered) }

// eightSchoolsNoncentered is the non-centred hierarchical model of the
// eight schools' coaching effects (posteriordb data eight_schools):
//
//	θ̃ⱼ ~ N(0, 1),  μ ~ N(0, 5),  τ ~ Cauchy(0, 5) on (0, ∞),
//	θⱼ = μ + τθ̃ⱼ,  yⱼ ~ N(θⱼ, σⱼ),
//
// on the unconstrained (θ̃, μ, log τ); the reference reports θ, μ, τ. With
// rⱼ = (yⱼ − θⱼ)/σⱼ,
//
//	log p = −½Σθ̃ⱼ² − μ²/50 − log(1 + τ²/25) − ½Σrⱼ²,
//	∂/∂θ̃ⱼ = −θ̃ⱼ + τrⱼ/σⱼ,  ∂/∂μ = −μ/25 + Σrⱼ/σⱼ,
//	∂/∂τ = −2τ/(25 + τ²) + Σθ̃ⱼrⱼ/σⱼ.
func eightSchoolsNoncentered(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	J := f.Count("J")
	y := f.Vector("y", J, "J")
	sigma := f.Vector("sigma", J, "J")
	f.Positive("sigma", sigma)
	if f.Err() == nil && J < 1 {
		f.Fail("data key %q = 0: the model needs at least one school", "J")
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	var s constrain.Space
	raw := s.Real("theta_trans", J)
	mu := s.Real("mu")
	tau := s.Lower("tau", 0)
	s.Derived("theta", func(dst, x []float64) {
		for j, v := range raw.Slice(x) {
			dst[j] = v*tau.Value(x) + mu.Value(x)
		}
	}, func(x, theta []float64) {
		for j, v := range theta {
			raw.Slice(x)[j] = (v - mu.Value(x)) / tau.Value(x)
		}
	}, J)
	s.Report("theta", "mu", "tau")
	im, it := mu.Offset(), tau.Offset()
	post := s.Posterior(func(x, grad []float64) float64 {
		m, t := x[im], x[it]
		tt, gt := raw.Slice(x), raw.Slice(grad)
		lp := -m*m/50 - math.Log1p(t*t/25)
		grad[im] = -m / 25
		grad[it] = -2 * t / (25 + t*t)
		for j, v := range tt {
			r := (y[j] - (m + t*v)) / sigma[j]
			lp -= 0.5 * (v*v + r*r)
			d := r / sigma[j]
			gt[j] = -v + t*d
			grad[im] += d
			grad[it] += v * d
		}
		return lp
	})
	return FromPosterior("eight_schools_noncentered", post), nil
}
