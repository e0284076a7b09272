package pdbmodel

import (
	"math"
	"math/rand/v2"
)

// modelCase is one model's test material: synthetic data and an
// independent log density written from its model.stan.
type modelCase struct {
	model  string // posteriordb's model name
	folder string // the staged posterior that uses it
	synth  func(rng *rand.Rand) map[string]any
	// ref returns the log density at the unconstrained point u, the
	// transforms and their log-Jacobian spelled out by hand, and the
	// values the reference names (in Names order).
	ref func(d tdata, u []float64) (lp float64, named []float64)
}

func uniforms(rng *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}

func integers(rng *rand.Rand, n, lo, hi int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(lo + rng.IntN(hi-lo+1))
	}
	return v
}

func normals(rng *rand.Rand, n int, mu, sd float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = mu + sd*rng.NormFloat64()
	}
	return v
}

// regressionRef is y ~ normal(eta, sigma) summed over rows: the
// likelihood of the regression models, written out.
func regressionRef(y []float64, eta func(i int) float64, sigma float64) float64 {
	var lp float64
	for i, v := range y {
		lp += normLP(v, eta(i), sigma)
	}
	return lp
}

var cases = []modelCase{
	{
		model: "eight_schools_noncentered", folder: "eight_schools-eight_schools_noncentered",
		synth: func(rng *rand.Rand) map[string]any {
			return map[string]any{"J": 5, "y": normals(rng, 5, 5, 10), "sigma": uniforms(rng, 5, 5, 20)}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			J, y, sigma := d.int("J"), d.vec("y"), d.vec("sigma")
			mu, tau := u[J], math.Exp(u[J+1])
			lp := u[J+1] // tau = exp(u)
			var named []float64
			for j := 0; j < J; j++ {
				theta := u[j]*tau + mu
				lp += normLP(u[j], 0, 1) + normLP(y[j], theta, sigma[j])
				named = append(named, theta)
			}
			lp += normLP(mu, 0, 5) + cauchyLP(tau, 0, 5)
			return lp, append(named, mu, tau)
		},
	},
	{
		model: "arK", folder: "arK-arK",
		synth: func(rng *rand.Rand) map[string]any {
			y := make([]float64, 40)
			for t := 1; t < len(y); t++ {
				y[t] = 0.6*y[t-1] + 0.3*rng.NormFloat64()
			}
			return map[string]any{"K": 3, "T": 40, "y": y}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			K, T, y := d.int("K"), d.int("T"), d.vec("y")
			alpha, beta, sigma := u[0], u[1:K+1], math.Exp(u[K+1])
			lp := u[K+1] + normLP(alpha, 0, 10) + cauchyLP(sigma, 0, 2.5)
			for _, b := range beta {
				lp += normLP(b, 0, 10)
			}
			for t := K + 1; t <= T; t++ { // 1-based, as in the Stan code
				mu := alpha
				for k := 1; k <= K; k++ {
					mu += beta[k-1] * y[t-k-1]
				}
				lp += normLP(y[t-1], mu, sigma)
			}
			return lp, append(append([]float64{alpha}, beta...), sigma)
		},
	},
	{
		model: "arma11", folder: "arma-arma11",
		synth: func(rng *rand.Rand) map[string]any {
			y := make([]float64, 40)
			e := 0.0
			for t := 1; t < len(y); t++ {
				en := 0.2 * rng.NormFloat64()
				y[t] = 0.1 + 0.8*y[t-1] + 0.3*e + en
				e = en
			}
			return map[string]any{"T": 40, "y": y}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			T, y := d.int("T"), d.vec("y")
			mu, phi, theta, sigma := u[0], u[1], u[2], math.Exp(u[3])
			lp := u[3] + normLP(mu, 0, 10) + normLP(phi, 0, 2) + normLP(theta, 0, 2) + cauchyLP(sigma, 0, 2.5)
			nu, err := make([]float64, T+1), make([]float64, T+1) // 1-based
			nu[1] = mu + phi*mu
			err[1] = y[0] - nu[1]
			for t := 2; t <= T; t++ {
				nu[t] = mu + phi*y[t-2] + theta*err[t-1]
				err[t] = y[t-1] - nu[t]
			}
			for t := 1; t <= T; t++ {
				lp += normLP(err[t], 0, sigma)
			}
			return lp, []float64{mu, phi, theta, sigma}
		},
	},
	{
		model: "garch11", folder: "garch-garch11",
		synth: func(rng *rand.Rand) map[string]any {
			return map[string]any{"T": 40, "y": normals(rng, 40, 5, 1), "sigma1": 0.5}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			T, y, sigma1 := d.int("T"), d.vec("y"), d.num("sigma1")
			mu := u[0]
			alpha0 := math.Exp(u[1])
			l2, l3 := logistic(u[2]), logistic(u[3])
			alpha1 := l2
			beta1 := (1 - alpha1) * l3
			// log-Jacobians: α₀ = eᵘ; α₁ = σ(u); β₁ = (1 − α₁)σ(u).
			lp := u[1] + math.Log(l2*(1-l2)) + math.Log(1-alpha1) + math.Log(l3*(1-l3))
			sigma := make([]float64, T)
			sigma[0] = sigma1
			for t := 1; t < T; t++ {
				sigma[t] = math.Sqrt(alpha0 + alpha1*(y[t-1]-mu)*(y[t-1]-mu) + beta1*sigma[t-1]*sigma[t-1])
			}
			for t := range y {
				lp += normLP(y[t], mu, sigma[t])
			}
			return lp, []float64{mu, alpha0, alpha1, beta1}
		},
	},
	{
		model: "low_dim_gauss_mix", folder: "low_dim_gauss_mix-low_dim_gauss_mix",
		synth: func(rng *rand.Rand) map[string]any {
			y := make([]float64, 50)
			for i := range y {
				if rng.Float64() < 0.4 {
					y[i] = -2 + rng.NormFloat64()
				} else {
					y[i] = 2 + rng.NormFloat64()
				}
			}
			return map[string]any{"N": 50, "y": y}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			y := d.vec("y")
			mu1 := u[0]
			mu2 := mu1 + math.Exp(u[1]) // ordered
			s1, s2 := math.Exp(u[2]), math.Exp(u[3])
			theta := logistic(u[4])
			lp := u[1] + u[2] + u[3] + math.Log(theta*(1-theta))
			lp += normLP(s1, 0, 2) + normLP(s2, 0, 2) + normLP(mu1, 0, 2) + normLP(mu2, 0, 2) + betaLP(theta, 5, 5)
			for _, v := range y {
				a := math.Log(theta) + normLP(v, mu1, s1)
				b := math.Log1p(-theta) + normLP(v, mu2, s2)
				m := math.Max(a, b)
				lp += m + math.Log(math.Exp(a-m)+math.Exp(b-m)) // log_mix
			}
			return lp, []float64{mu1, mu2, s1, s2, theta}
		},
	},
	{
		model: "kidscore_momiq", folder: "kidiq-kidscore_momiq",
		synth: kidiqSynth,
		ref: func(d tdata, u []float64) (float64, []float64) {
			ks, iq := d.vec("kid_score"), d.vec("mom_iq")
			sigma := math.Exp(u[2])
			lp := u[2] + cauchyLP(sigma, 0, 2.5)
			lp += regressionRef(ks, func(i int) float64 { return u[0] + u[1]*iq[i] }, sigma)
			return lp, []float64{u[0], u[1], sigma}
		},
	},
	{
		model: "kidscore_interaction", folder: "kidiq-kidscore_interaction",
		synth: kidiqSynth,
		ref: func(d tdata, u []float64) (float64, []float64) {
			ks, iq, hs := d.vec("kid_score"), d.vec("mom_iq"), d.vec("mom_hs")
			sigma := math.Exp(u[4])
			lp := u[4] + cauchyLP(sigma, 0, 2.5)
			lp += regressionRef(ks, func(i int) float64 {
				return u[0] + u[1]*hs[i] + u[2]*iq[i] + u[3]*hs[i]*iq[i]
			}, sigma)
			return lp, []float64{u[0], u[1], u[2], u[3], sigma}
		},
	},
	{
		model: "logearn_interaction", folder: "earnings-logearn_interaction",
		synth: func(rng *rand.Rand) map[string]any {
			return map[string]any{"N": 30, "earn": integers(rng, 30, 1000, 80000),
				"height": integers(rng, 30, 58, 78), "male": integers(rng, 30, 0, 1)}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			earn, h, m := d.vec("earn"), d.vec("height"), d.vec("male")
			sigma := math.Exp(u[4])
			y := make([]float64, len(earn))
			for i := range y {
				y[i] = math.Log(earn[i])
			}
			lp := u[4] + regressionRef(y, func(i int) float64 {
				return u[0] + u[1]*h[i] + u[2]*m[i] + u[3]*h[i]*m[i]
			}, sigma)
			return lp, []float64{u[0], u[1], u[2], u[3], sigma}
		},
	},
	{
		model: "logmesquite", folder: "mesquite-logmesquite",
		synth: func(rng *rand.Rand) map[string]any {
			n := 20
			return map[string]any{"N": n, "weight": uniforms(rng, n, 50, 3000), "diam1": uniforms(rng, n, 0.8, 4),
				"diam2": uniforms(rng, n, 0.4, 3), "canopy_height": uniforms(rng, n, 0.5, 2.5),
				"total_height": uniforms(rng, n, 0.6, 3), "density": integers(rng, n, 1, 9), "group": integers(rng, n, 0, 1)}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			lg := func(key string) []float64 {
				v := d.vec(key)
				for i := range v {
					v[i] = math.Log(v[i])
				}
				return v
			}
			w, d1, d2, ch, th, den, g := lg("weight"), lg("diam1"), lg("diam2"), lg("canopy_height"), lg("total_height"), lg("density"), d.vec("group")
			sigma := math.Exp(u[7])
			lp := u[7] + regressionRef(w, func(i int) float64 {
				return u[0] + u[1]*d1[i] + u[2]*d2[i] + u[3]*ch[i] + u[4]*th[i] + u[5]*den[i] + u[6]*g[i]
			}, sigma)
			return lp, append(append([]float64(nil), u[:7]...), sigma)
		},
	},
	{
		model: "nes", folder: "nes2000-nes",
		synth: func(rng *rand.Rand) map[string]any {
			n := 40
			return map[string]any{"N": n, "partyid7": integers(rng, n, 1, 7), "real_ideo": integers(rng, n, 1, 7),
				"race_adj": integers(rng, n, 1, 2), "educ1": integers(rng, n, 1, 4), "gender": integers(rng, n, 1, 2),
				"income": integers(rng, n, 1, 5), "age_discrete": integers(rng, n, 1, 4)}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			p, ideo, race, educ, gender, income, age := d.vec("partyid7"), d.vec("real_ideo"), d.vec("race_adj"),
				d.vec("educ1"), d.vec("gender"), d.vec("income"), d.vec("age_discrete")
			is := func(b bool) float64 {
				if b {
					return 1
				}
				return 0
			}
			sigma := math.Exp(u[9])
			lp := u[9] + regressionRef(p, func(n int) float64 {
				return u[0] + u[1]*ideo[n] + u[2]*race[n] + u[3]*is(age[n] == 2) + u[4]*is(age[n] == 3) +
					u[5]*is(age[n] == 4) + u[6]*educ[n] + u[7]*gender[n] + u[8]*income[n]
			}, sigma)
			return lp, append(append([]float64(nil), u[:9]...), sigma)
		},
	},
	{
		model: "blr", folder: "sblrc-blr",
		synth: func(rng *rand.Rand) map[string]any {
			n, D := 25, 3
			X := make([][]float64, n)
			for i := range X {
				X[i] = normals(rng, D, 0, 1)
			}
			return map[string]any{"N": n, "D": D, "X": X, "y": normals(rng, n, 1, 3)}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			D, X, y := d.int("D"), d.mat("X"), d.vec("y")
			sigma := math.Exp(u[D])
			lp := u[D] + normLP(sigma, 0, 10)
			for j := 0; j < D; j++ {
				lp += normLP(u[j], 0, 10)
			}
			lp += regressionRef(y, func(i int) float64 {
				var e float64
				for j := 0; j < D; j++ {
					e += X[i][j] * u[j]
				}
				return e
			}, sigma)
			return lp, append(append([]float64(nil), u[:D]...), sigma)
		},
	},
	{
		model: "kilpisjarvi", folder: "kilpisjarvi_mod-kilpisjarvi",
		synth: func(rng *rand.Rand) map[string]any {
			n := 20
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(1990 + i)
			}
			return map[string]any{"N": n, "x": x, "y": normals(rng, n, 9, 1), "xpred": 2016,
				"pmualpha": 9.3, "psalpha": 100, "pmubeta": 0, "psbeta": 1.0 / 30}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			x, y := d.vec("x"), d.vec("y")
			sigma := math.Exp(u[2])
			lp := u[2] + normLP(u[0], d.num("pmualpha"), d.num("psalpha")) + normLP(u[1], d.num("pmubeta"), d.num("psbeta"))
			lp += regressionRef(y, func(i int) float64 { return u[0] + u[1]*x[i] }, sigma)
			return lp, []float64{u[0], u[1], sigma}
		},
	},
	{
		model: "diamonds", folder: "diamonds-diamonds",
		synth: func(rng *rand.Rand) map[string]any {
			n, K := 30, 5
			X := make([][]float64, n)
			for i := range X {
				X[i] = append([]float64{1}, normals(rng, K-1, 0.5, 1)...)
			}
			return map[string]any{"N": n, "K": K, "X": X, "Y": normals(rng, n, 7.8, 1), "prior_only": 0}
		},
		ref: func(d tdata, u []float64) (float64, []float64) {
			K, X, Y := d.int("K"), d.mat("X"), d.vec("Y")
			Kc := K - 1
			means := make([]float64, Kc)
			for i := 2; i <= K; i++ { // 1-based columns, as in the Stan code
				for n := range X {
					means[i-2] += X[n][i-1]
				}
				means[i-2] /= float64(len(X))
			}
			b, intercept, sigma := u[:Kc], u[Kc], math.Exp(u[Kc+1])
			lp := u[Kc+1]
			for _, v := range b {
				lp += normLP(v, 0, 1)
			}
			lp += studentLP(intercept, 3, 8, 10) + studentLP(sigma, 3, 0, 10)
			if d.int("prior_only") == 0 {
				lp += regressionRef(Y, func(n int) float64 {
					e := intercept
					for j := 0; j < Kc; j++ {
						e += (X[n][j+1] - means[j]) * b[j]
					}
					return e
				}, sigma)
			}
			return lp, append(append([]float64(nil), u[:Kc+1]...), sigma)
		},
	},
}

func kidiqSynth(rng *rand.Rand) map[string]any {
	n := 30
	return map[string]any{"N": n, "kid_score": integers(rng, n, 20, 150), "mom_iq": uniforms(rng, n, 70, 140),
		"mom_hs": integers(rng, n, 0, 1), "mom_hs_new": 1, "mom_iq_new": 100}
}
