package paper

import (
	"fmt"
	"math"

	"github.com/mmdfw/mmdfw/pkg/report"

	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"gonum.org/v1/gonum/mat"
)

// Claim 4's paper statement is about "high dimensionality". Stein Points
// runs on Covertype's logistic regression (d = 56) only; this says why it
// is not run on the networks, from the cost of its candidate search, or
// where it is run once an experiment declares it.

// The network Stein Points would face: Naval's, the set of fig2a and fig2b.
const (
	// navalInputs is the number of input columns of naval-propulsion-plant
	// (its index_features.txt lists 16, two of them constant).
	navalInputs = 16
	// bnnHidden is the hidden width of every UCI network but Year's.
	bnnHidden = 50
)

// spBNNScope says where Stein Points runs on a regression network, or why
// it does not: each point's candidate search scores sp.DefaultCandidates
// Monte Carlo candidates and refines the best by Nelder–Mead with up to
// sp.DefaultNelderMeadPer·d objective evaluations, each a full-data score,
// that is n per-datapoint gradient evaluations (n the training rows, read
// from fig2b's HMC reference, whose gradients are full-data too).
func spBNNScope(res *report.Results) string {
	var ran []string
	for _, id := range []string{"fig2a", "fig2b", "table1"} {
		for _, c := range report.Done(res.Reported(id)) {
			if IsSP(c.Prov.Kind) {
				ran = append(ran, id)
				break
			}
		}
	}
	if len(ran) > 0 {
		return fmt.Sprintf("Stein Points runs on the network in %s (see those figures); this claim's contrasts are Fig. 1's.", joinAnd(ran))
	}
	d := model.NewBNN(mat.NewDense(1, navalInputs, nil), []float64{0}, bnnHidden).Dim()
	calls := sp.DefaultCandidates + sp.DefaultNelderMeadPer*d
	s := fmt.Sprintf("Stein Points is run on Covertype's logistic regression (d = 56) only, not on the networks of fig2a, fig2b and Table 1. The reason is the cost of "+
		"its candidate search: each point scores %d Monte Carlo candidates and refines the best by Nelder–Mead with up to %d·d objective evaluations (the original's "+
		"fminsearch cap), each a score on the full training data; on Naval's network (d = %d: %d inputs, %d hidden units) that is up to %d score calls per point",
		sp.DefaultCandidates, sp.DefaultNelderMeadPer, d, navalInputs, bnnHidden, calls)
	if n := fullDataRows(res, "fig2b"); n > 0 {
		g := float64(calls) * n
		s += fmt.Sprintf(", each of %.0f per-datapoint gradients (the rows of a full-data gradient of fig2b's HMC reference): %.2g gradient evaluations for one point", n, g)
		if b := MakeTable(res, "table1").BudgetGradEvals(BudgetLevels[2]); b > 0 {
			s += fmt.Sprintf(", %.0f× Table 1's whole 4× budget (%.2g)", g/float64(b), float64(b))
		}
	}
	if lo, hi := spFirstPoint(res); hi > 0 {
		s += fmt.Sprintf(". On Covertype (d = 56) its first point cost %.3g to %.3g gradient evaluations (the Stein Points cells of fig1a and fig1b)", lo, hi)
	}
	return s + "."
}

// fullDataRows is the number of per-datapoint gradients of one full-data
// gradient in experiment id: its HMC reference's gradient evaluations over
// its chains' gradient calls (0 when no cell records them).
func fullDataRows(res *report.Results, id string) float64 {
	for _, c := range report.Done(res.Reported(id)) {
		m, ok := report.RefSummary(c)
		if !ok {
			continue
		}
		chains, _ := m["per_chain"].([]any)
		var calls float64
		for _, ch := range chains {
			if x, ok := ch.(map[string]any); ok {
				if v := report.SummaryNumber(x["grad_calls"]); report.Finite(v) {
					calls += v
				}
			}
		}
		if g := report.SummaryNumber(m["grad_evals"]); calls > 0 && g > 0 {
			return math.Round(g / calls)
		}
	}
	return 0
}

// spFirstPoint is the range over the Stein Points cells of fig1a and fig1b
// of the gradient evaluations at their first point (0, 0 when none).
func spFirstPoint(res *report.Results) (lo, hi float64) {
	lo = math.Inf(1)
	for _, id := range []string{"fig1a", "fig1b"} {
		for _, c := range report.Done(res.Reported(id)) {
			if !IsSP(c.Prov.Kind) {
				continue
			}
			for _, r := range c.Rows {
				if r.Step == 1 && r.GradEvals > 0 {
					lo, hi = math.Min(lo, float64(r.GradEvals)), math.Max(hi, float64(r.GradEvals))
					break
				}
			}
		}
	}
	if hi == 0 {
		return 0, 0
	}
	return lo, hi
}
