package mmdfw

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// diagnose fills set.Diag after the run's clock has stopped, from what the
// run cached (the particles' full-data scores and log densities) and the
// probes of metric.DiagnoseSet, at most metric.DiagFraction of the run's
// gradient evaluations: Kish's ESS of the reported weights, the KSD², the
// Stein spread ratio (flag "collapse") and the missed-mode test (flag
// "mode"). It also records the iterations (particles added).
func (r *run) diagnose(set *particle.Set) {
	n := r.n
	if n == 0 || set.Len() != n {
		return
	}
	metric.DiagnoseSet(&set.Diag, metric.SetDiagnosis{
		X:      set.X,
		W:      set.W,
		S:      r.S.Slice(0, n, 0, r.d).(*mat.Dense),
		LogP:   r.lp[:n],
		Target: r.t,
		Probes: min(metric.MaxProbes, metric.DiagBudget(r.evals, int(r.ndata))),
	})
	set.Diag.Set("iterations", float64(n))
}
