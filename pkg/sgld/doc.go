// Package sgld implements stochastic gradient Langevin dynamics (Welling &
// Teh, ICML 2011), the minibatch sampler that the MMD-FW paper compares with
// on Bayesian logistic regression.
//
// For a posterior p(θ) ∝ p₀(θ) Πₙ L(dₙ | θ) over N datapoints, each
// iteration t = 1, 2, … draws a minibatch B of |B| indices and moves
//
//	θ ← θ + (ε_t/2)·ĝ(θ) + η,   η ~ N(0, ε_t I),
//	ĝ(θ) = ∇log p₀(θ) + (N/|B|) Σ_{b∈B} ∇log L(d_b | θ),
//	ε_t  = a·(b + t)^(−γ),
//
// with γ ∈ (0.5, 1] so that Σ ε_t = ∞ and Σ ε_t² < ∞: as ε_t → 0 the
// minibatch noise, of order ε_t, vanishes against the injected noise, of
// order √ε_t, and the chain approaches exact Langevin dynamics without a
// Metropolis correction. At a fixed step the stationary law is biased by
// O(ε): on a Gaussian of precision P with gradient-noise variance V the
// stationary variance is (1 + εV/4) / (P·(1 − εP/4)) instead of 1/P.
//
// Minibatches are drawn without replacement within an epoch (a fresh uniform
// permutation of the data per epoch), which keeps ĝ unbiased. A target that
// is not target.Stochastic is driven by its full gradient.
//
// The zero Settings run the chains in the target's own scales and stop by
// a criterion: preconditioned by the Laplace fit at the MAP
// (WhitenLaplace), with a step adapted during the burn-in
// (ScheduleAdaptive), until the chains agree and their draws suffice
// (StopConverged: R̂ < 1.01, bulk ESS ≥ 400), Iterations being a ceiling
// whose reaching flags the result in particle.Set.Diag. Welling & Teh's
// sampler is WhitenNone with the polynomial schedule and StopFixed.
//
// Several chains run in parallel, each with its own random stream derived
// from the caller's source, so the result does not depend on scheduling.
// The particles are the thinned post-burn-in states of all chains, with
// equal weights 1/n, optionally capped to the last Keep draws of each chain.
package sgld
