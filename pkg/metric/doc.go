// Package metric measures how well weighted particles approximate a
// posterior: MMD² against reference draws and the kernel Stein discrepancy.
//
// MMD² between weighted particles (xᵢ, wᵢ) and reference draws y₁..y_S (of
// an HMC reference, say) is
//
//	MMD² = Σᵢⱼ wᵢwⱼ k(xᵢ, xⱼ) − (2/S) Σᵢ Σₛ wᵢ k(xᵢ, yₛ) + (1/S²) Σₛₜ k(yₛ, yₜ),
//
// the squared RKHS distance ‖μ̂ − μ̂_ref‖²_H. The ½ of the paper's objective
// is dropped: reported values are twice that objective. The reference term
// is a V-statistic, so even a perfect particle set scores about
// (E k(y, y) − ∫∫ k p p)/S, the floor set by the reference's own size.
// NewMMD computes the (1/S²) term once per reference set; each MMD2 call then
// costs two matrix products, O(n²d + nSd).
//
// The weighted kernel Stein discrepancy needs only the particles and their
// scores s = ∇log p:
//
//	KSD² = Σᵢⱼ wᵢwⱼ k₀(xᵢ, xⱼ),
//	k₀(x, y) = ∇ₓ·∇ᵧk + ∇ₓk·s(y) + ∇ᵧk·s(x) + k(x, y) s(x)·s(y),
//
// with the IMQ kernel k = (1 + ‖x − y‖²)^(−1/2) by default (Gorham & Mackey
// 2017: it detects non-convergence, which the RBF kernel does not).
package metric
