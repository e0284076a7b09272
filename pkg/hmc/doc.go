// Package hmc is the reference sampler of the project: static-path
// Hamiltonian Monte Carlo with full-data gradients, adapted as Stan adapts
// it, whose pooled draws are the "true samples" every MMD² is measured
// against.
//
// # Dynamics
//
// With position θ, momentum p ~ N(0, M) and a diagonal inverse mass matrix
// M⁻¹ = diag(m), the Hamiltonian is
//
//	H(θ, p) = −log p(θ) + ½ Σⱼ mⱼ pⱼ².
//
// One leapfrog step of size ε is
//
//	p ← p + (ε/2) ∇log p(θ),   θ ← θ + ε m ⊙ p,   p ← p + (ε/2) ∇log p(θ),
//
// volume-preserving and reversible, with an energy error of O(ε²) over a
// fixed integration time. A transition draws a fresh momentum, runs L steps
// and accepts the end point with probability min(1, exp(H₀ − H_L)). The
// number of steps is L = ⌈T·u/ε⌉ for the integration time T, with
// u ~ U[1−j, 1+j] a path-length jitter that breaks the periodicity a fixed
// path length would have on near-Gaussian posteriors. A trajectory whose
// energy error H − H₀ exceeds 1000 (or becomes non-finite) is stopped and
// rejected and counted as a divergence, as Stan does.
//
// # Warm-up
//
// The step size is tuned by the dual averaging of Hoffman & Gelman (2014,
// §3.2) towards a target mean acceptance statistic δ (default 0.8), with
// γ = 0.05, t₀ = 10, κ = 0.75 and μ = log(10ε₀):
//
//	H̄ₜ = (1 − 1/(t+t₀)) H̄ₜ₋₁ + (δ − αₜ)/(t+t₀),
//	log εₜ = μ − √t H̄ₜ/γ,   log ε̄ₜ = t^−κ log εₜ + (1 − t^−κ) log ε̄ₜ₋₁,
//
// and the sampling phase uses ε̄ of the last warm-up iteration. The diagonal
// inverse mass matrix follows Stan's windowed schedule: an initial fast
// window (75 iterations) tunes only ε, slow windows of 25, 50, 100, …
// iterations (the last one stretched to the end of the slow phase) each
// estimate the marginal variances of the draws, regularised towards 10⁻³ as
// (n/(n+5)) σ̂² + 10⁻³ · 5/(n+5), which become m; after each slow window ε is
// re-initialised by Stan's doubling/halving heuristic and dual averaging
// restarts; a final fast window (50 iterations) tunes ε for the last m. Warm-ups
// shorter than 150 iterations split 15% / 75% / 10% as Stan does.
//
// # Chains and diagnostics
//
// Several chains run in parallel, one goroutine each, every chain with its
// own random stream seeded from the given source before any chain starts, so
// that the draws do not depend on the scheduling. Chains start from
// dispersed points (prior draws, a given point with Gaussian jitter, or
// uniform on [−2, 2]ᵈ), never all at one mode, so that split-R̂ can see
// chains that have not found each other. Every reference reports, per
// coordinate, the rank-normalised split-R̂ and the bulk ESS of package
// metric, and is Flagged, with its reasons, when max R̂ > 1.01, min ESS < 400
// or a sampling iteration diverged.
package hmc
