package sgld

import (
	"math"

	"gonum.org/v1/gonum/mat"

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
//   - rhat_max, the largest split-R̂ of the chains' kept draws (at least two
//     chains of at least 4 draws each), flag "rhat" above FlagRhat;
//   - kish_ess (the number of draws, the weights being equal), and, from
//     full-data scores evaluated at an evenly spread subsample of the draws
//     (metric.SplitBudget of metric.DiagBudget: at most metric.DiagFraction
//     of the run's gradient evaluations, at least metric.MinScored draws or
//     none), the KSD² and the Stein spread ratio (flag "collapse"), and the
//     missed-mode test on the rest of the budget (flag "mode");
//   - iterations, the iterations done.
//
// A draw whose full-data log density or score is not finite is an error
// (*particle.NonFiniteError, point "draw", its row in the set).
func diagnose(set *particle.Set, t target.Target, chains []*chain, at int, evals int64) error {
	n, d := set.X.Dims()
	set.Diag.Set("iterations", float64(at))
	if rows := chains[0].retained(); len(chains) >= 2 && rows >= 4 {
		ms := make([]*mat.Dense, 0, len(chains))
		for _, c := range chains {
			if c.retained() != rows {
				break
			}
			m := mat.NewDense(rows, d, nil)
			c.copyDraws(m.RawMatrix().Data)
			ms = append(ms, m)
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
	in := metric.SetDiagnosis{X: set.X, W: set.W}
	if scored > 0 {
		in.Rows = metric.Thin(n, scored)
		in.S = mat.NewDense(scored, d, nil)
		in.LogP = make([]float64, scored)
		for k, i := range in.Rows {
			g := in.S.RawRowView(k)
			in.LogP[k] = t.LogProbGrad(set.X.RawRowView(i), g)
			if !particle.FiniteEval(in.LogP[k], g) {
				return particle.NonFinite(particle.Site{Method: "sgld", Iteration: at, Point: "draw", Index: i}, in.LogP[k], g)
			}
		}
		in.Target, in.Probes = t, probes
	}
	metric.DiagnoseSet(&set.Diag, in)
	return nil
}
