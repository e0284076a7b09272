package sp

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// MaxKSDRatio is the largest ksd_ratio of metric.DiagnoseSet (the set's
// KSD², IMQ c = 1, β = −½ in the target's coordinates, over its expectation
// Σᵢ k₀(xᵢ, xᵢ)/n² for n independent draws of the target) that a set of
// Stein Points is returned with unflagged. Points chosen one by one to
// minimise a KSD come out at least as regular as independent draws: ratios
// 0.45–1.0 where the zero settings are right on the known targets (gauss5,
// gauss50, student5), 0.03–0.15 on one mode of a mixture, at most 0.70 on
// the unflagged posteriordb cells. A ratio of several means that the run's
// own kernel (whitened, of width √d) does not see a part of the target the
// points miss: 4.7–5.2 on the banana, whose ridge they fill without its
// arms. Exact draws reach 3.1 at most (docs/DECISIONS.md).
const MaxKSDRatio = 3.5

// diagnose fills set.Diag from what the run cached (the points' full-data
// scores and log densities) and the probes of metric.DiagnoseSet, at most
// metric.DiagFraction of the run's score calls: Kish's ESS (n, the weights
// being equal), the KSD² (IMQ c = 1, β = −½, whatever Settings.C and Beta),
// the Stein spread ratio (flag "collapse") and the missed-mode test (flag
// "mode"), the directional spread test (metric.DiagnoseNarrow: flag
// "narrow"), and the flag "coverage" when the KSD² in that kernel is above
// MaxKSDRatio times that of as many independent draws. It also records
// the iterations (points placed). It runs after the last snapshot, so
// that no recorded time includes it. A whitened run computes them in the
// target's own coordinates (frame): the points x = w.ToX(z) with the
// scores ∇ₓlog p = L⁻ᵀ∇_z log p of the cached ones and the target's own
// probes, so that they read the same whatever the run's coordinates.
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
	metric.DiagnoseNarrow(&set.Diag, "sp", x, set.W, s)
	set.Diag.Set("iterations", float64(o.n))
	if v, ok := set.Diag.Values["ksd_ratio"]; ok && v > MaxKSDRatio {
		set.Diag.Raise("coverage", "sp: the points' KSD² (IMQ c = 1 in the target's coordinates) is %.3g times that of as many "+
			"independent draws (above %g), where points minimising a KSD come out below 1: the run's kernel misses a part of "+
			"the target the points do not reach", v, MaxKSDRatio)
	}
}
