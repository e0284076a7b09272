// Package sp implements Stein Points (Chen, Mackey, Gorham, Briol & Oates,
// ICML 2018): a deterministic point set chosen greedily to minimise the
// kernel Stein discrepancy to the posterior p, which needs only the score
// s = ∇log p.
//
// With a base kernel k the Stein kernel is
//
//	k₀(x, y) = ∇ₓ·∇ᵧk + ∇ₓk·s(y) + ∇ᵧk·s(x) + k(x, y) s(x)·s(y),
//
// whose RKHS functions all integrate to zero under p, and the equally
// weighted KSD² of x₁…xₙ is (1/n²) Σᵢⱼ k₀(xᵢ, xⱼ). Point n minimises the
// increase of that double sum,
//
//	xₙ = argmin_x  f_n(x),   f_n(x) = k₀(x, x)/2 + Σ_{i<n} k₀(xᵢ, x),
//
// so that KSD²ₙ = (2/n²) Σ_{m≤n} f_m(x_m). The base kernel is the inverse
// multiquadric k(x, y) = (c² + ‖x − y‖²)^β with c = 1, β = −1/2 by default,
// for which k₀(x, x) = −2βd c^(2(β−1)) + c^(2β) ‖s(x)‖²: the first point
// is the mode.
//
// f_n has no usable gradient without second derivatives of log p, so the
// search is derivative-free, as in the original: an adaptive Monte Carlo
// pool (Gaussian perturbations of uniformly chosen existing points with a
// per-coordinate scale σⱼ = 1.4826 × the points' median absolute
// deviation, plus a share of prior draws), then a Nelder–Mead refinement
// of the best candidate by gonum's optimize.NelderMead, stopped by a cap on
// the evaluations or when the simplex has collapsed to the original's
// tolerances. Both are confined to a box, as the original searched a
// bounded domain: the union of the first pool's widened bounding box and
// median ± 2σⱼ. The box matters where the score stays bounded far away,
// as for a logistic regression's log α → −∞: f_n levels off there to
// k₀(x, x)/2, below its value in the bulk, the kernel Stein discrepancy
// no longer tells the points to come back, and an unbounded search runs
// off until exp overflows. A location whose objective is not finite is
// rejected like a poor one. The point accepted is the best location evaluated anywhere in
// the step, not gonum's reported optimum, so its score is already known.
// Every objective evaluation costs one full-data score call;
// the scores of accepted points are cached, so the rest of f_n is O(n d).
// Cost reports the calls point by point: in d dimensions the refinement
// alone spends up to 200·d calls per point by default, which is why Stein
// Points is expensive, and why it stalls far from the mode in high
// dimension, where neither random candidates nor a simplex search find
// the low-score region.
//
// The zero Settings place the points in the target's own scales, the
// whitened coordinates of the Laplace fit at the MAP (WhitenLaplace), and
// stop once the points' KSD² is that of KSDSize independent draws
// (StopKSD), Points being a ceiling whose reaching flags the result in
// particle.Set.Diag when the points are worse than as many independent
// draws in KSD² (metric.CeilingFlagged), and is noted otherwise. The original is WhitenNone with StopFixed.
package sp
