// Package optim trains one point on a posterior by a short minibatch
// stochastic-gradient ascent of log p: the trained first particle of
// MMD-FW on the neural networks, and per-coordinate scales for its
// candidate noise and LMO steps.
//
// Train runs Adam (Kingma & Ba 2015) or AdaGrad on the unbiased minibatch
// score of a target.Stochastic,
//
//	gₜ = ∇log p₀(θ) + (N/|B|) Σ_{b∈Bₜ} ∇log L(d_b | θ),
//
// with batches drawn without replacement, one epoch after another. Adam:
//
//	mₜ = β₁ mₜ₋₁ + (1−β₁) gₜ,   vₜ = β₂ vₜ₋₁ + (1−β₂) gₜ²
//	θₜ = θₜ₋₁ + η (mₜ/(1−β₁ᵗ)) / (√(vₜ/(1−β₂ᵗ)) + ε)
//
// AdaGrad: Gₜ = Gₜ₋₁ + gₜ², θₜ = θₜ₋₁ + η gₜ / (√Gₜ + ε).
//
// It stops after a fixed number of steps or, with a validation callback,
// when the score has not improved for Patience evaluations, and returns the
// best point seen. Early stopping keeps an over-parameterised network away
// from the collapsed mode of its joint density (every weight near 0, the
// weight precision λ large, the noise precision γ fitted to the variance of
// y) which a full optimisation of log p can reach when the parameters
// outnumber the rows.
//
// # Scales
//
// Near a stationary point the mean of gₜ is about zero, so the second
// moment of the minibatch score is its variance: per coordinate about
// (N²/|B|)·Fⱼ, Fⱼ the per-datapoint empirical Fisher information, while the
// posterior precision of the likelihood is about N·Fⱼ. Result.Scale is the
// matching marginal scale
//
//	σⱼ = √(N / (|B| v̄ⱼ)),
//
// v̄ⱼ the bias-corrected exponential average of gⱼ² (rate ScaleDecay,
// whichever rule moves the point) at the returned point's step. It leaves out the
// prior's curvature, so a coordinate the data do not inform gets a large σⱼ;
// callers cap it.
//
// Costs are counted in per-datapoint gradient evaluations (|B| per step), as
// everywhere in this module.
package optim
