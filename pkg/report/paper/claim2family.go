package paper

import (
	"fmt"
	"math"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// Claim2Experiments are the experiments whose MMD-FW series claim 2
// reads, in the order of its table: Fig. 1(b) and Fig. 2(b), the BNN
// series whose reference converges (bnn-rate) and the linear-convergence
// check (rff).
var Claim2Experiments = []string{"fig1b", "fig2b", "bnn-rate", "rff"}

// rateFamily is one family of comparable claim-2 series: the series of one
// dataset whose LMO scores candidates the same way (full data, or
// minibatches of the same size), so that their particles cost the same
// per LMO step and their rates compare. The claim is read within each
// family: a family is supported when every counted series of it is linear.
type rateFamily struct {
	dataset, label, score string
	pass, total, listed   int
	grads                 []float64 // mean gradient evaluations of each series
	linear, flat          []string  // the counted series by outcome
	partial               int       // counted series read on some splits only
	on                    string    // those splits and the metric, as the rows give them
}

// rateFamilies collects the families of claim 2 in the order their first
// series appear.
type rateFamilies []*rateFamily

// of returns the family of dataset ds (printed as label) with scoring
// score, adding it when new.
func (fs *rateFamilies) of(ds, label, score string) *rateFamily {
	for _, f := range *fs {
		if f.dataset == ds && f.score == score {
			return f
		}
	}
	f := &rateFamily{dataset: ds, label: label, score: score}
	*fs = append(*fs, f)
	return f
}

// add records one series of the family: counted (linear or not) or listed
// (measured against a flagged reference), with its mean gradient
// evaluations at its largest N.
func (f *rateFamily) add(name string, counted, linear bool, grads float64) {
	f.grads = append(f.grads, grads)
	switch {
	case !counted:
		f.listed++
	case linear:
		f.total++
		f.pass++
		f.linear = append(f.linear, name)
	default:
		f.total++
		f.flat = append(f.flat, name)
	}
}

// gradRange prints the range of the family's gradient evaluations: one
// figure when its series cost the same.
func (f *rateFamily) gradRange() string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range f.grads {
		if report.Finite(g) {
			lo, hi = math.Min(lo, g), math.Max(hi, g)
		}
	}
	switch {
	case lo > hi:
		return "–"
	case lo == hi:
		return report.FormatG(lo)
	}
	return report.FormatG(lo) + "–" + report.FormatG(hi)
}

// why is the family's clause of the claim's reason: "Covertype, full-data
// (3.3e+08 gradient evaluations): 4 of 4 linear".
func (f *rateFamily) why() string {
	s := fmt.Sprintf("%s, %s (%s gradient evaluations): %d of %d linear", f.label, f.score, f.gradRange(), f.pass, f.total)
	if f.partial > 0 {
		s += fmt.Sprintf(" (%d on %s)", f.partial, f.on)
	}
	if f.listed > 0 {
		s += fmt.Sprintf(", %d listed against a flagged reference", f.listed)
	}
	return s
}

// table is the claim's per-family table.
func (fs rateFamilies) table(cells map[string][]*report.Cell) ClaimTable {
	t := ClaimTable{Title: "By family of comparable series (one dataset, candidates scored the same way); the claim is read within each",
		Header: []string{"dataset", "candidate scoring", "gradient evaluations (at the largest N)", "linear / counted", "linear series", "not linear",
			"listed (flagged reference)", "reference (worst split)", "verdict"}}
	for _, f := range fs {
		t.Rows = append(t.Rows, []string{f.label, f.score, f.gradRange(), fmt.Sprintf("%d / %d", f.pass, f.total),
			orDash(strings.Join(f.linear, ", ")), orDash(strings.Join(f.flat, ", ")), fmt.Sprint(f.listed),
			refWorst(cells[f.dataset], f.dataset), string(every(f.pass, f.total))})
	}
	return t
}

// whyFamilies is the claim's reason family by family.
func (fs rateFamilies) whyFamilies() string {
	var l []string
	for _, f := range fs {
		if f.total+f.listed > 0 {
			l = append(l, f.why())
		}
	}
	if len(l) == 0 {
		return ""
	}
	return " Within families of comparable series (one dataset, candidates scored the same way): " + strings.Join(l, "; ") + "."
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// refWorst prints the reference diagnostics of ds over its splits as the
// done cells record them: the largest split-R̂ and the smallest bulk ESS
// over the coordinates of the draws (parameters), and over the network's
// outputs at the fmmd2 inputs (predictions) where recorded; "exact" for a
// closed-form reference.
func refWorst(cells []*report.Cell, ds string) string {
	if report.ExactReference(cells, ds) {
		return "exact (closed form)"
	}
	r, e := math.Inf(-1), math.Inf(1)
	pr, pe := math.Inf(-1), math.Inf(1)
	n, np, inputs := 0, 0, 0
	seen := map[int]bool{}
	for _, c := range report.Done(cells) {
		if c.Prov.Dataset != ds || seen[c.Prov.Split] {
			continue
		}
		m, ok := report.RefSummary(c)
		if !ok {
			continue
		}
		seen[c.Prov.Split] = true
		n++
		for k, v := range m {
			switch report.NormKey(k) {
			case "maxrhat", "rhatmax":
				r = math.Max(r, report.SummaryNumber(v))
			case "miness", "essmin", "minbulkess":
				e = math.Min(e, report.SummaryNumber(v))
			}
		}
		if d, ok := report.CellPredDiag(c); ok {
			np++
			inputs = d.Inputs
			pr, pe = math.Max(pr, d.MaxRhat), math.Min(pe, d.MinESS)
		}
	}
	if n == 0 {
		return "–"
	}
	s := fmt.Sprintf("parameters: max R̂ %.4g, min ESS %.4g (%d splits)", r, e, n)
	if np > 0 {
		s += fmt.Sprintf("; predictions at %d inputs: max R̂ %.4g, min ESS %.4g", inputs, pr, pe)
	}
	return s
}

// rawWeightsText adds "raw weights" to the weights text wr of a BQ or
// line-search rule with a z ("bq (z from an HMC pool, raw weights)") when
// the method's cells of ds record raw_weights = true: weights as solved,
// not rescaled to sum one.
func rawWeightsText(cells []*report.Cell, ds, method, wr string) string {
	if !strings.HasSuffix(wr, ")") {
		return wr
	}
	for _, c := range report.CellsOf(report.Done(cells), ds) {
		if c.Prov.Method == method && settingString(c, "raw_weights") == "true" {
			return strings.TrimSuffix(wr, ")") + ", raw weights)"
		}
	}
	return wr
}
