// Package rff provides random Fourier features of the RBF kernel
// (Rahimi & Recht 2007), the finite-dimensional kernel under which MMD-FW's
// linear (geometric) convergence rate holds.
//
// Bochner's theorem writes the RBF kernel k(x, y) = exp(−‖x − y‖²/(2h²)) as
// an expectation over frequencies ω ∼ N(0, h⁻² I) and phases b ∼ U[0, 2π]:
//
//	k(x, y) = E[2 cos(ωᵀx + b) cos(ωᵀy + b)].
//
// D draws (ωⱼ, bⱼ) give the feature map
//
//	φ(x) = √(2/D) [cos(ωⱼᵀx + bⱼ)]ⱼ₌₁..D,   ∇ₓφⱼ(x) = −√(2/D) sin(ωⱼᵀx + bⱼ) ωⱼ,
//
// and the kernel k_D(x, y) = φ(x)ᵀφ(y), an unbiased estimate of k whose
// error has variance (1 − k² + k⁴/2)/D: its RMS error falls like 1/√D.
// The features define their own D-dimensional RKHS in which every MMD is an
// ordinary Euclidean distance ‖Σᵢ wᵢ φ(xᵢ) − E_p[φ]‖.
//
// Features implements the kernel k_D with its gradient (Eval, GradX), so
// MMD-FW can use it as its kernel. SteinField evaluates the weighted Stein
// direction
//
//	Σᵢ wᵢ [k_D(xᵢ, x) sᵢ + ∇_{xᵢ}k_D(xᵢ, x)] = M φ(x) − √(2/D) Ωᵀ(φ(x) ⊙ σ),
//	M = Σᵢ wᵢ sᵢ φ(xᵢ)ᵀ (d×D),   σⱼ = Σᵢ wᵢ sin(ωⱼᵀxᵢ + bⱼ),
//
// in O(D·d) per point, independent of the number n of particles, after an
// O(n·D·d) summary of the particles.
package rff
