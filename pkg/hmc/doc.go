// Package hmc is the reference sampler of the project: static-path
// Hamiltonian Monte Carlo with full-data gradients, adapted as Stan adapts
// it, whose pooled draws are the "true samples" every MMD² is measured
// against.
//
// # Dynamics
//
// With position θ, momentum p ~ N(0, M) and inverse mass matrix (the
// metric) M⁻¹ = Σ, the Hamiltonian is
//
//	H(θ, p) = −log p(θ) + ½ pᵀΣp.
//
// One leapfrog step of size ε is
//
//	p ← p + (ε/2) ∇log p(θ),   θ ← θ + ε Σp,   p ← p + (ε/2) ∇log p(θ),
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
// # Metric
//
// Σ is either diagonal, Σ = diag(m), or dense (Settings.Metric). With the
// posterior covariance as Σ, the dynamics in the whitened coordinates
// L⁻¹θ (Σ = LLᵀ) see a posterior of unit covariance: one step size fits
// every direction and one integration time T moves each of them about as
// far. A diagonal Σ achieves this only for axis-aligned posteriors; a
// logistic regression on features in [0, 1] with a bias column has strongly
// correlated weights, and a diagonal metric leaves it ill conditioned. The
// dense momentum is drawn as p = L⁻ᵀz, z ~ N(0, I), whose covariance
// L⁻ᵀL⁻¹ = Σ⁻¹ = M; each leapfrog step adds one d×d matrix-vector product
// Σp and the energy check another, O(d²) against a gradient's O(Nd).
// Setting "auto" (the default) is dense up to 200 dimensions.
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
// and the sampling phase uses ε̄ of the last warm-up iteration. The acceptance
// statistic αₜ of a static trajectory is min(1, exp(H₀ − H_L)) of its end
// point. The metric follows Stan's windowed schedule: an initial fast window
// (75 iterations) tunes only ε, slow windows of 25, 50, 100, … iterations
// (the last one stretched to the end of the slow phase) each estimate the
// covariance Σ̂ (or only its diagonal) of their n draws, regularised towards
// 10⁻³I as (n/(n+5)) Σ̂ + 10⁻³ · 5/(n+5) · I, which becomes the metric; after
// each slow window ε is
// re-initialised by Stan's doubling/halving heuristic and dual averaging
// restarts; a final fast window (50 iterations) tunes ε for the last m. Warm-ups
// shorter than 150 iterations split 15% / 75% / 10% as Stan does.
//
// Sampling accepts more often than δ, typically 0.9 for δ = 0.8, as Stan's
// static HMC does: dual averaging drives the mean acceptance of the
// fluctuating warm-up iterates εₜ to δ, but those iterates scatter over a
// factor of about five within the 50-iteration terminal window, and the
// acceptance, concave in log ε with a cliff at the stability limit, is
// higher at their geometric centre ε̄ than on average over them.
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
// metric, and is Flagged, with its reasons, when max R̂ > 1.01, min ESS < 400,
// a sampling iteration diverged, or a chain's adapted step size puts its
// nominal path IntegrationTime/ε at or beyond MaxSteps ("capped",
// Settings.PathCapped: its trajectories are truncated and it explores
// slowly, which R̂ and ESS of a short run need not see).
//
// # Init and step
//
// Init returns a State holding the chains before their first transition;
// Step advances every chain by one transition (warm-up or sampling, as the
// schedule says), Steps by several, one goroutine per chain; State.Detail
// reads the draws so far with their diagnostics, and State.Result gives
// them as the sampler.Result of every method (State is a sampler.State). Run is the loop over Init
// and Steps with its snapshots, and a hand loop of Step gives its draws
// bit for bit, since each chain's stream is its own.
//
// # Checkpoints and progress
//
// With Settings.Checkpoint, a run writes the whole state of its chains
// (position, step size, metric, adaptation accumulators, counters, generator
// state and the draws so far) atomically to a file every Every iterations or
// Interval of wall time, and when its context is cancelled; chains stop only
// between whole iterations, so the file always describes a state the
// uninterrupted run passes through, and a run started on it continues to the
// same draws bit for bit; Init resumes from the file, so a hand loop of
// Step does too. A file written by other settings, another target or
// another seed is refused (ErrCheckpointMismatch). Settings.Progress receives
// every chain's phase, iteration, step size, acceptance and divergences
// after each transition.
package hmc
