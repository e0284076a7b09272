package paper

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The verdict table and the outcome paragraph: how many contrasts go each
// way under each protocol and cost axis, and, from the swap tables, what
// decides.

// oneSplit reports whether the claims' contrasts pair one split at most
// (a quick-profile tree): their numbers decide nothing.
func oneSplit(claims []Claim) bool {
	n := 0
	for _, c := range claims {
		for _, v := range c.Verdicts {
			n = max(n, v.Tally.MaxSplits)
		}
	}
	return n == 1
}

// noVerdict is what a report of one split per contrast prints in place of
// a verdict: one split has no interval, so it decides nothing.
const noVerdict = "one split: no verdict"

// quickProfile reports whether any cell of res ran under the quick
// profile.
func quickProfile(res *report.Results) bool {
	for _, c := range res.Cells {
		if c.Prov.Profile == "quick" {
			return true
		}
	}
	return false
}

// WriteVerdicts writes the Verdicts section: the pooled verdicts of the
// declared claims (WritePooled; none when pooled is empty), then the
// per-pair rule, the outcome paragraph and the per-pair verdict table.
func WriteVerdicts(b *strings.Builder, res *report.Results, claims []Claim, pooled ...ClaimResult) {
	b.WriteString("## Verdicts\n\n")
	WritePooled(b, pooled)
	if len(pooled) > 0 {
		b.WriteString("**Per-pair tallies.** The rule the verdicts were read with before the pooled estimates, kept beside them. ")
	}
	b.WriteString("Every verdict is a set of paired contrasts: two arms that should differ in the method only, compared split by split on the same rows, " +
		"budget and snapshot rule; over the splits the mean difference, its 95 % paired-t interval. A contrast is better or worse when its " +
		"interval lies beyond the tolerance band its claim states, inconclusive when it covers the band's edge. A contrast whose arms differ in more than the " +
		"method is shown and not counted; one whose arms start from different start classes (the network's own initialisation, a trained network, the MAP) " +
		"takes no part in the verdict at all. A claim is supported when more than half of its computed same-start contrasts are better and none is " +
		"worse, not supported when a counted contrast is worse, and otherwise the evidence cannot decide. Each claim is read under two protocols: the paper's " +
		"as it states it (compute seconds, final snapshots, the arms as the paper configures them) and the fair one (per-datapoint gradient evaluations, " +
		"snapshots chosen on development rows, the tuned or trained arms and every SVGD arm); claims 1 and 5, which compare costs, get a verdict on each axis.\n\n")
	if quickProfile(res) || oneSplit(claims) {
		b.WriteString("**These results come from one split per contrast (the quick profile): their numbers show that the pipeline works and decide nothing.**\n\n")
	}
	fmt.Fprintf(b, "**Per-pair outcome.** %s\n\n", TallyOutcome(claims))
	one := quickProfile(res) || oneSplit(claims)
	b.WriteString("| claim | protocol | cost axis | better | worse | inconclusive | confounded (not counted) | not computable | verdict | why | counted contrasts, mean [95 % CI] | rests on |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range claims {
		for i, v := range c.Verdicts {
			claim := ""
			if i == 0 {
				claim = fmt.Sprintf("%d. %s", c.Number, c.Text)
			}
			axis := v.Axis
			if axis == "" {
				axis = "–"
			}
			if v.Own && len(c.Verdicts) > 2 {
				axis += " (the protocol's own)"
			}
			proto := "paper's"
			switch v.Protocol {
			case fair:
				proto = "fair"
			case "both":
				proto = "both"
			}
			counts := []string{fmt.Sprint(v.Tally.Better), fmt.Sprint(v.Tally.Worse), fmt.Sprint(v.Tally.Inconclusive),
				fmt.Sprint(v.Tally.Confounded), fmt.Sprint(v.Tally.NotComputable)}
			if c.Number == 2 {
				counts = []string{"–", "–", "–", "–", "–"}
			}
			why := strings.TrimSuffix(v.Why, ".")
			// The first few intervals; the claim's section lists them all,
			// so that no row runs past a screen's width many times over.
			ivs := v.Intervals
			if len(ivs) > tallyIntervals {
				ivs = append(slices.Clip(ivs[:tallyIntervals]), fmt.Sprintf("%d more in the claim's section", len(v.Intervals)-tallyIntervals))
			}
			iv := strings.Join(ivs, "; ")
			if iv == "" {
				iv = "–"
			}
			if len(why) > tallyWhy {
				why = why[:strings.LastIndex(why[:tallyWhy], " ")] + " …"
			}
			rests := ""
			if i == 0 {
				rests = strings.Join(c.Figures, ", ")
			}
			verdict := string(v.Verdict)
			if one && v.Verdict != NotMeasured {
				// The full profile's verdict rule is not applied to one split:
				// what the rule would say is kept in the why column.
				verdict = noVerdict
				why = "the rule would say " + string(v.Verdict) + ": " + why
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | **%s** | %s | %s | %s |\n", claim, proto, axis, strings.Join(counts, " | "), verdict, report.CellText(why), iv, rests)
		}
	}
	b.WriteString("\n")
}

// tallyIntervals is how many contrasts a row of the per-pair tallies
// lists, tallyWhy how many bytes of its reason it keeps.
const (
	tallyIntervals = 3
	tallyWhy       = 240
)

// WriteClaim writes the section of claim c, with the links to the figures
// it rests on.
func WriteClaim(b *strings.Builder, res *report.Results, c *Claim, opts report.Options) {
	fmt.Fprintf(b, "## Claim %d\n\n> %s\n\n", c.Number, c.Text)
	if c.Number == 2 {
		b.WriteString(report.DecisionLink(opts, "Claim 2: comparable series, a z that covers the target, a BNN it can judge"))
	}
	WriteClaimPooled(b, c.Pooled, c.Number)
	var forests []string
	for _, r := range c.Pooled {
		if r.Section == c.Number && len(r.PerDataset) > 0 && opts.Figures != "" {
			forests = append(forests, fmt.Sprintf("![%s](%s)", r.ForestName(), path.Join(opts.Figures, r.ForestName()+".png")))
		}
	}
	if len(forests) > 0 {
		b.WriteString(strings.Join(forests, "\n") + "\n\n")
	}
	if len(c.Pooled) > 0 {
		b.WriteString("*The contrasts one by one* (each pair of arms, under the rule below; the pooled estimates above are the verdicts).\n\n")
	}
	for _, v := range c.Verdicts {
		name := map[string]string{paper: "Paper's protocol", fair: "Fair protocol", "both": "Both protocols"}[v.Protocol]
		if v.Axis != "" {
			name += ", " + v.Axis
		}
		if (quickProfile(res) || v.Tally.MaxSplits == 1) && v.Verdict != NotMeasured {
			fmt.Fprintf(b, "**%s: %s.** The rule would say %s: %s.", name, noVerdict, v.Verdict, strings.TrimSuffix(v.Why, "."))
		} else {
			fmt.Fprintf(b, "**%s: %s.** %s.", name, v.Verdict, strings.TrimSuffix(upperFirst(v.Why), "."))
		}
		if c.Number != 2 {
			fmt.Fprintf(b, " Contrasts: %s.", v.Tally.CountsText())
		}
		b.WriteString("\n\n")
	}
	if c.Difference != "" {
		fmt.Fprintf(b, "*Where they differ.* %s\n\n", c.Difference)
	}
	if c.Scope != "" {
		fmt.Fprintf(b, "*On the networks.* %s\n\n", c.Scope)
	}
	if c.StartGain != "" {
		fmt.Fprintf(b, "*Against its start alone.* %s\n\n", c.StartGain)
	}
	fmt.Fprintf(b, "*Rule.* %s\n\n", c.Rule)
	b.WriteString(c.Markdown())
	b.WriteString("\n")
	for _, f := range report.FigureLinks(res, c.Figures, opts) {
		b.WriteString(f + "\n")
	}
	b.WriteString("\n")
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// TallyOutcome is the per-pair tallies' outcome paragraph, generated from the verdicts
// and the swap tables: each protocol's verdicts on their own axes, and
// which single factors change the paper's verdicts of claims 1, 3 and 5.
// README.md's outcome paragraph is this text (a test checks it).
func TallyOutcome(claims []Claim) string {
	var parts []string
	for _, p := range []struct{ proto, words string }{
		{paper, "Under the paper's protocol as it states it (compute seconds, final snapshots, the methods as the paper configures them)"},
		{fair, "Under the fair protocol (per-datapoint gradient evaluations, snapshots chosen on development rows, the tuned or trained MMD-FW arm against every SVGD arm)"},
	} {
		type group struct {
			verdict Verdict
			why     string
			claims  []int
		}
		var groups []group
		for _, c := range claims {
			v, why := c.Verdict, c.Why
			if p.proto == paper {
				v, why = c.Paper, c.PaperWhy
			}
			key := why
			if v != CannotDecide {
				key = ""
			}
			i := slices.IndexFunc(groups, func(g group) bool { return g.verdict == v && g.why == key })
			if i < 0 {
				groups = append(groups, group{verdict: v, why: key})
				i = len(groups) - 1
			}
			groups[i].claims = append(groups[i].claims, c.Number)
		}
		var gs []string
		for _, g := range groups {
			s := fmt.Sprintf("%s %s", claimsWord(g.claims), verdictPhrase(g.verdict, len(g.claims)))
			if g.why != "" {
				s += " (" + g.why + ")"
			}
			gs = append(gs, s)
		}
		parts = append(parts, fmt.Sprintf("%s, %s.", p.words, joinAnd(gs)))
	}
	var decide []string
	for _, c := range claims {
		if len(c.Swaps) == 0 {
			continue
		}
		var base Verdict
		var change []string
		for _, r := range c.Swaps {
			if r.From != paper {
				continue
			}
			if r.Factor == "" {
				base = r.Verdict
				continue
			}
			if r.Verdict != base {
				to := ""
				if r.Factor == "start" || r.Factor == "budget" {
					// Several values: say which.
					_, v, _ := strings.Cut(r.Value, "→ ")
					to = v + ": "
				}
				change = append(change, fmt.Sprintf("the %s (%s%s → %s)", r.Factor, to, base, r.Verdict))
			}
		}
		switch {
		case len(change) == 0 && base == NotMeasured:
		case len(change) == 0:
			decide = append(decide, fmt.Sprintf("claim %d: no single factor changes the verdict", c.Number))
		default:
			decide = append(decide, fmt.Sprintf("claim %d: only %s", c.Number, joinAnd(change)))
		}
	}
	if s := costSentence(claims); s != "" {
		parts = append(parts, s)
	}
	if len(decide) > 0 {
		parts = append(parts, "Changing one factor of the paper's protocol at a time (cost axis, snapshot rule, budget, MMD-FW arm, SVGD arms, start), "+
			"what changes a verdict is, for "+strings.Join(decide, "; for ")+".")
	}
	return strings.Join(parts, " ")
}

// costSentence says, from claim 5's contrasts, how many times SVGD's
// compute seconds per gradient evaluation each MMD-FW arm spends: the cost
// that a gradient-evaluation axis does not show.
func costSentence(claims []Claim) string {
	var arms []string
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, c := range claims {
		if c.Number != 5 {
			continue
		}
		for _, k := range c.Contrasts {
			r := k.A.SecPerKGrad / k.B.SecPerKGrad
			if !report.Finite(r) {
				continue
			}
			m := k.A.Method
			if _, ok := lo[m]; !ok {
				arms = append(arms, m)
				lo[m], hi[m] = r, r
			}
			lo[m], hi[m] = min(lo[m], r), max(hi[m], r)
		}
	}
	if len(arms) == 0 {
		return ""
	}
	var w []string
	for _, m := range arms {
		w = append(w, fmt.Sprintf("%.2g–%.2g× (%s)", lo[m], hi[m], m))
	}
	return fmt.Sprintf("Per gradient evaluation the MMD-FW arms of Table 1 take %s SVGD's compute seconds (whole runs, per dataset and SVGD arm).", joinAnd(w))
}

// verdictPhrase is a verdict as the predicate of n claims.
func verdictPhrase(v Verdict, n int) string {
	be := verb(n, "is", "are")
	switch v {
	case CannotDecide:
		return "cannot be decided"
	case NotMeasured:
		return be + " not measured"
	}
	return be + " " + string(v)
}

// claimsWord names claim numbers: "claim 2", "claims 1 and 5".
func claimsWord(n []int) string {
	w := make([]string, len(n))
	for i, x := range n {
		w[i] = fmt.Sprint(x)
	}
	if len(n) == 1 {
		return "claim " + w[0]
	}
	return "claims " + joinAnd(w)
}
