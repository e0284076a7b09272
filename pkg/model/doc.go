// Package model provides the two posteriors of the paper's experiments,
// Bayesian logistic regression and a one-hidden-layer Bayesian neural
// network, as targets (package target) with exact gradients, minibatch and
// many-particle forms, prior draws and the predictive metrics of the
// figures. Both are built from plain arrays (a *mat.Dense of features and a
// []float64 of responses) and keep references to them.
//
// # Logistic regression
//
// Features xₙ ∈ ℝᵖ (the caller appends a bias column of ones), labels
// yₙ ∈ {−1, +1}, parameters θ = [w, s] with s = log α, d = p+1:
//
//	α ~ Gamma(a₀, rate b₀)          (a₀ = 1, b₀ = 0.01)
//	w | α ~ N(0, α⁻¹ I)
//	p(yₙ | xₙ, w) = σ(yₙ wᵀxₙ),     σ(u) = 1/(1 + e⁻ᵘ)
//
// With the change of variable s = log α (Jacobian dα/ds = α = eˢ) and every
// normalising constant kept,
//
//	log p(θ) = Σₙ log σ(yₙ wᵀxₙ)
//	         + (p/2)(s − log 2π) − (eˢ/2) ‖w‖²
//	         + a₀ log b₀ − log Γ(a₀) + a₀ s − b₀ eˢ
//
//	∇_w log p = Σₙ yₙ σ(−yₙ wᵀxₙ) xₙ − eˢ w
//	∂_s log p = p/2 + a₀ − eˢ (‖w‖²/2 + b₀)
//
// The log-sigmoid is evaluated without overflow or cancellation: with
// e = exp(−|u|), log σ(u) = min(u, 0) − log1p(e), and σ(−u) = e/(1+e) for
// u ≥ 0, 1/(1+e) otherwise. The full-data gradient reads X once: each tile
// of 32 rows gets its dot products, sigmoids and accumulation of
// yₙ σ(−uₙ) xₙ while it is in the L1 cache, and the tiles' log1p terms are
// summed as log Π(1+eₙ). Rows are split into blocks over goroutines, each
// with its own partial gradient, reduced at the end. On amd64 processors
// with AVX2 and FMA the tile work runs in assembly kernels (vector dot
// products over one row at a time, so that memory is read as one stream; a
// vectorised exponential; a four-row update of the gradient), which bring
// the pass near the speed of a plain sum over X; elsewhere, or with the
// build tag noasm, portable Go is used.
//
// LogProbHessian (target.Hessian) gives the exact second derivatives, with
// dₙ = σ(uₙ)σ(−uₙ), uₙ = wᵀxₙ:
//
//	∇²_w log p = −XᵀDX − eˢ I,   ∂²log p/∂w∂s = −eˢ w,   ∂²log p/∂s² = −eˢ (‖w‖²/2 + b₀)
//
// # Neural network
//
// Standardised inputs xₙ ∈ ℝᵖ and responses yₙ, H hidden ReLU units,
// θ = [W1 (p×H, row-major), b1 (H), w2 (H), b2, log γ, log λ],
// d = H(p+2) + 3:
//
//	f(x) = w2ᵀ relu(W1ᵀx + b1) + b2
//	γ, λ ~ Gamma(a₀, rate b₀)       (a₀ = 1, b₀ = 0.1)
//	every one of the K = d−2 weights ~ N(0, λ⁻¹)
//	yₙ ~ N(f(xₙ), γ⁻¹)
//
//	log p(θ) = (N/2)(log γ − log 2π) − (γ/2) Σₙ rₙ²,     rₙ = yₙ − f(xₙ)
//	         + (K/2)(log λ − log 2π) − (λ/2) Σₖ θₖ²
//	         + Σ_{τ∈{γ,λ}} a₀ log b₀ − log Γ(a₀) + a₀ log τ − b₀ τ
//
// Backpropagation with aₙ = W1ᵀxₙ + b1 and δₙ = rₙ w2 ⊙ 1[aₙ > 0]:
//
//	∂/∂b2 = γ Σₙ rₙ − λ b2         ∂/∂w2 = γ Σₙ rₙ relu(aₙ) − λ w2
//	∂/∂b1 = γ Σₙ δₙ − λ b1         ∂/∂W1 = γ Σₙ xₙ δₙᵀ − λ W1
//	∂/∂log γ = N/2 − (γ/2) Σₙ rₙ² + a₀ − b₀ γ
//	∂/∂log λ = K/2 − (λ/2) Σₖ θₖ² + a₀ − b₀ λ
//
// ReLU is not differentiable at 0; the gradient uses the subgradient 0 there
// (a unit with pre-activation exactly 0 counts as inactive), as the
// reference implementations do. The set of such points has measure zero.
//
// # Minibatches and many particles
//
// MinibatchLogProbGrad returns ∇log p₀ + (N/|B|) Σ_{b∈B} ∇log L(d_b | θ)
// and the matching log p₀ + (N/|B|) Σ log L: averaged over the batches of a
// partition of the data both equal the full-data values. It allocates
// nothing.
//
// LogProbGradBatch evaluates n particles at once. The logistic model reads
// X once for all of them: the workers take chunks of rows in turn and apply
// the row kernels of LogProbGrad to every particle while a tile of rows is
// in the L1 cache, so each particle gets LogProbGrad's result bit for bit.
// The network uses matrix products over blocks of rows, the hidden layers
// X·[W1₁ … W1ₙ] and the gradients Xᵀ·[Δ₁ … Δₙ]. The predictive metrics use
// products too, in parallel over blocks of test rows, so memory stays
// bounded however many test rows there are.
//
// MinibatchLogProbGradBatch (target.StochasticBatched) is the minibatch
// estimate for n particles on one batch, as SVGD needs it every iteration:
// the batch rows are gathered once into a |B|×p block Xb, and the logits
// Xb·Wᵀ or hidden layers Xb·[W1₁ …], and the gradients, are matrix products
// over chunks of particles that the workers take in turn (with AVX2/FMA,
// the single-goroutine products of pkg/dense). It allocates nothing in
// steady state and agrees with MinibatchLogProbGrad to rounding.
//
// # Predictive metrics
//
// With particles θ₁…θₙ and weights w₁…wₙ (normally nonnegative and summing
// to one; negative weights are allowed, and a test point whose weighted
// predictive is not positive gets log-likelihood −Inf):
//
//	logistic: p(y | x) = Σᵢ wᵢ σ(y θᵢᵀx); accuracy is the fraction of test
//	rows whose true label gets p(y | x) > 1/2; the log-likelihood is
//	meanₜ log p(yₜ | xₜ).
//
//	network: on the original scale, ŷᵢ(x) = fᵢ(x)·s_y + m_y (m_y, s_y the
//	training mean and standard deviation of y); RMSE of Σᵢ wᵢ ŷᵢ(x) and
//	meanₜ log Σᵢ wᵢ N(yₜ | ŷᵢ(xₜ), s_y²/γᵢ), summed in log space.
//
// # Initialisation
//
// BNN.Init reproduces the starting point of the SVGD reference code, which
// both SVGD and MMD-FW use: W1 ~ N(0, 1/(p+1)), w2 ~ N(0, 1/(H+1)), zero
// biases, λ from numpy's gamma(1, 0.1) (a scale: mean 0.1), and
// log γ = −log of the mean squared residual of that initial network on
// min(N, 1000) training rows drawn without replacement.
//
// # Concurrency
//
// Models are safe for concurrent use once their exported settings are
// fixed. Full-data passes run their row blocks on a small set of long-lived
// goroutines fed through a channel, and take their per-call scratch from a
// sync.Pool (the batched minibatch calls keep theirs in the model), so that
// no call allocates in steady state. The full-data logistic pass adds its
// per-chunk partial sums in a fixed order: its result does not depend on
// Workers.
package model
