package paper

import (
	"fmt"
	"slices"
	"strings"
)

// A protocol is a choice of every factor a claim's contrasts are read
// under. The paper's protocol reads compute seconds, final snapshots and
// the paper's arms; the fair one gradient evaluations, snapshots chosen on
// development rows and the fair arms. A one-factor swap table gives the
// verdict with only one factor of either protocol changed, so that the
// report says which factor decides.

// Cost axes, snapshot rules and arm choices of a protocol.
const (
	axisGrads   = "gradient evaluations"
	axisSeconds = "seconds"
	snapFinal   = "final"
	snapDev     = "development-selected"
)

// protocolConfig is one reading of a claim.
type protocolConfig struct {
	// Axis is the cost axis (axisGrads or axisSeconds).
	Axis string
	// Snap is the snapshot rule (snapFinal or snapDev).
	Snap string
	// Budget is the Table 1 budget the snapshots are read at.
	Budget BudgetLevel
	// FW names the protocol whose MMD-FW (and SP) arm is read: paper or
	// fair.
	FW string
	// SVGD names the SVGD arms: paper (the paper's arm) or fair (every
	// SVGD arm of the fair protocol, reference and tuned).
	SVGD string
	// Start, when set, reads the arms of that start class only (the
	// protocol's own where it has one, else another protocol's arm of that
	// start); "" reads the protocol's arms whatever their start.
	Start string
}

// The two protocols.
var (
	paperConfig = protocolConfig{Axis: axisSeconds, Snap: snapFinal, Budget: BudgetLevels[1], FW: paper, SVGD: paper}
	fairConfig  = protocolConfig{Axis: axisGrads, Snap: snapDev, Budget: BudgetLevels[1], FW: fair, SVGD: fair}
)

// protocolConfigs are the two protocols by name.
var protocolConfigs = map[string]protocolConfig{paper: paperConfig, fair: fairConfig}

// factor is one factor of a swap table.
type factor struct {
	name   string
	values []string
	words  func(v string) string
	get    func(protocolConfig) string
	set    func(protocolConfig, string) protocolConfig
}

// armWords says which arm a protocol value selects.
func armWords(kind string) func(string) string {
	return func(v string) string {
		if v == paper {
			return "the paper's " + kind + " arm"
		}
		if kind == "SVGD" {
			return "every SVGD arm (reference and tuned)"
		}
		return "the fair " + kind + " arm"
	}
}

var (
	axisFactor = factor{name: "cost axis", values: []string{axisSeconds, axisGrads},
		words: func(v string) string {
			return map[string]string{axisSeconds: "compute seconds", axisGrads: "gradient evaluations"}[v]
		},
		get: func(c protocolConfig) string { return c.Axis },
		set: func(c protocolConfig, v string) protocolConfig { c.Axis = v; return c }}
	snapFactor = factor{name: "snapshot rule", values: []string{snapFinal, snapDev},
		words: func(v string) string {
			return map[string]string{snapFinal: "final snapshot", snapDev: "snapshot chosen on development rows"}[v]
		},
		get: func(c protocolConfig) string { return c.Snap },
		set: func(c protocolConfig, v string) protocolConfig { c.Snap = v; return c }}
	budgetFactor = factor{name: "budget", values: []string{"0.25x", "1x", "4x"},
		words: func(v string) string { return strings.TrimSuffix(v, "x") + "× the reference budget" },
		get:   func(c protocolConfig) string { return c.Budget.Label },
		set: func(c protocolConfig, v string) protocolConfig {
			for _, lv := range BudgetLevels {
				if lv.Label == v {
					c.Budget = lv
				}
			}
			return c
		}}
	fwFactor = factor{name: "MMD-FW arm", values: []string{paper, fair}, words: armWords("MMD-FW"),
		get: func(c protocolConfig) string { return c.FW },
		set: func(c protocolConfig, v string) protocolConfig { c.FW = v; return c }}
	svgdFactor = factor{name: "SVGD arms", values: []string{paper, fair}, words: armWords("SVGD"),
		get: func(c protocolConfig) string { return c.SVGD },
		set: func(c protocolConfig, v string) protocolConfig { c.SVGD = v; return c }}
)

