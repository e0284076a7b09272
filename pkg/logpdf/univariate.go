package logpdf

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

const (
	logPi      = 1.1447298858494002 // log π
	halfLog2Pi = 0.9189385332046728 // ½ log 2π
)

// Normal returns the log density of N(μ, σ²) at x and its partial
// derivatives with respect to x, μ and σ:
//
//	z = (x − μ)/σ,
//	log p = −½z² − log σ − ½ log 2π,
//	∂/∂x = −z/σ,  ∂/∂μ = z/σ,  ∂/∂σ = (z² − 1)/σ.
//
// It panics if σ is not positive and finite.
func Normal(x, mu, sigma float64) (lp, dx, dmu, dsigma float64) {
	checkScale("Normal", "sigma", sigma)
	z := (x - mu) / sigma
	g := z / sigma
	return -0.5*z*z - math.Log(sigma) - halfLog2Pi, -g, g, (z*z - 1) / sigma
}

// StudentT returns the log density of Student's t with ν degrees of
// freedom, location μ and scale σ at x, and its partial derivatives with
// respect to x, ν, μ and σ (Stan's student_t(ν, μ, σ)):
//
//	z = (x − μ)/σ,  q = 1 + z²/ν,
//	log p = log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) − log σ − ((ν+1)/2) log q,
//	∂/∂x = −(ν+1)z/(νqσ),  ∂/∂μ = −∂/∂x,  ∂/∂σ = ((ν+1)z²/(νq) − 1)/σ,
//	∂/∂ν = ½ψ((ν+1)/2) − ½ψ(ν/2) − 1/(2ν) − ½ log q + (ν+1)z²/(2ν²q),
//
// ψ the digamma function. It panics if ν or σ is not positive and finite.
func StudentT(x, nu, mu, sigma float64) (lp, dx, dnu, dmu, dsigma float64) {
	checkScale("StudentT", "nu", nu)
	checkScale("StudentT", "sigma", sigma)
	z := (x - mu) / sigma
	z2 := z * z
	q := 1 + z2/nu
	lq := math.Log1p(z2 / nu)
	g1, _ := math.Lgamma((nu + 1) / 2)
	g2, _ := math.Lgamma(nu / 2)
	lp = g1 - g2 - 0.5*(math.Log(nu)+logPi) - math.Log(sigma) - 0.5*(nu+1)*lq
	w := (nu + 1) / (nu * q) // ∂/∂(z²/2) of −((ν+1)/2) log q, negated
	dx = -w * z / sigma
	dsigma = (w*z2 - 1) / sigma
	dnu = 0.5*(mathext.Digamma((nu+1)/2)-mathext.Digamma(nu/2)-1/nu-lq) + 0.5*w*z2/nu
	return lp, dx, dnu, -dx, dsigma
}

// Cauchy returns the log density of the Cauchy distribution with location
// μ and scale σ at x, and its partial derivatives with respect to x, μ and
// σ:
//
//	z = (x − μ)/σ,
//	log p = −log π − log σ − log(1 + z²),
//	∂/∂x = −2z/(σ(1 + z²)),  ∂/∂μ = −∂/∂x,  ∂/∂σ = (z² − 1)/(σ(1 + z²)).
//
// It is Student's t with ν = 1. It panics if σ is not positive and finite.
func Cauchy(x, mu, sigma float64) (lp, dx, dmu, dsigma float64) {
	checkScale("Cauchy", "sigma", sigma)
	z := (x - mu) / sigma
	q := 1 + z*z
	dx = -2 * z / (sigma * q)
	return -logPi - math.Log(sigma) - math.Log1p(z*z), dx, -dx, (z*z - 1) / (sigma * q)
}

// Gamma returns the log density of the gamma distribution with shape α and
// rate β at x, and its partial derivatives with respect to x, α and β
// (Stan's gamma(α, β); gonum's distuv.Gamma{Alpha: α, Beta: β}):
//
//	log p = α log β − log Γ(α) + (α − 1) log x − βx,
//	∂/∂x = (α − 1)/x − β,  ∂/∂α = log β − ψ(α) + log x,  ∂/∂β = α/β − x,
//
// on the support x > 0; at x ≤ 0 it returns −Inf and zero derivatives. It
// panics if α or β is not positive and finite.
func Gamma(x, alpha, beta float64) (lp, dx, dalpha, dbeta float64) {
	checkScale("Gamma", "alpha", alpha)
	checkScale("Gamma", "beta", beta)
	if !(x > 0) {
		return outside(x), 0, 0, 0
	}
	lx, lb := math.Log(x), math.Log(beta)
	lg, _ := math.Lgamma(alpha)
	lp = alpha*lb - lg + (alpha-1)*lx - beta*x
	return lp, (alpha-1)/x - beta, lb - mathext.Digamma(alpha) + lx, alpha/beta - x
}

