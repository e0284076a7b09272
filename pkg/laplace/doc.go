// Package laplace finds the mode of a posterior and fits the Gaussian
// (Laplace) approximation there: FindMAP maximises log p by L-BFGS (gonum's
// optimize) from a given point, with full-data or minibatch gradients, and
// Fit approximates the target near a point x by
//
//	N(x, Σ),  Σ = (−∇²log p(x))⁻¹,
//
// the Hessian from central differences of the gradient (2d gradient
// evaluations), its eigenvalues made positive so that Σ exists away from a
// maximum too. MMD-FW's MAP start and Laplace scales, and the MAP starts of
// SGLD, HMC and Stein Points in the reproduction, use them. Both report the
// per-datapoint gradient evaluations they spend, the cost a method that
// starts from their result is charged.
//
// Randomness (minibatches only) comes from a rand.Source in the settings.
package laplace
