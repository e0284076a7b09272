package sgld

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// FlagRhat is the largest rank-normalised split-R̂ (metric.SplitRhat) over
// the coordinates of the kept draws of the chains beyond which a result is
// flagged "rhat": the threshold of Vehtari et al. (2021) that HMC uses too.
const FlagRhat = 1.01

// FlagKeptZ is the largest standardised distance between the mean of the
// set and that of the chains' monitored draws beyond which a set that
// Settings.Keep cut from them (StopConverged with MonitorAll) is flagged
// "kept": with n draws in the set, M monitored draws and, per coordinate
// j, their means m_j (set) and μ_j (monitored) and the monitored draws'
// standard deviation σ_j,
//
//	z = max_j |m_j − μ_j| / (σ_j/√n),
//
// about |N(0, 1)| per coordinate when the set is as good as n independent
// draws (less by the factor √(1 − n/M), the set being part of the M). The
// chains' second halves pass the monitor's R̂ and ESS, so μ stands for the
// target's mean far better than the last Keep draws of each chain do: on
// posteriordb's posteriors (seeds that no report reads) the set's mean
// error against the reference draws exceeds z/√n standard deviations by
// at most 0.1 (docs/DECISIONS.md, SGLD). A z above 4 means
// the set's mean lies further from the chains' own than n independent
// draws' would, in a way that is rarer than 1 in 1,000 per coordinate:
// the last draws are autocorrelated (their bulk ESS, "kept_ess_bulk_min",
// a fraction of n) and the set holds fewer draws' worth than it has rows.
const FlagKeptZ = 4.0

// FlagKeptMeanErr, FlagKeptSDLow and FlagKeptSDHigh bound, on any number
// of kept draws, how far the set may stand from the chains' monitored
// draws in units of their standard deviations σ_j: a set is flagged
// "kept" when a coordinate's mean lies more than FlagKeptMeanErr·σ_j from
// theirs (max_j |m_j − μ_j|/σ_j, "kept_mean_err", which is z/√n), or its
// standard deviation s_j over σ_j ("kept_sd_ratio_min", "_max") falls
// outside [FlagKeptSDLow, FlagKeptSDHigh]: the bounds by which the
// posteriordb report calls a set of 100 particles close to the reference,
// applied to the monitored draws, which stand for the target there. The
// z bound (FlagKeptZ) asks for 4 standard errors of n draws and so lets a
// small set stand far off: at N = 10 and 30 (12 and 32 draws) z ≤ 4 allows
// a mean error of 1.15 and 0.71 σ. On posteriordb's posteriors (seeds
// 103–108, which no report reads; docs/DECISIONS.md, "Flags that mean
// something") kept_mean_err is within 0.1 of the set's mean error against
// the reference draws on 88 of 108 sets at N = 10 and 30.
const (
	FlagKeptMeanErr = 0.5
	FlagKeptSDLow   = 0.5
	FlagKeptSDHigh  = 2.0
)

// diagnoseKept records, for a set that holds the last keep draws of each
// chain of a StopConverged run whose monitor read more of them
// (MonitorAll), the kept draws' smallest bulk ESS ("kept_ess_bulk_min")
// and largest split-R̂ ("kept_rhat_max") over the coordinates, computed
// over the chains (at least two chains of at least 4 draws each), the
// monitored draws' number ("monitored_draws") and the set's standardised
// distance to their mean ("kept_mean_z", see FlagKeptZ), their mean error
// and sd ratios against them ("kept_mean_err", "kept_sd_ratio_min" and
// "_max", see FlagKeptMeanErr), with the flag "kept" beyond any of these
// bounds. On few draws per chain the ESS says little:
// metric.BulkESS caps it at n·log₁₀ n, which 8 draws per chain reach
// whatever their autocorrelation (the flag's reason then leaves it out). x is the set and mon the monitored draws of
// every chain, both in the target's coordinates, the set chain by chain,
// rows draws each.
func diagnoseKept(set *particle.Set, x, mon *mat.Dense, chains, rows int) {
	n, d := x.Dims()
	m, _ := mon.Dims()
	if n < 2 || m <= n {
		return
	}
	set.Diag.Set("monitored_draws", float64(m))
	ess, rh := math.NaN(), math.NaN()
	if chains >= 2 && rows >= 4 && chains*rows == n {
		ms := make([]*mat.Dense, chains)
		for i := range ms {
			ms[i] = mat.DenseCopyOf(x.Slice(i*rows, (i+1)*rows, 0, d))
		}
		e, r := metric.BulkESS(ms, nil), metric.SplitRhat(ms, nil)
		ess, rh = math.Inf(1), math.Inf(-1)
		for j := range e {
			ess, rh = nanMin(ess, e[j]), nanMax(rh, r[j])
		}
		set.Diag.Set("kept_ess_bulk_min", ess)
		set.Diag.Set("kept_rhat_max", rh)
	}
	z, zj := 0.0, -1
	sdLo, sdHi, lj, hj := math.Inf(1), math.Inf(-1), -1, -1
	for j := range d {
		mx, sx := colMeanSD(x, j)
		mm, sm := colMeanSD(mon, j)
		zz := math.Abs(mx-mm) / sm * math.Sqrt(float64(n))
		if r := sx / sm; !(r >= sdLo) {
			sdLo, lj = r, j
		}
		if r := sx / sm; !(r <= sdHi) {
			sdHi, hj = r, j
		}
		if !(zz <= z) { // NaN (a constant coordinate) included
			z, zj = zz, j
		}
		if math.IsNaN(zz) {
			break
		}
	}
	set.Diag.Set("kept_mean_z", z)
	meanErr := z / math.Sqrt(float64(n))
	set.Diag.Set("kept_mean_err", meanErr)
	set.Diag.Set("kept_sd_ratio_min", sdLo)
	set.Diag.Set("kept_sd_ratio_max", sdHi)
	switch {
	case !(z <= FlagKeptZ):
		// Reported below.
	case !(meanErr <= FlagKeptMeanErr):
		set.Diag.Raise("kept", "the mean of the last %d draws of each chain lies %.3g sd (> %g) from that of the chains' %d monitored draws (coordinate %d)",
			rows, meanErr, FlagKeptMeanErr, m, zj)
		return
	case !(sdLo >= FlagKeptSDLow) || !(sdHi <= FlagKeptSDHigh):
		r, j := sdLo, lj
		if !(sdHi <= FlagKeptSDHigh) {
			r, j = sdHi, hj
		}
		set.Diag.Raise("kept", "the last %d draws of each chain have %.3g times the sd of the chains' %d monitored draws (coordinate %d; outside [%g, %g])",
			rows, r, m, j, FlagKeptSDLow, FlagKeptSDHigh)
		return
	}
	if !(z <= FlagKeptZ) {
		why := ""
		if ess < float64(n) {
			why = fmt.Sprintf(" (bulk ESS %.3g, R̂ %.3g over the chains)", ess, rh)
		}
		set.Diag.Raise("kept", "the last %d draws of each chain lie %.3g standard errors of %d independent draws (> %g) from the mean of the chains' %d monitored draws (coordinate %d): fewer draws' worth than the set's %d%s",
			rows, z, n, FlagKeptZ, m, zj, n, why)
	}
}

