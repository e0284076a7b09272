// Package logpdf holds log densities with exact gradients, the building
// blocks of a posterior's log density written by hand: the univariate
// densities posteriordb's models use, the multivariate normal through a
// Cholesky factor, and a Gaussian process with the squared-exponential
// covariance.
//
// # Shape
//
// Every univariate density is a function of the variate and the
// parameters, in Stan's order and parameterisation, that returns the log
// density followed by its partial derivatives with respect to each
// argument in the order of the arguments:
//
//	lp, dx, dmu, dsigma := logpdf.Normal(x, mu, sigma)
//
// They allocate nothing. The log densities are normalised (they keep the
// constants Stan's ~ statements drop) and agree with gonum's stat/distuv
// LogProb to rounding; the multivariate ones write their gradients into
// caller-supplied destinations, as gonum does.
//
// # Domains
//
// A variate outside the support (x ≤ 0 for the gamma, inverse gamma and
// log-normal, x < 0 for the exponential, x ∉ (0, 1) for the beta) is a
// point of zero density: the log density is −Inf and every derivative 0.
// The supports are open except the exponential's, so the boundary point
// itself is outside (gonum's Gamma with α < 1 gives +Inf at 0; here −Inf).
// A NaN variate gives a NaN log density. A scale, shape, rate or degrees of
// freedom that is not positive and finite is a programming error (map an
// unconstrained coordinate through pkg/constrain first): the function
// panics with a message "logpdf: <function>: <name> = <value>, ...".
//
// # Univariate densities
//
// With z the standardised variate and ψ the digamma function:
//
//	Normal(x, μ, σ)         −½z² − log σ − ½ log 2π,                     z = (x − μ)/σ
//	StudentT(x, ν, μ, σ)    log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) − log σ − ((ν+1)/2) log(1 + z²/ν)
//	Cauchy(x, μ, σ)         −log π − log σ − log(1 + z²)
//	Gamma(x, α, β)          α log β − log Γ(α) + (α − 1) log x − βx        (β the rate)
//	InverseGamma(x, α, β)   α log β − log Γ(α) − (α + 1) log x − β/x       (β the scale)
//	Exponential(x, λ)       log λ − λx                                     (λ the rate)
//	Beta(x, α, β)           log Γ(α+β) − log Γ(α) − log Γ(β) + (α − 1) log x + (β − 1) log(1 − x)
//	LogNormal(x, μ, σ)      −½z² − log x − log σ − ½ log 2π,               z = (log x − μ)/σ
//
// Each function's comment gives its derivatives; those with respect to a
// shape or degrees of freedom use ψ (gonum's mathext.Digamma).
//
// # Multivariate normal
//
// MultiNormalCholesky is N(μ, LLᵀ) given the lower Cholesky factor L:
//
//	r = x − μ,  z = L⁻¹r,  w = L⁻ᵀz,
//	log p = −½zᵀz − Σᵢ log Lᵢᵢ − (n/2) log 2π,
//	∂/∂x = −w,  ∂/∂μ = w,  ∂/∂L = tril(wzᵀ) − diag(1/Lᵢᵢ).
//
// # Gaussian process
//
// SqExpCov is the squared-exponential covariance with noise and its
// hyperparameter derivatives,
//
//	Kᵢⱼ = α² exp(−‖xᵢ − xⱼ‖²/(2ρ²)) + σ²δᵢⱼ,
//	∂K/∂α = 2K₀/α,  ∂K/∂ρ = K₀ ∘ D/ρ³,  ∂K/∂σ = 2σI,
//
// K₀ the noise-free part and Dᵢⱼ = ‖xᵢ − xⱼ‖². GPLogMarginal is the
// marginal likelihood log N(y | 0, K) with, for any covariance and any
// hyperparameter θ,
//
//	a = K⁻¹y,  ∂log p/∂θ = ½ tr((aaᵀ − K⁻¹) ∂K/∂θ),
//
// through gonum's Cholesky factorisation; SqExpGP is the same for the
// squared-exponential covariance, without allocating.
package logpdf
