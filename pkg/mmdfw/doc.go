// Package mmdfw approximates a posterior by weighted particles added one at
// a time by Frank-Wolfe on the maximum mean discrepancy (MMD-FW, Futami et
// al., AAAI 2019, Alg. 2/3).
//
// With a kernel k, its feature Φ(x) = k(x, ·), the posterior embedding
// μ_p = ∫ Φ(x) p(x) dx and the weighted particles μ̂ = Σᵢ wᵢ Φ(xᵢ), the
// objective is
//
//	MMD²(μ̂) = ½ ‖μ_p − μ̂‖² = ½ wᵀKw − wᵀz + ½ ∫∫ k(x, y) p(x) p(y) dx dy,
//	Kᵢⱼ = k(xᵢ, xⱼ),   zᵢ = μ_p(xᵢ).
//
// Frank-Wolfe's linear minimisation oracle over the marginal polytope picks
// the next particle as a minimiser of
//
//	F_n(x) = Σᵢ wᵢ k(x, xᵢ) − μ_p(x).
//
// Run solves it approximately (Approx-LMO) by T AdaGrad steps, as in SVGD,
// along an estimate of −∇F_n. Stein's identity gives ∇μ_p(x) =
// E_p[k(x, y) ∇log p(y)] for a translation-invariant kernel; with the
// particles in place of p,
//
//	−∇F_n(x) ≈ Σᵢ wᵢ [k(xᵢ, x) ∇log p(xᵢ) + ∇_{xᵢ}k(xᵢ, x)],
//
// the SVGD direction with weights wᵢ, from scores cached when each particle
// was added: O(n·d) per step, no allocation (Direction Frozen). Direction
// Self, the default, lets the candidate join that empirical measure with
// weight 1/(n+1), adding k(x, x) ∇log p(x)/(n+1) at the cost of one score
// per step; without it the candidates stall in 10 dimensions (see
// docs/DECISIONS.md). Direction Exact uses a closed-form ∇μ_p where the
// target has one (GaussianEmbedding), for checking the theory.
//
// After each particle the weights change by a Rule: fully corrective
// Bayesian quadrature (K + λI) w = z (the paper's default); the FW line
// search ρ = ⟨μ̂ − μ_p, μ̂ − Φ(x')⟩/‖μ̂ − Φ(x')‖² clipped to [0, 1]; the
// constant steps ρₙ = 1/(n+1) (equal weights, kernel herding), 2/(n+2),
// and c/(n+c), which shrinks the weights of early particles for non-MAP
// starts; Stein weights minimising the kernel Stein discrepancy wᵀK₀w
// over the simplex, which need only the cached scores; or MMD weights
// minimising ‖μ̂ − μ_p‖² over the simplex. The two simplex rules are solved
// after each particle by pairwise Frank-Wolfe, O(n) per iteration, to a
// certified relative gap (WeightSolver).
//
// BQ and the line search need zᵢ = μ_p(xᵢ): from a closed-form embedding
// (ZExact) or from a separate sample pool, zᵢ ≈ (1/S) Σₛ k(xᵢ, yₛ) (ZPool),
// drawn by Inputs.PoolSampler, its cost charged to the run: SGLD chains
// (pools.SGLD) or an HMC pilot (pools.HMC) of pkg/mmdfw/pools, which
// adapts the other methods; this package imports none of them.
// Estimating z from the particles themselves is not offered: if z = K v for
// any weights v then K⁻¹z = v, and the "BQ" weights merely return v.
//
// The kernel is an RBF kernel exp(−‖x − y‖²/(2h²)) or its D random Fourier
// features (package rff), whose finite-dimensional RKHS is where the linear
// convergence rate of Frank-Wolfe holds. The bandwidth is fixed, or set once
// by the median heuristic from an initial set and then frozen: the kernel
// defines the objective, which must not change under the algorithm.
//
// Candidates start from an existing particle plus Gaussian noise, and the
// AdaGrad steps of the LMO have a length per coordinate: both in units of h
// (ScaleBandwidth), of the Laplace approximation N(x₁, Σ), Σ =
// (−∇²log p(x₁))⁻¹, at the first particle (ScaleLaplace, laplace.Fit: the
// target's exact Hessian when it has one, else 2d gradients by central
// differences), or of given per-coordinate scales σ, N(x₁, diag σ²)
// (ScaleGiven, e.g. an optimiser's), whose draws then also set the median
// heuristic. From a MAP start the Laplace scales are the posterior's own,
// per coordinate and correlated, where the prior's heuristic knows neither.
//
// The first particle is a (near) MAP point found by L-BFGS, a prior draw,
// a given point, a point trained by minibatch Adam with early stopping
// (FirstTrained, package optim, whose scales then serve ScaleGiven: the
// start for neural networks), or the first of a set of SVGD particles. It
// is reported as soon as it exists, before any Laplace fit or bandwidth. The SVGD→MMD-FW
// combination starts the n-th LMO from the n-th SVGD particle.
//
// Every other LMO starts from a candidate in the target's own scales. In
// those scales (ScaleTarget, the zero Settings; ScaleLaplace; ScaleGiven)
// it is an existing particle plus noise (InitPerturb). Where the run's
// unit is the bandwidth (ScaleBandwidth: with an embedding or a pool) that
// noise would be h per coordinate, which walks candidates out into the
// tails of a target narrower than h in some direction, so the candidate
// is instead a draw of N(x₁, Σ), the Laplace fit at the first particle
// (InitLaplace), the best of DefaultStarts such draws by the LMO
// objective F_n(x) = Σᵢ wᵢ k(x, xᵢ) − μ_p(x) where the run has z. The
// paper's prior draw is InitPrior.
// laplace.FindMAP is that L-BFGS search on its own, for callers that share
// one MAP point between runs.
//
// The zero Settings run in the target's own scales (ScaleTarget): the
// Laplace fit at the MAP whitens the coordinates, so that the kernel is an
// RBF of ‖L⁻¹(x − y)‖ and the candidates' noise and the LMO's steps are in
// posterior standard deviations. They stop by a criterion (StopKSD, with
// the Stein weights): once the weighted particles' kernel Stein
// discrepancy is that of KSDSize independent draws, N being a ceiling
// whose reaching flags the result (particle.Set.Diag). A run that fails
// returns its error and no particles. The paper's protocol is
// ScaleBandwidth (or the scales it names) with StopFixed.
//
// With z available every snapshot reports, in particle.Snapshot.Stats,
// ‖μ̂ − μ_p‖² of its particles and reported weights in the run's own kernel
// (StatMMD2Kernel with an exact embedding, StatMMD2KernelPool with a pool):
// with random features this is MMD² in their feature space, where the
// linear rate is exact, which no metric in the RBF kernel can show.
package mmdfw
