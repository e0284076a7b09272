// Package testutil holds the fixtures and checks that the tests of several
// packages share, so that each is written, and corrected, once.
//
// Random fixtures draw from the *rand.Rand they are given, in a fixed order
// (row by row), so that a test's seed fixes its data:
//
//   - RandVec and RandDense: entries s·z and z, z ∼ N(0, 1);
//   - Gaussian: N(m, Σ) with m ∼ N(0, I) and Σ = 0.3 AAᵀ + 0.5 I for A with
//     N(0, 1) entries, well conditioned in every dimension;
//   - LogisticData: a logistic-regression data set with p − 1 features
//     uniform on [0, 1], a bias column of ones and labels yᵢ ∈ {−1, +1} drawn
//     from P(yᵢ = 1) = σ(wᵀxᵢ) at coefficients w ∼ N(0, I).
//
// CentralDiff and CheckGrad apply the project's gradient criterion: the
// central difference (f(x + h eⱼ) − f(x − h eⱼ))/(2h) with h = 10⁻⁶ must
// match the analytic ∂ⱼf in every coordinate within a relative error of
// 10⁻⁵, relative to max(|∂ⱼf|, 10⁻⁸). MeanSE gives the Monte Carlo standard
// error that statistical assertions derive their tolerances from.
package testutil
