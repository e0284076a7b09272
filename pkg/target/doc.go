// Package target defines what a particle method needs from a posterior, and
// nothing else.
//
// A posterior p(θ) ∝ p₀(θ) Πₙ L(dₙ | θ) is seen through its unnormalised log
// density log p(θ) and its score s(θ) = ∇log p(θ). Every method in this module
// (MMD-FW, SVGD, Stein Points, SGLD, HMC) consumes a Target; models in
// package model implement it, and a user's own posterior is a Func:
//
//	t := target.Func{D: 2, F: func(x, grad []float64) float64 {
//		grad[0] += -x[0] // ∇log p is added into grad (see below)
//		grad[1] += -x[1]
//		return -0.5 * (x[0]*x[0] + x[1]*x[1])
//	}}
//
// Every callback one supplies to this package (Func.F, RowFunc,
// Prior.LogProbGrad) follows one rule: it adds its gradient into grad
// (grad[j] += …), leaving what grad held in place. The package zeroes
// grad before the first callback of an evaluation, so that a sum of terms
// needs no buffer of its own, whatever the caller's grad held; an F that
// writes grad instead is right as well, being the only callback of its
// evaluation.
//
// Optional interfaces add what some methods can use: Stochastic (an unbiased
// minibatch score, for SVGD and SGLD on large data), Batched (many particles
// at once, for evaluation), PriorSampler (initialisation from the prior) and
// Hessian (exact second derivatives, for a Laplace approximation).
//
// A posterior over data rows, log p(θ) = log p₀(θ) + Σᵢ log L(dᵢ | θ), need
// not implement them by hand: NewPosterior builds all of them from a
// per-row log-likelihood with its gradient (RowFunc) and a Prior.
//
// Gaussian is an exact N(m, Σ) target whose RBF and random-Fourier-feature
// kernel mean embeddings are known in closed form, so that MMD², the
// embedding values z and Bayesian-quadrature weights are exact in tests and
// in the linear-convergence experiment.
//
// Costs are counted in per-datapoint likelihood-gradient evaluations: a
// full-data gradient of a Stochastic target costs NData(t), a minibatch
// costs its size, and a target without data costs 1 per call.
package target
