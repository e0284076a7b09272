package paper

import (
	"fmt"
	"math"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The pooled estimates in the report: a table of every declared claim
// under each protocol at the top of the Verdicts section, and in each
// claim's section its statement, test and margin, the pooled estimate, the
// per-data-set table and the exclusions with their reasons.

// estimateText is a value on the result's display scale.
func (r *ClaimResult) estimateText(v float64) string {
	if !report.Finite(v) {
		return "–"
	}
	switch r.Scale {
	case ScaleRatio:
		return fmtRatio(v)
	case ScaleShare:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%+.3g", v)
}

// EstimateText is the pooled estimate with its 95 % interval:
// "1.23 [1.05, 1.44]".
func (r *ClaimResult) EstimateText() string {
	if !report.Finite(r.Estimate) {
		return "–"
	}
	return fmt.Sprintf("%s [%s, %s]", r.estimateText(r.Estimate), r.estimateText(r.Lo), r.estimateText(r.Hi))
}

// PImproveText is P(improvement) as a table cell.
func (r *ClaimResult) PImproveText() string {
	if !report.Finite(r.PImprove) {
		return "–"
	}
	if report.Finite(r.PImproveLo) && report.Finite(r.PImproveHi) {
		return fmt.Sprintf("%.2f [%.2f, %.2f]", r.PImprove, r.PImproveLo, r.PImproveHi)
	}
	return fmt.Sprintf("%.2f", r.PImprove)
}

// TestText says the test and its margin: "superiority, margin ×1.1".
func (r *ClaimResult) TestText() string {
	switch {
	case r.Scale == ScaleShare:
		return "every counted series passes"
	case r.Scale == ScaleRatio:
		return fmt.Sprintf("%s, margin ×%.3g", r.Test, r.Margin[1])
	}
	return fmt.Sprintf("%s, margin ±%.3g", r.Test, r.Margin[1])
}

// WritePooled writes the table of pooled verdicts: each declared claim
// under each protocol, its pooled estimate [95 % CI], P(improvement) and
// verdict. The claims are the paper's (PaperClaimsFile).
func WritePooled(b *strings.Builder, rs []ClaimResult) { WritePooledFrom(b, rs, PaperClaimsFile) }

// WritePooledFrom writes the table of pooled verdicts as WritePooled
// does, of claims declared in the claims file named file.
func WritePooledFrom(b *strings.Builder, rs []ClaimResult, file string) {
	if len(rs) == 0 {
		return
	}
	b.WriteString("**Pooled verdicts.** One estimate per claim and protocol: over the data sets, the mean of each one's mean paired contrast " +
		"(log ratio or difference, oriented so that above the no-effect line goes the claim's way), with a 95 % stratified bootstrap interval " +
		fmt.Sprintf("(%d resamples of the splits within each data set, seeded). ", BootstrapResamples) +
		"P(improvement) is the probability of improvement as rliable defines it for paired runs: per data set the share of its splits on which the arm under test does better (a tie counts ½), averaged over the data sets, with its 95 % interval from the same resamples. The verdict reads the interval against the margin the claims file " +
		"declares (" + file + "); each claim's section lists what is excluded and why.\n\n")
	b.WriteString("| claim | statement | protocol | test | pooled estimate [95 % CI] | P(improvement) | verdict |\n|---|---|---|---|---|---|---|\n")
	for i := range rs {
		r := &rs[i]
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | **%s** |\n", r.ID, r.Statement, protocolWord(r.Protocol), r.TestText(), r.EstimateText(), r.PImproveText(), r.VerdictText())
	}
	b.WriteString("\n")
}

// WriteClaimPooled writes the pooled estimates of the claims of rs shown
// in section: per claim and protocol the statement, test and margin,
// the estimate, P(improvement), the verdict, the per-data-set table with
// Holm-adjusted p-values, and the exclusions with their reasons.
func WriteClaimPooled(b *strings.Builder, rs []ClaimResult, section int) {
	for i := range rs {
		r := &rs[i]
		if r.Section != section {
			continue
		}
		fmt.Fprintf(b, "**Claim %s, %s protocol: %s.** %s. Test: %s. Pooled estimate %s, P(improvement) %s. %s.\n\n",
			r.ID, protocolWord(r.Protocol), r.VerdictText(), r.Statement, r.TestText(), r.EstimateText(), r.PImproveText(), upperFirst(r.Why))
		if len(r.PerDataset) > 0 {
			est := "mean [95 % paired-t CI]"
			if r.Scale == ScaleShare {
				est = "share of series linear"
			}
			fmt.Fprintf(b, "| data set and contrast | splits | %s | Holm-adjusted p | verdict | excluded |\n|---|---|---|---|---|---|\n", est)
			for _, d := range r.PerDataset {
				e := "–"
				if report.Finite(d.Est) {
					e = r.estimateText(d.Est)
					if report.Finite(d.Lo) {
						e += fmt.Sprintf(" [%s, %s]", r.estimateText(d.Lo), r.estimateText(d.Hi))
					}
				}
				p := "–"
				if !math.IsNaN(d.PHolm) {
					p = fmt.Sprintf("%.2g", d.PHolm)
				}
				fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s |\n", report.CellText(d.Label), d.N, e, p, orDash(d.Verdict), orDash(d.Excluded))
			}
			b.WriteString("\n")
		}
		if len(r.Excluded) > 0 {
			fmt.Fprintf(b, "Excluded from the pooled estimate (%d):\n\n", len(r.Excluded))
			for _, e := range r.Excluded {
				fmt.Fprintf(b, "- %s\n", e.Text())
			}
			b.WriteString("\n")
		}
	}
}

// sectionResults returns the results of rs shown in section.
func sectionResults(rs []ClaimResult, section int) []ClaimResult {
	var out []ClaimResult
	for _, r := range rs {
		if r.Section == section {
			out = append(out, r)
		}
	}
	return out
}
