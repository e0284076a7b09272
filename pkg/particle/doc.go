// Package particle holds what every method shares: the weighted particle set
// it returns, the snapshots it reports while it runs, and the stopwatch that
// keeps evaluation out of the method's clock.
//
// A weighted particle set {(xᵢ, wᵢ)} stands for the measure Σᵢ wᵢ δ(x − xᵢ);
// an expectation E_p[f] is estimated by Σᵢ wᵢ f(xᵢ). Set gives the weighted mean, the
// weighted covariance (Cov), weighted quantiles of a coordinate (Quantiles)
// and Kish's effective sample size of the weights (ESS).
//
// Methods report progress through a Recorder. The harness decides what to
// evaluate (MMD², accuracy, RMSE) and where to write it; methods know nothing
// of files, plots or progress bars. Time spent inside Record is excluded from
// the method's compute time (see Stopwatch and Report).
package particle
