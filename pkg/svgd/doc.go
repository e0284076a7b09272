// Package svgd implements Stein variational gradient descent (Liu & Wang,
// NIPS 2016) as the authors' reference code runs it.
//
// n particles x₁…xₙ move together along the direction that most decreases
// their KL divergence to the posterior p in the unit ball of the RBF
// kernel's RKHS,
//
//	φ(xᵢ) = (1/n) Σⱼ [k(xⱼ, xᵢ) ∇log p(xⱼ) + ∇_{xⱼ} k(xⱼ, xᵢ)],
//
// the first term pulling towards high density, the second pushing the
// particles apart. The kernel is k(x, y) = exp(−‖x − y‖² / (2h²)) and,
// unless fixed, the bandwidth follows the median heuristic recomputed at
// every iteration,
//
//	h² = ½ med / log(n+1),
//
// with med the median of the n² squared distances ‖xᵢ − xⱼ‖², the zero
// diagonal included. Computing φ for all particles costs O(n²d): the
// distances come from one symmetric rank-k product, and
// φ = (K S + (diag(K 1) X − K X) / h²) / n with S the scores (see Direction).
//
// The step is the reference's AdaGrad with momentum, per coordinate:
//
//	hist₀ = φ₀²,   hist_t = α hist_{t−1} + (1−α) φ_t²,
//	x ← x + ε φ_t / (10⁻⁶ + √hist_t),   α = 0.9.
//
// On a dataset the scores are minibatch estimates
// ∇log p₀(x) + (N/|B|) Σ_{b∈B} ∇log L(d_b | x), every particle seeing the
// same batch. Like the reference, Run draws one permutation of the data at
// the start and walks it in consecutive batches of |B| (100 by default),
// wrapping around modulo N. A target that implements
// target.StochasticBatched scores all particles on the batch in one call
// (matrix products over the particles) with the same results; one that
// also gives the scores alone (MinibatchGradBatch, as model.Logistic and
// model.BNN do) is called that way, since the update never reads the log
// densities.
//
// The zero Settings run in the target's own scales and stop by a
// criterion: SVGD moves the particles in the whitened coordinates of the
// Laplace fit at the MAP (WhitenLaplace; the RBF kernel then acts on
// L⁻¹x, with the particles' median distance as its bandwidth at every
// iteration, BandwidthParticles, the start and the step in posterior
// standard deviations) and stops when their
// moments have settled (StopPlateau), Iterations being a ceiling whose
// reaching flags the result in particle.Set.Diag. The reference algorithm
// is WhitenNone with StopFixed.
//
// Besides the particle.Set diagnostics of pkg/metric, a run with full-data
// scores records score_share, the largest particle's share of the summed
// squared score (ScoreShare), and flags the set "stray" above StrayShare:
// a particle left behind where the target is far steeper than where the
// others are.
//
// Run returns the particles with equal weights 1/n. Costs are counted in
// per-datapoint gradient evaluations: n|B| per iteration with minibatches,
// n N with full-data scores.
package svgd
