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
// "mode"), and the directional spread test (metric.DiagnoseNarrow: flag
// "narrow"). It also records the iterations (particles added). A whitened
// run (ScaleTarget) computes them in the target's own coordinates (frame):
// the particles x = w.ToX(z) with the scores ∇ₓlog p = L⁻ᵀ∇_z log p of the
// cached ones and the target's own probes, so that they read the same
// whatever the run's coordinates.
func (r *run) diagnose(set *particle.Set) {
	n := r.n
	if n == 0 || set.Len() != n {
		return
	}
	t, x, s := r.t, set.X, r.S.Slice(0, n, 0, r.d).(*mat.Dense)
	if f := r.frame; f != nil {
		t, x, s = f.Target, f.W.RowsToX(nil, x), f.W.RowsGradToX(nil, s)
	}
	metric.DiagnoseSet(&set.Diag, metric.SetDiagnosis{
		X:      x,
		W:      set.W,
		S:      s,
		LogP:   r.lp[:n],
		Target: t,
		Probes: min(metric.MaxProbes, metric.DiagBudget(r.evals, int(r.ndata))),
	})
	metric.DiagnoseNarrow(&set.Diag, "mmdfw", x, set.W, s)
	set.Diag.Set("iterations", float64(n))
}
