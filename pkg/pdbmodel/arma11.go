package pdbmodel

import (
	"encoding/json"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

func init() { register("arma11", arma11) }

// arma11 is the ARMA(1, 1) model (posteriordb data arma), the error before
// the first observation taken as 0 and y₀ as μ:
//
//	ν₁ = μ + φμ,  νₜ = μ + φyₜ₋₁ + θ errₜ₋₁,  errₜ = yₜ − νₜ,  errₜ ~ N(0, σ),
//	μ ~ N(0, 10),  φ, θ ~ N(0, 2),  σ ~ Cauchy(0, 2.5) on (0, ∞).
//
// The gradient runs forward with the recursion: the tangents
// eₜ = ∂errₜ/∂(μ, φ, θ) obey e₁ = (−1 − φ, −μ, 0) and
// eₜ = −(1, yₜ₋₁, errₜ₋₁) − θ eₜ₋₁, and with S = Σerrₜ²
//
//	log p = −μ²/200 − (φ² + θ²)/8 − log(1 + σ²/6.25) − T log σ − S/(2σ²),
//	∂/∂(μ, φ, θ) = −Σ errₜ eₜ/σ² + prior terms,  ∂/∂σ = −2σ/(6.25 + σ²) − T/σ + S/σ³.
func arma11(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	T := f.Count("T")
	y := f.Vector("y", T, "T")
	if f.Err() == nil && T < 1 {
		f.Fail("data key %q = 0: the model needs at least one observation", "T")
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	var s constrain.Space
	s.Real("mu")
	s.Real("phi")
	s.Real("theta")
	s.Lower("sigma", 0)
	post := s.Posterior(func(x, grad []float64) float64 {
		mu, phi, theta, sd := x[0], x[1], x[2], x[3]
		err := y[0] - (mu + phi*mu)
		em, ep, et := -1-phi, -mu, 0.0
		ss := err * err
		gm, gp, gt := err*em, err*ep, err*et
		for t := 1; t < T; t++ {
			em, ep, et = -1-theta*em, -y[t-1]-theta*ep, -err-theta*et
			err = y[t] - (mu + phi*y[t-1] + theta*err)
			ss += err * err
			gm += err * em
			gp += err * ep
			gt += err * et
		}
		iv := 1 / (sd * sd)
		n := float64(T)
		grad[0] = -gm*iv - mu/100
		grad[1] = -gp*iv - phi/4
		grad[2] = -gt*iv - theta/4
		grad[3] = -2*sd/(6.25+sd*sd) - n/sd + ss*iv/sd
		return -mu*mu/200 - (phi*phi+theta*theta)/8 - math.Log1p(sd*sd/6.25) - n*math.Log(sd) - 0.5*ss*iv
	})
	return FromPosterior("arma11", post), nil
}