// InverseGamma returns the log density of the inverse gamma distribution
// with shape α and scale β at x, and its partial derivatives with respect
// to x, α and β (Stan's inv_gamma(α, β); gonum's
// distuv.InverseGamma{Alpha: α, Beta: β}):
//
//	log p = α log β − log Γ(α) − (α + 1) log x − β/x,
//	∂/∂x = (β/x − α − 1)/x,  ∂/∂α = log β − ψ(α) − log x,  ∂/∂β = α/β − 1/x,
//
// on the support x > 0; at x ≤ 0 it returns −Inf and zero derivatives. It
// panics if α or β is not positive and finite.
func InverseGamma(x, alpha, beta float64) (lp, dx, dalpha, dbeta float64) {
	checkScale("InverseGamma", "alpha", alpha)
	checkScale("InverseGamma", "beta", beta)
	if !(x > 0) {
		return outside(x), 0, 0, 0
	}
	lx, lb := math.Log(x), math.Log(beta)
	lg, _ := math.Lgamma(alpha)
	lp = alpha*lb - lg - (alpha+1)*lx - beta/x
	return lp, (beta/x - alpha - 1) / x, lb - mathext.Digamma(alpha) - lx, alpha/beta - 1/x
}

// Exponential returns the log density of the exponential distribution with
// rate λ at x, and its partial derivatives with respect to x and λ (Stan's
// exponential(λ); gonum's distuv.Exponential{Rate: λ}):
//
//	log p = log λ − λx,  ∂/∂x = −λ,  ∂/∂λ = 1/λ − x,
//
// on the support x ≥ 0 (the derivative in x at 0 is the right one); at
// x < 0 it returns −Inf and zero derivatives. It panics if λ is not
// positive and finite.
func Exponential(x, lambda float64) (lp, dx, dlambda float64) {
	checkScale("Exponential", "lambda", lambda)
	if !(x >= 0) {
		return outside(x), 0, 0
	}
	return math.Log(lambda) - lambda*x, -lambda, 1/lambda - x
}

// Beta returns the log density of the beta distribution with shapes α and
// β at x, and its partial derivatives with respect to x, α and β (Stan's
// beta(α, β); gonum's distuv.Beta{Alpha: α, Beta: β}):
//
//	log p = log Γ(α + β) − log Γ(α) − log Γ(β) + (α − 1) log x + (β − 1) log(1 − x),
//	∂/∂x = (α − 1)/x − (β − 1)/(1 − x),
//	∂/∂α = ψ(α + β) − ψ(α) + log x,  ∂/∂β = ψ(α + β) − ψ(β) + log(1 − x),
//
// on the support 0 < x < 1; elsewhere it returns −Inf and zero derivatives.
// It panics if α or β is not positive and finite.
func Beta(x, alpha, beta float64) (lp, dx, dalpha, dbeta float64) {
	checkScale("Beta", "alpha", alpha)
	checkScale("Beta", "beta", beta)
	if !(x > 0 && x < 1) {
		return outside(x), 0, 0, 0
	}
	lx, l1x := math.Log(x), math.Log1p(-x)
	gab, _ := math.Lgamma(alpha + beta)
	ga, _ := math.Lgamma(alpha)
	gb, _ := math.Lgamma(beta)
	lp = gab - ga - gb + (alpha-1)*lx + (beta-1)*l1x
	dab := mathext.Digamma(alpha + beta)
	return lp, (alpha-1)/x - (beta-1)/(1-x), dab - mathext.Digamma(alpha) + lx, dab - mathext.Digamma(beta) + l1x
}

// LogNormal returns the log density of the log-normal distribution (log x
// ~ N(μ, σ²)) at x, and its partial derivatives with respect to x, μ and σ
// (Stan's lognormal(μ, σ); gonum's distuv.LogNormal{Mu: μ, Sigma: σ}):
//
//	z = (log x − μ)/σ,
//	log p = −½z² − log x − log σ − ½ log 2π,
//	∂/∂x = −(z/σ + 1)/x,  ∂/∂μ = z/σ,  ∂/∂σ = (z² − 1)/σ,
//
// on the support x > 0; at x ≤ 0 it returns −Inf and zero derivatives. It
// panics if σ is not positive and finite.
func LogNormal(x, mu, sigma float64) (lp, dx, dmu, dsigma float64) {
	checkScale("LogNormal", "sigma", sigma)
	if !(x > 0) {
		return outside(x), 0, 0, 0
	}
	lx := math.Log(x)
	z := (lx - mu) / sigma
	g := z / sigma
	return -0.5*z*z - lx - math.Log(sigma) - halfLog2Pi, -(g + 1) / x, g, (z*z - 1) / sigma
}

// outside is the log density at a point outside the support: −Inf, or NaN
// when x is NaN.
func outside(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return math.Inf(-1)
}

// checkScale panics unless the parameter name of the density fn, v, is
// positive and finite.
func checkScale(fn, name string, v float64) {
	if !(v > 0) || math.IsInf(v, 1) {
		badParam(fn, name, v)
	}
}

func badParam(fn, name string, v float64) {
	panic(fmt.Sprintf("logpdf: %s: %s = %v, want a positive finite number", fn, name, v))
}
