package svgd

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// checkScores returns a *particle.NonFiniteError for the first particle
// whose log density (or minibatch estimate) or score is not finite at
// iteration it (from 1), and nil when all are. It allocates nothing.
func (st *state) checkScores(it int) error {
	for i, lp := range st.lp {
		if g := st.scores.RawRowView(i); !particle.FiniteEval(lp, g) {
			return particle.NonFinite(particle.Site{Method: "svgd", Iteration: it, Point: "particle", Index: i}, lp, g)
		}
	}
	return nil
}

// conclude returns set, the current particles after it iterations, with
// their diagnostics when err is nil (and Settings.NoDiagnostics is not set),
// and the *particle.FlaggedError of Settings.Strict.
func (st *state) conclude(set particle.Set, it int, err error) (particle.Set, error) {
	if err != nil || st.s.NoDiagnostics {
		return set, err
	}
	if err := st.diagnose(&set, it); err != nil {
		return particle.Set{}, err
	}
	return set, particle.Strict("svgd", set, st.s.Strict)
}

// diagnose fills set.Diag after the run's last snapshot. SVGD caches no
// full-data score of its final particles, so it evaluates them at an evenly
// spread subsample (metric.SplitBudget of metric.DiagBudget: at most
// metric.DiagFraction of the run's gradient evaluations, between
// metric.MinScored and metric.MaxScored particles, none below) and spends the
// rest of the budget on probes: Kish's ESS (n), the KSD² and the Stein
// spread ratio of the subsample (flag "collapse"), the missed-mode test
// (flag "mode"), and the iterations. A final particle whose log density or
// score is not finite is an error (*particle.NonFiniteError, point "final
// particle"). A whitened run computes them in the target's own coordinates
// (frame), so that they read the same whatever the run's.
func (st *state) diagnose(set *particle.Set, it int) error {
	t, x := st.frame.In(st.t, set.X)
	n, d := x.Dims()
	nd := target.NData(t)
	scored, probes := metric.SplitBudget(n, metric.DiagBudget(st.evals, nd))
	in := metric.SetDiagnosis{X: x, W: set.W}
	if scored > 0 {
		in.Rows = metric.Thin(n, scored)
		in.S = mat.NewDense(scored, d, nil)
		in.LogP = make([]float64, scored)
		for k, i := range in.Rows {
			g := in.S.RawRowView(k)
			in.LogP[k] = t.LogProbGrad(x.RawRowView(i), g)
			if !particle.FiniteEval(in.LogP[k], g) {
				return particle.NonFinite(particle.Site{Method: "svgd", Iteration: it, Point: "final particle", Index: i}, in.LogP[k], g)
			}
		}
		in.Target, in.Probes = t, probes
	}
	metric.DiagnoseSet(&set.Diag, in)
	set.Diag.Set("iterations", float64(it))
	return nil
}
