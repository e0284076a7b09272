package sgld

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// FlagRhat is the largest rank-normalised split-R̂ (metric.SplitRhat) over
// the coordinates of the kept draws of the chains beyond which a result is
// flagged "rhat": the threshold of Vehtari et al. (2021) that HMC uses too.
const FlagRhat = 1.01

// diagnose fills set.Diag after the run's last snapshot, so that no
// recorded time includes it:
//
//   - when rhat is true (the convergence monitor of StopConverged did not
//     end the run, else its "rhat_max", "ess_bulk_min" and flag "ceiling"
//     stand for the chains' agreement), rhat_max, the largest split-R̂ of
//     the chains' kept draws (at least two chains of at least 4 draws
//     each), flag "rhat" above FlagRhat;
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
	nd := target.NData(t)
	scored, probes := metric.SplitBudget(n, metric.DiagBudget(evals, nd))
	in := metric.SetDiagnosis{X: x, W: set.W}
	if scored > 0 {
		in.Rows = metric.Thin(n, scored)
		in.S = mat.NewDense(scored, d, nil)
		in.LogP = make([]float64, scored)
		for k, i := range in.Rows {
			g := in.S.RawRowView(k)
			in.LogP[k] = t.LogProbGrad(x.RawRowView(i), g)
			if !particle.FiniteEval(in.LogP[k], g) {
				return particle.NonFinite(particle.Site{Method: "sgld", Iteration: at, Point: "draw", Index: i}, in.LogP[k], g)
			}
		}
		in.Target, in.Probes = t, probes
	}
	metric.DiagnoseSet(&set.Diag, in)
	return nil
}