// monitoredX returns the draws of every chain that StopConverged's
// monitor reads, chain by chain, in the target's coordinates (fr).
func monitoredX(fr *laplace.Frame, chains []*chain) *mat.Dense {
	d := len(chains[0].x)
	m := 0
	for _, c := range chains {
		m += c.monitored()
	}
	buf := make([]float64, m*d)
	off := 0
	for _, c := range chains {
		off += c.copyLast(buf[off:], c.monitored())
	}
	_, x := fr.In(nil, mat.NewDense(m, d, buf))
	return x
}

// colMean returns the mean of column j of x.
func colMean(x *mat.Dense, j int) float64 {
	n, _ := x.Dims()
	s := 0.0
	for i := range n {
		s += x.At(i, j)
	}
	return s / float64(n)
}

// colMeanSD returns the mean and the standard deviation (divisor n − 1)
// of column j of x.
func colMeanSD(x *mat.Dense, j int) (float64, float64) {
	n, _ := x.Dims()
	m := colMean(x, j)
	v := 0.0
	for i := range n {
		u := x.At(i, j) - m
		v += u * u
	}
	return m, math.Sqrt(v / float64(n-1))
}

// nanMin and nanMax are math.Min and math.Max that return NaN when either
// argument is NaN.
func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

// diagnose fills set.Diag after the run's last snapshot, so that no
// recorded time includes it:
//
//   - when rhat is true (the convergence monitor of StopConverged did not
//     end the run, else its "rhat_max", "ess_bulk_min" and flag "ceiling"
//     stand for the chains' agreement), rhat_max, the largest split-R̂ of
//     the chains' kept draws (at least two chains of at least 4 draws
//     each), flag "rhat" above FlagRhat;
//   - when Settings.Keep cut the set from more monitored draws
//     (StopConverged with MonitorAll), the kept draws' ESS and R̂ and
//     their distance to the monitored draws, flag "kept" (diagnoseKept);
//   - kish_ess (the number of draws, the weights being equal), and, from
//     full-data scores evaluated at an evenly spread subsample of the draws
//     (metric.SplitBudget of metric.DiagBudget: at most metric.DiagFraction
//     of the run's gradient evaluations, at least metric.MinScored draws or
//     none), the KSD² and the Stein spread ratio (flag "collapse"), and the
//     missed-mode test on the rest of the budget (flag "mode");
//   - iterations, the iterations done.
//
// A draw whose full-data log density or score is not finite is an error
// (*particle.NonFiniteError, point "draw", its row in the set). A whitened
// run computes all of them in the target's own coordinates (fr), so that
// they read the same whatever the run's.
func diagnose(set *particle.Set, t target.Target, fr *laplace.Frame, chains []*chain, rhat bool, at int, evals int64) error {
	t, x := fr.In(t, set.X)
	n, d := x.Dims()
	set.Diag.Set("iterations", float64(at))
	if rows := chains[0].retained(); rhat && len(chains) >= 2 && rows >= 4 {
		// The set holds the chains' retained draws, chain by chain.
		ms := make([]*mat.Dense, 0, len(chains))
		for i, c := range chains {
			if c.retained() != rows || (i+1)*rows > n {
				break
			}
			ms = append(ms, mat.DenseCopyOf(x.Slice(i*rows, (i+1)*rows, 0, d)))
		}
		if len(ms) == len(chains) {
			rh := metric.SplitRhat(ms, nil)
			worst, wj := rh[0], 0
			for j, r := range rh {
				if math.IsNaN(r) {
					worst, wj = r, j
					break
				}
				if r > worst {
					worst, wj = r, j
				}
			}
			set.Diag.Set("rhat_max", worst)
			if !(worst <= FlagRhat) {
				set.Diag.Raise("rhat", "max R̂ %.4g > %g (coordinate %d) over %d chains of %d draws",
					worst, FlagRhat, wj, len(ms), rows)
			}
		}
	}
	if c := chains[0]; c.keep > 0 {
		// The set is the last Keep of the monitored draws (MonitorAll).
		diagnoseKept(set, x, monitoredX(fr, chains), len(chains), c.retained())
	}
	return sampler.DiagnoseSet(&set.Diag, t, x, set.W, evals, particle.Site{Method: "sgld", Iteration: at, Point: "draw"})
}
