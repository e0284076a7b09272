// Package constrain turns a posterior written over named, constrained
// parameters into a target.Target on ℝᵈ, as Stan does: each parameter is
// the image of unconstrained coordinates under a smooth bijection, the log
// density gains the log-Jacobian of that map, and the gradient is carried
// back through it by the chain rule. The map back gives the parameters (and
// quantities derived from them) under Stan's flattened names, "sigma",
// "beta[3]", "b[1,2]".
//
// # Declaring a posterior
//
// A Space declares the parameters in order, each scalar or an array of any
// shape, and a Posterior binds them to a log density written in the
// constrained space:
//
//	var s constrain.Space
//	mu := s.Real("mu")
//	sigma := s.Lower("sigma", 0)
//	post := s.Posterior(func(x, grad []float64) float64 {
//		m, sd := mu.Value(x), sigma.Value(x)
//		... // log p(m, sd) up to a constant; add ∂/∂m, ∂/∂sd into grad
//	})
//
// The function receives x, every parameter's constrained value laid end to
// end in declaration order, and grad, zeroed, of the same length, into which
// it writes (or adds) ∂log p/∂x. Param.Value, Param.Slice and Param.Index
// find a parameter in both. The Posterior is then the target
//
//	log p̃(u) = log p(x(u)) + log |det ∂x/∂u|(u),
//	∇log p̃(u) = (∂x/∂u)ᵀ ∇ₓlog p(x(u)) + ∇ᵤ log |det ∂x/∂u|(u),
//
// both computed in one forward pass over the parameters (u → x and the
// log-Jacobian) and one backward pass (reverse-mode accumulation of the
// adjoints, last parameter first), with no allocation after construction.
//
// # Transforms
//
// Stan's transforms, unconstrained value u, constrained value x, log-Jacobian
// J = log |dx/du|:
//
//	real                      x = u                           J = 0
//	lower bound a             x = a + eᵘ                      J = u
//	upper bound b             x = b − eᵘ                      J = u
//	both, a < b               x = a + (b − a) σ(u)            J = log(b − a) + log σ(u) + log(1 − σ(u))
//
// with σ(u) = 1/(1 + e⁻ᵘ); the inverses are u = log(x − a), u = log(b − x)
// and u = log(x − a) − log(b − x). An array takes the transform elementwise
// and its J is the sum. A bound may be a constant (Const) or a
// differentiable function of parameters declared earlier (Affine, BoundFunc),
// as in Stan's real<lower=0, upper=1 − α₁> β₁: the chain rule then also runs
// through the bound, ∂x/∂a = 1 − σ(u), ∂x/∂b = σ(u), ∂J/∂a = −1/(b − a),
// ∂J/∂b = 1/(b − a) (for one-sided bounds ∂x/∂a = 1 and ∂x/∂b = 1, J free
// of the bound).
//
// An ordered vector of K (Ordered) is x₁ = u₁, xₖ = xₖ₋₁ + e^{uₖ}, with
// J = Σₖ₌₂ᴷ uₖ; a positive ordered one (PositiveOrdered) starts from
// x₁ = e^{u₁} and adds u₁ to J.
//
// A simplex of K (Simplex: xₖ ≥ 0, Σ xₖ = 1) has K − 1 unconstrained
// coordinates and the centred stick-breaking transform of Stan's reference
// manual (section "Unit simplex" of the 2.2x manuals): with the stick s₁ = 1,
// for k = 1, …, K − 1,
//
//	zₖ = σ(uₖ − log(K − k)),   xₖ = sₖ zₖ,   sₖ₊₁ = sₖ − xₖ,
//
// and x_K = s_K; the offset log(K − k) maps u = 0 to the centre xₖ = 1/K.
// Its log-Jacobian, of the map from u to (x₁, …, x_{K−1}), is
//
//	J = Σₖ₌₁ᴷ⁻¹ log sₖ + log zₖ + log(1 − zₖ),
//
// and the inverse is sₖ = x_K + Σⱼ₌ₖᴷ⁻¹ xⱼ, zₖ = xₖ/sₖ,
// uₖ = logit(zₖ) + log(K − k).
//
// # Names
//
// A scalar is named by itself ("sigma"), an element of an array by its
// 1-based indices ("beta[3]", "b[1,2]"), and arrays of two or more
// dimensions are flattened column-major, the first index running fastest:
// b[1,1], b[2,1], …, b[1,2], …, the order of Stan's output and of
// posteriordb's reference draws. The constrained vector x stores every
// array in that order.
//
// Derived declares a quantity computed from the parameters, like Stan's
// transformed parameters (θ = μ + τ θ̃ in the non-centred eight schools), and
// Report chooses what Constrain writes and in which order, so that a
// posterior can be reported under the names of a reference that holds θ
// instead of θ̃. A Derived with an inverse lets Unconstrain map such reported
// values back to ℝᵈ.
//
// # Starting points
//
// Init draws each unconstrained coordinate uniformly on (−2, 2), Stan's
// default initialisation.
package constrain