// SwapRow is one row of a claim's one-factor swap table: a protocol with
// one factor changed, and the verdict the contrasts then give.
type SwapRow struct {
	// From is the protocol changed (paper or fair); Factor the factor
	// changed ("" for the protocol as it is) and Value its new value in
	// words.
	From, Factor, Value string
	// Tally counts the contrasts; Verdict and Why are their verdict.
	Tally   Tally
	Verdict Verdict
	Why     string
}

// swapTable returns the rows of the one-factor swap table of a claim:
// each protocol as it is, then with each factor of fs changed to each of
// its other values. eval computes the tally of a reading.
func swapTable(fs []factor, eval func(protocolConfig) Tally) []SwapRow {
	var rows []SwapRow
	for _, from := range []struct {
		name string
		cfg  protocolConfig
	}{{paper, paperConfig}, {fair, fairConfig}} {
		add := func(f, v string, cfg protocolConfig) {
			t := eval(cfg)
			vd, why := t.Decide()
			rows = append(rows, SwapRow{From: from.name, Factor: f, Value: v, Tally: t, Verdict: vd, Why: why})
		}
		add("", "", from.cfg)
		for _, f := range fs {
			for _, v := range f.values {
				if v == f.get(from.cfg) {
					continue
				}
				add(f.name, f.words(f.get(from.cfg))+" → "+f.words(v), f.set(from.cfg, v))
			}
		}
	}
	return rows
}

// swapMarkdown is the swap table as a claim table.
func swapMarkdown(rows []SwapRow, note string) ClaimTable {
	t := ClaimTable{Title: "One factor at a time (each row changes one factor of the protocol named; " + note + ")",
		Header: []string{"protocol", "factor changed", "change", "better", "worse", "inconclusive", "confounded", "not computable", "verdict"}}
	for _, r := range rows {
		f, v := r.Factor, r.Value
		if f == "" {
			f, v = "none", "as the protocol states it"
		}
		t.Rows = append(t.Rows, []string{protocolName(r.From), f, v, fmt.Sprint(r.Tally.Better), fmt.Sprint(r.Tally.Worse),
			fmt.Sprint(r.Tally.Inconclusive), fmt.Sprint(r.Tally.Confounded), fmt.Sprint(r.Tally.NotComputable), verdictText(r.Verdict, r.Why)})
	}
	return t
}

// protocolName is a protocol in words.
func protocolName(p string) string {
	if p == paper {
		return "paper's"
	}
	return "fair"
}

// verdictText is a verdict with its reason when it is not plain: "cannot
// decide: the arms differ in start in 20 of 21 contrasts".
func verdictText(v Verdict, why string) string {
	if v == CannotDecide && strings.Contains(why, "one split") {
		return "**" + noVerdict + "**"
	}
	if v == CannotDecide || v == NotMeasured {
		return fmt.Sprintf("**%s**: %s", v, why)
	}
	return fmt.Sprintf("**%s** (%s)", v, why)
}

// swapSentence says, from the swap table, which single factors change the
// verdict of each protocol: the sentence "Where they differ" of a claim.
func swapSentence(rows []SwapRow) string {
	var parts []string
	for _, from := range []string{paper, fair} {
		var base SwapRow
		var change, keep []string
		for _, r := range rows {
			if r.From != from {
				continue
			}
			if r.Factor == "" {
				base = r
				continue
			}
			if r.Verdict != base.Verdict {
				change = append(change, fmt.Sprintf("%s (%s: %s; %s)", r.Factor, r.Value, r.Verdict, r.Tally.CountsText()))
			} else if !slices.Contains(keep, r.Factor) {
				keep = append(keep, r.Factor)
			}
		}
		if base.Verdict == NotMeasured && len(change) == 0 {
			continue
		}
		s := fmt.Sprintf("From the %s protocol (%s; %s), ", protocolName(from), base.Verdict, base.Tally.CountsText())
		switch {
		case len(change) == 0:
			s += "no single factor changes the verdict"
		default:
			s += "the verdict changes with the " + strings.Join(change, "; the ")
		}
		if len(keep) > 0 && len(change) > 0 {
			s += fmt.Sprintf("; the %s %s it %s", joinAnd(keep), verb(len(keep), "leaves", "leave"), base.Verdict)
		}
		parts = append(parts, s+".")
	}
	return strings.Join(parts, " ")
}

// joinAnd joins words as "a, b and c".
func joinAnd(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}
