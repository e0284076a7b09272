package samplertest

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// KnownRow is a row of the table of WriteKnownTable: a method's name and
// its result on one target.
type KnownRow struct {
	Method string
	Result KnownResult
}

// WriteKnownTable writes the rows as an aligned table, one line per run:
//
//	method     the row's Method
//	target     the target's name
//	n          the particles of the set
//	kish       the set's Kish ESS
//	ess        the ESS of the tolerances (see Known)
//	|Δm|/sd    the largest |mean error| / σⱼ over the mean checks
//	var ratio  the range of E(xⱼ − mⱼ)²/σⱼ² over the variance checks
//	|Δρ|       the largest correlation error over the correlation checks
//	spread     E(x − m)ᵀΣ⁻¹(x − m)/d of a Gaussian (1 when right)
//	P (exact)  the set's probabilities of the probability checks, each
//	           followed by the exact value (a range over consecutive checks
//	           of one exact value)
//	steps      the Step of the run's last snapshot (particles for MMD-FW and
//	           Stein Points, iterations for the others)
//	grads      its gradient evaluations
//	s          the wall time of Run in seconds
//	verdict    pass, "flagged: reason", "error: message" or "FAIL: why";
//	           a passing set that is flagged anyway shows its flags
//
// A column without checks of its kind shows "-".
func WriteKnownTable(w io.Writer, rows []KnownRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\ttarget\tn\tkish\tess\t|Δm|/sd\tvar ratio\t|Δρ|\tspread\tP (exact)\tsteps\tgrads\ts\tverdict")
	for _, row := range rows {
		r := row.Result
		n, kish, ess, dm, vr, dr, sp, p := "-", "-", "-", "-", "-", "-", "-", "-"
		if r.Err == nil {
			n = fmt.Sprint(r.Set.Len())
		}
		if r.Checks != nil {
			kish, ess = fmt.Sprintf("%.0f", r.Kish), fmt.Sprintf("%.0f", r.ESS)
			dm, vr, dr, sp, p = summarise(r.Checks)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.2f\t%s\n", row.Method, r.Target.Name, n, kish, ess, dm, vr, dr, sp, p,
			r.Steps, r.GradEvals, r.Seconds, verdictLine(r))
	}
	return tw.Flush()
}

// summarise returns the table's check columns.
func summarise(cs []CheckResult) (dm, vr, dr, sp, p string) {
	dmax, rmin, rmax, cmax := -1.0, math.Inf(1), math.Inf(-1), -1.0
	sp = "-"
	var probs []string
	for _, c := range cs {
		switch c.Kind {
		case CheckMean:
			dmax = max(dmax, math.Abs(c.Estimate-c.Exact)/c.SD)
		case CheckVar:
			rmin, rmax = min(rmin, c.Estimate/c.Exact), max(rmax, c.Estimate/c.Exact)
		case CheckCorr:
			cmax = max(cmax, math.Abs(c.Estimate-c.Exact))
		case CheckSpread:
			sp = fmt.Sprintf("%.2f", c.Estimate/c.Exact)
		}
	}
	// Consecutive probabilities with one exact value (the funnel's
	// P(|xᵢ| < 1)) show as one range.
	for i := 0; i < len(cs); {
		c := cs[i]
		if c.Kind != CheckProb {
			i++
			continue
		}
		j, lo, hi := i+1, c.Estimate, c.Estimate
		for ; j < len(cs) && cs[j].Kind == CheckProb && cs[j].Exact == c.Exact; j++ {
			lo, hi = min(lo, cs[j].Estimate), max(hi, cs[j].Estimate)
		}
		if j == i+1 {
			probs = append(probs, fmt.Sprintf("%s=%.3f (%.3f)", c.Name, c.Estimate, c.Exact))
		} else {
			probs = append(probs, fmt.Sprintf("%s…%s=%.3f–%.3f (%.3f)", c.Name, cs[j-1].Name, lo, hi, c.Exact))
		}
		i = j
	}
	dm, vr, dr, p = "-", "-", "-", "-"
	if dmax >= 0 {
		dm = fmt.Sprintf("%.2f", dmax)
	}
	if rmax >= rmin {
		vr = fmt.Sprintf("%.2f–%.2f", rmin, rmax)
	}
	if cmax >= 0 {
		dr = fmt.Sprintf("%.2f", cmax)
	}
	if probs != nil {
		p = strings.Join(probs, " ")
	}
	return dm, vr, dr, sp, p
}

// verdictLine returns the verdict column of r.
func verdictLine(r KnownResult) string {
	switch r.Verdict {
	case Pass:
		if r.Set.Diag.Flagged() {
			return "pass (flagged: " + r.Set.Diag.Reason() + ")"
		}
		return "pass"
	case Flagged:
		return "flagged: " + r.Set.Diag.Reason() + " [" + r.Why + "]"
	case Errored:
		return "error: " + errorLine(r.Err)
	}
	return "FAIL: " + r.Why
}
