// Package kernel provides the positive-definite kernels of the particle
// methods, their gradients, Gram matrices and the bandwidth heuristics.
//
// The RBF (Gaussian) kernel with bandwidth h is
//
//	k(x, y) = exp(−‖x − y‖² / (2h²)),   ∇ₓk(x, y) = −(x − y) k(x, y) / h².
//
// The SVGD repulsion of particle i is the sum Σⱼ ∇_{xⱼ} k(xⱼ, xᵢ)
// = Σⱼ (xᵢ − xⱼ) k(xᵢ, xⱼ) / h², computed for all particles at once as
// (diag(K·1) X − K X) / h².
//
// Median heuristic: the SVGD reference code takes the median m of the n²
// squared pairwise distances (the zero diagonal included) and sets
// h² = m / (2 log(n+1)), i.e. k = exp(−‖x−y‖² log(n+1) / m). MedianSq computes m with or
// without the diagonal; SVGDBandwidth turns it into h.
package kernel
