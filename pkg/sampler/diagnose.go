package sampler

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// DiagnoseSet adds to d the diagnostics of the final set of a run that
// spent evals gradient evaluations and has cached no score: the rows x
// (weights w) in the coordinates of t, where
// metric.SplitBudget(n, metric.DiagBudget(evals, NData)) splits the
// budget into the rows it scores (metric.Thin of them) and the probes of
// the missed-mode test, and metric.DiagnoseSet adds the values and flags.
// A scored row whose log density or score is not finite is an error, a
// *particle.NonFiniteError at site with Index the row. SVGD's and SGLD's
// final sets are diagnosed so.
func DiagnoseSet(d *particle.Diagnostics, t target.Target, x *mat.Dense, w []float64, evals int64, site particle.Site) error {
	n, dim := x.Dims()
	scored, probes := metric.SplitBudget(n, metric.DiagBudget(evals, target.NData(t)))
	in := metric.SetDiagnosis{X: x, W: w}
	if scored > 0 {
		in.Rows = metric.Thin(n, scored)
		in.S = mat.NewDense(scored, dim, nil)
		in.LogP = make([]float64, scored)
		for k, i := range in.Rows {
			g := in.S.RawRowView(k)
			in.LogP[k] = t.LogProbGrad(x.RawRowView(i), g)
			if !particle.FiniteEval(in.LogP[k], g) {
				site.Index = i
				return particle.NonFinite(site, in.LogP[k], g)
			}
		}
		in.Target, in.Probes = t, probes
	}
	metric.DiagnoseSet(d, in)
	return nil
}
