package sp

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// diagnose fills set.Diag from what the run cached (the points' full-data
// scores and log densities) and the probes of metric.DiagnoseSet, at most
// metric.DiagFraction of the run's score calls: Kish's ESS (n, the weights
// being equal), the KSD² (IMQ c = 1, β = −½, whatever Settings.C and Beta),
// the Stein spread ratio (flag "collapse") and the missed-mode test (flag
// "mode"). It also records the iterations (points placed). It runs after
// the last snapshot, so that no recorded time includes it. A whitened run
// computes them in the target's own coordinates (frame): the points x =
// w.ToX(z) with the scores ∇ₓlog p = L⁻ᵀ∇_z log p of the cached ones and
// the target's own probes, so that they read the same whatever the run's
// coordinates.
func (r *runner) diagnose(set *particle.Set) {
	o := r.obj
	if o.n == 0 || set.Len() != o.n {
		return
	}
	t, x := r.t, set.X
	s := mat.NewDense(o.n, o.d, o.s[:o.n*o.d])
	if f := r.frame; f != nil {
		t, x, s = f.Target, f.W.RowsToX(nil, x), f.W.RowsGradToX(nil, s)
	}
	nd := target.NData(t)
	metric.DiagnoseSet(&set.Diag, metric.SetDiagnosis{
		X:      x,
		W:      set.W,
		S:      s,
		LogP:   o.lps[:o.n],
		Target: t,
		Probes: min(metric.MaxProbes, metric.DiagBudget(o.calls*int64(nd), nd)),
	})
	set.Diag.Set("iterations", float64(o.n))
}
