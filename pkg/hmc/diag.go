package hmc

import (
	"math"

	"github.com/mmdfw/mmdfw/pkg/metric"
)

// flag marks the result Flagged for reason and raises the same reason with
// code in Set.Diag.
func (r *Result) flag(code, reason string) {
	r.Flagged = true
	r.Reasons = append(r.Reasons, reason)
	r.Set.Diag.Raise(code, "%s", reason)
}

// fillDiag records in Set.Diag, after the run's clock has stopped, the
// values behind Flagged: rhat_max and ess_bulk_min (MaxRhat, MinESS),
// ess_tail_min (the smallest metric.TailESS over the coordinates, recorded
// only: the flags are R̂ > Settings.MaxRhat, bulk ESS < Settings.MinESS and
// divergences, raised by diagnose), divergences (sampling transitions, all
// chains), iterations (draws per chain), capped_share_max (the largest
// share over the chains of sampling transitions truncated at
// Settings.MaxSteps, ChainDiagnostics.Capped over Draws) and path_steps_max
// (the largest ChainDiagnostics.PathSteps, when finite; the flag "capped" is
// PathSteps ≥ MaxSteps). It adds no flag.
func (r *Result) fillDiag() {
	d := &r.Set.Diag
	var div int
	share, path := 0.0, 0.0
	for _, dg := range r.Diagnostics {
		div += dg.Divergences
		if dg.Draws > 0 {
			share = math.Max(share, float64(dg.Capped)/float64(dg.Draws))
		}
		path = math.Max(path, dg.PathSteps)
	}
	d.Set("divergences", float64(div))
	d.Set("capped_share_max", share)
	if !math.IsNaN(path) && !math.IsInf(path, 0) {
		d.Set("path_steps_max", path)
	}
	n, _ := r.Chains[0].Dims()
	d.Set("iterations", float64(n))
	if n < 4 {
		return
	}
	d.Set("rhat_max", r.MaxRhat)
	d.Set("ess_bulk_min", r.MinESS)
	tail := math.Inf(1)
	for _, v := range metric.TailESS(r.Chains, nil) {
		if math.IsNaN(v) {
			tail = v
			break
		}
		tail = math.Min(tail, v)
	}
	d.Set("ess_tail_min", tail)
}
