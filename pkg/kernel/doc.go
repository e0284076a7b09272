// Package kernel provides the positive-definite kernels of the particle
// methods, their gradients, Gram and cross-kernel matrices, Stein kernels,
// the weighted Stein direction and the bandwidth heuristics.
//
// The RBF (Gaussian) kernel with bandwidth h is
//
//	k(x, y) = exp(−‖x − y‖² / (2h²)),   ∇ₓk(x, y) = −(x − y) k(x, y) / h².
//
// The IMQ kernel of Stein Points is
//
//	k(x, y) = (c² + ‖x − y‖²)^β,   ∇ₓk(x, y) = 2β (c² + ‖x − y‖²)^(β−1) (x − y),
//
// with c = 1, β = −1/2 by default. Both are radial, k = f(r²) with
// r² = ‖x − y‖², and everything below is written once in terms of the
// profile f and its derivatives f′, f″ with respect to r².
//
// The SVGD repulsion of particle i is the sum Σⱼ ∇_{xⱼ} k(xⱼ, xᵢ)
// = Σⱼ (xᵢ − xⱼ) k(xᵢ, xⱼ) / h², computed for all particles at once as
// (diag(K·1) X − K X) / h².
//
// Squared distances between two point sets come from one matrix product,
// ‖xᵢ − yⱼ‖² = ‖xᵢ‖² + ‖yⱼ‖² − 2 xᵢ·yⱼ (CrossSqDists); within one set,
// from a symmetric rank-k update (SqDists).
//
// The Stein kernel of a score s = ∇log p (Liu et al. 2016; Chen et al.
// 2018) is
//
//	k₀(x, y) = ∇ₓ·∇ᵧk + ∇ₓk·s(y) + ∇ᵧk·s(x) + k(x, y) s(x)·s(y)
//	         = −4f″ r² − 2d f′ + 2f′ (x − y)·(s(y) − s(x)) + f s(x)·s(y),
//
// so that E_{y∼p}[k₀(x, y)] = 0 and KSD² = Σᵢⱼ wᵢwⱼ k₀(xᵢ, xⱼ).
//
// The weighted Stein direction of particles xᵢ with cached scores sᵢ and
// weights wᵢ,
//
//	φ(x) = Σᵢ wᵢ [k(xᵢ, x) sᵢ + ∇_{xᵢ}k(xᵢ, x)],
//
// is the SVGD update when wᵢ = 1/n and MMD-FW's estimate of the negative
// gradient of its linear-minimisation objective otherwise; SteinDirection
// computes it in O(n·d) without allocating.
//
// Median heuristic: the SVGD reference code takes the median m of the n²
// squared pairwise distances (the zero diagonal included) and sets
// h² = m / (2 log(n+1)), i.e. k = exp(−‖x−y‖² log(n+1) / m). MedianSq computes m with or
// without the diagonal; SVGDBandwidth turns it into h.
package kernel
