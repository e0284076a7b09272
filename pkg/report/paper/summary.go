package paper

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The one-page summary that opens the report: the pooled verdict of every
// declared claim under each protocol, one plain sentence per claim, the
// practitioner's answer, posteriordb in two sentences, and links to the
// sections that hold the evidence. README's outcome paragraph is
// OutcomeParagraph of the same results.

// SummaryMaxLines bounds the summary: a page a reader takes in.
const SummaryMaxLines = 60

// SentenceMaxWords bounds a claim's sentence.
const SentenceMaxWords = 30

// OutcomeMaxWords bounds the outcome paragraph that README repeats.
const OutcomeMaxWords = 150

// Summary writes the summary (report.Summarizer).
func (Plugin) Summary(b *strings.Builder, res *report.Results, opts report.Options) {
	WriteSummary(b, res, ClaimResults(res), opts)
}

// WriteSummary writes the summary of res with the claims' results rs.
func WriteSummary(b *strings.Builder, res *report.Results, rs []ClaimResult, opts report.Options) {
	if len(rs) == 0 {
		return
	}
	b.WriteString("## Summary\n\n")
	fmt.Fprintf(b, "Each claim is declared in `%s` and judged by one pooled estimate: the mean over its data sets of their paired contrasts over splits, "+
		"with a 95 %% stratified bootstrap interval; a ratio above 1 or a difference above 0 goes the claim's way. "+
		"The paper's protocol is the paper's arms, seconds and final snapshots; the fair one is the tuned or trained arms, gradient evaluations and snapshots chosen on development rows.\n\n",
		PaperClaimsFile)
	if quickProfile(res) {
		b.WriteString("**One split per data set (the quick profile): these numbers show that the pipeline works and decide nothing.**\n\n")
	}
	b.WriteString("| claim | protocol | pooled estimate [95 % CI] | P(improvement) | verdict |\n|---|---|---|---|---|\n")
	for i := range rs {
		r := &rs[i]
		claim := ""
		if i == 0 || rs[i-1].ID != r.ID {
			claim = r.ID + ". " + r.Statement
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | **%s** |\n", claim, protocolWord(r.Protocol), r.EstimateText(), r.PImproveText(), r.VerdictText())
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "**Outcome.** %s\n\n", OutcomeParagraph(res, rs))
	if opts.Figures != "" {
		// The forest plot of each primary claim under the fair protocol,
		// or the paper's where the fair one has none.
		var figs []string
		for _, id := range primaryIDs(rs) {
			var pick *ClaimResult
			for i := range rs {
				if r := &rs[i]; r.ID == id && len(r.PerDataset) > 0 && report.Finite(r.Estimate) && (pick == nil || r.Protocol == fair) {
					pick = r
				}
			}
			if pick != nil {
				figs = append(figs, fmt.Sprintf("[claim %s, %s](%s)", id, protocolWord(pick.Protocol), path.Join(opts.Figures, pick.ForestName()+".png")))
			}
		}
		if len(figs) > 0 {
			b.WriteString("Forest plots: " + strings.Join(figs, " · ") + ".\n\n")
		}
	}
	// The secondary claims (4a, 5a), which the outcome leaves out.
	prim := claimSentences(rs, false)
	var more int
	for _, s := range claimSentences(rs, true) {
		if !slices.Contains(prim, s) {
			b.WriteString("- " + s + "\n")
			more++
		}
	}
	if more > 0 {
		b.WriteString("\n")
	}
	writeSummaryPractice(b, res)
	writeSummaryPDB(b, res, opts)
	var links []string
	for _, h := range []string{"Verdicts", "Which to use: Table 1's arms from a trained network at equal budget", "Claim 1", "Claim 2", "Claim 3", "Claim 4", "Claim 5",
		"Table 1", "posteriordb", "Deviations from the paper", "Flagged results"} {
		label := h
		if i := strings.Index(h, ":"); i > 0 {
			label = h[:i]
		}
		links = append(links, fmt.Sprintf("[%s](#%s)", label, report.HeadingAnchor(h)))
	}
	b.WriteString("Details: " + strings.Join(links, " · ") + ".\n\n")
}

// claimSentences returns one plain sentence per claim section: the
// primary claim's (its id a number), or with secondary true also one per
// secondary claim (4a, 5a).
func claimSentences(rs []ClaimResult, secondary bool) []string {
	type both struct{ paper, fair *ClaimResult }
	var order []string
	by := map[string]*both{}
	for i := range rs {
		r := &rs[i]
		if by[r.ID] == nil {
			by[r.ID] = &both{}
			order = append(order, r.ID)
		}
		if r.Protocol == paper {
			by[r.ID].paper = r
		} else {
			by[r.ID].fair = r
		}
	}
	var out []string
	for _, id := range order {
		if !secondary && strings.IndexFunc(id, func(c rune) bool { return c < '0' || c > '9' }) >= 0 {
			continue
		}
		out = append(out, claimSentence(id, by[id].paper, by[id].fair))
	}
	return out
}

// verdictWords says a verdict in a sentence.
func verdictWords(r *ClaimResult) string {
	if r == nil {
		return "not measured"
	}
	switch v := r.VerdictText(); v {
	case VerdictUnmeasured:
		return "not measured"
	case noVerdict:
		return "no verdict from one split"
	default:
		return v
	}
}

// claimSentence is one claim in at most 30 words: its statement, the
// verdict under each protocol and on which side of no effect the deciding
// estimate lies (the numbers are in the table above it).
func claimSentence(id string, p, f *ClaimResult) string {
	r := f
	if r == nil {
		r = p
	}
	var s string
	if vp, vf := verdictWords(p), verdictWords(f); vp == vf {
		s = fmt.Sprintf("Claim %s, %s: %s under both protocols", id, lowerFirst(r.Statement), vp)
	} else {
		s = fmt.Sprintf("Claim %s, %s: %s under the paper's protocol, %s under the fair one", id, lowerFirst(r.Statement), vp, vf)
	}
	// The direction of the estimate that decides (the fair protocol's,
	// else the paper's), when its interval lies on one side of no effect.
	for _, x := range []*ClaimResult{f, p} {
		if x == nil || !report.Finite(x.Estimate) || x.Scale == ScaleShare {
			continue
		}
		if x.Test == TestEquivalence || x.VerdictText() == noVerdict {
			// Either side of no effect is against "about as good",
			// the verdict says whether it is beyond the margin; one
			// split has no side worth naming.
			break
		}
		null := 0.0
		if x.Scale == ScaleRatio {
			null = 1
		}
		switch {
		case x.Lo > null:
			s += ", the " + protocolWord(x.Protocol) + " estimate on the claim's side"
		case x.Hi < null:
			s += ", the " + protocolWord(x.Protocol) + " estimate against it"
		}
		break
	}
	return s + "."
}

// primaryIDs returns the ids of the primary claims of rs (those that are
// a number), in order.
func primaryIDs(rs []ClaimResult) []string {
	var out []string
	for _, r := range rs {
		if strings.IndexFunc(r.ID, func(c rune) bool { return c < '0' || c > '9' }) < 0 && !slices.Contains(out, r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

// lowerFirst lowers the first letter of s unless its first word is a
// name (upper case beyond its first letter, or a method).
func lowerFirst(s string) string {
	w, _, _ := strings.Cut(s, " ")
	if len(w) < 2 || strings.ToLower(w[1:]) != w[1:] || strings.Contains(w, "-") || w == "Stein" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// OutcomeParagraph is the report's outcome in at most OutcomeMaxWords
// words: one sentence per claim section and the practitioner's sentence
// when it fits. README repeats it.
func OutcomeParagraph(res *report.Results, rs []ClaimResult) string {
	s := strings.Join(claimSentences(rs, false), " ")
	if p := practiceShort(Practice(res)); p != "" && len(strings.Fields(s+" "+p)) <= OutcomeMaxWords {
		s += " " + p
	}
	return s
}

// practiceShort says in one sentence which arm has the lowest mean test
// RMSE at the reference budget on how many data sets.
func practiceShort(rows []PracticeRow) string {
	best := make([]int, len(PracticeArms))
	n := 0
	for _, r := range rows {
		if c, ok := r.Cells["rmse"]; ok && c.Winner >= 0 {
			best[c.Winner]++
			n++
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for i, a := range PracticeArms {
		if best[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s on %d", a.Noun, best[i]))
		}
	}
	return fmt.Sprintf("From one shared trained network, the lowest mean test RMSE at the reference budget is %s of %d data sets.", joinAnd(parts), n)
}

// writeSummaryPractice writes the practitioner's table in short: per data
// set the arms' mean test RMSE at the reference budget, the best in bold.
func writeSummaryPractice(b *strings.Builder, res *report.Results) {
	rows := Practice(res)
	if len(rows) == 0 {
		return
	}
	b.WriteString("**Which to use.** Mean test RMSE over splits at the reference budget, the SVGD reference protocol's gradient evaluations, every arm from the same trained network; lowest in bold.\n\n")
	b.WriteString("| data set |")
	for _, a := range PracticeArms {
		b.WriteString(" " + a.Label + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(PracticeArms)) + "\n")
	for _, r := range rows {
		c, ok := r.Cells["rmse"]
		if !ok {
			continue
		}
		b.WriteString("| " + r.Label + " |")
		for i, m := range c.Means {
			v := "–"
			if report.Finite(m) {
				v = fmt.Sprintf("%.4g", m)
				if i == c.Winner {
					v = "**" + v + "**"
				}
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// writeSummaryPDB writes posteriordb in two sentences and its heatmap.
func writeSummaryPDB(b *strings.Builder, res *report.Results, opts report.Options) {
	stats := report.PDBStats(report.Done(res.Experiment(report.PDBExperiment)))
	if len(stats) == 0 {
		return
	}
	vs := report.PDBVerdicts(stats)
	if len(vs) == 0 {
		return
	}
	var parts, off []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%s on %d", v.Method, v.Close))
		if v.SilentOff > 0 {
			off = append(off, fmt.Sprintf("%s on %d", v.Method, v.SilentOff))
		}
	}
	fmt.Fprintf(b, "**posteriordb.** At its largest N, each method from its zero settings is close to posteriordb's reference on every seed of %s of %d posteriors. ",
		joinAnd(parts), vs[0].Posteriors)
	if len(off) == 0 {
		b.WriteString("No method is silently off, neither close nor flagged, on any posterior; no claim of the paper rests on this benchmark.\n\n")
	} else {
		fmt.Fprintf(b, "Silently off, neither close nor flagged: %s; no claim of the paper rests on this benchmark.\n\n", joinAnd(off))
	}
	if opts.Figures != "" {
		fmt.Fprintf(b, "![posteriordb-heatmap](%s)\n\n", path.Join(opts.Figures, "posteriordb-heatmap.png"))
	}
}
