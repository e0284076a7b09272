package paper

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// Claims 3 and 4 compare sets of particles: claim 3 SVGD with MMD-FW at
// equal particle counts, claim 4 Stein Points with MMD-FW at equal counts
// and at equal cost, each paired over splits.

// trajectory returns the rows of metric of a greedy cell by step, sorted.
func trajectory(c *report.Cell, metric string) []report.Row {
	rows := c.Metric(metric)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Step < rows[j].Step })
	return rows
}

// atStep returns the row of rows at step n.
func atStep(rows []report.Row, n int) (report.Row, bool) {
	for _, r := range rows {
		if r.Step == n {
			return r, true
		}
	}
	return report.Row{}, false
}

// rowCost is the cost of a row on both axes.
func rowCost(r report.Row) cost {
	return cost{grads: float64(r.GradEvals), secs: r.Seconds, reached: true}
}

// claim3Contrasts returns claim 3's contrasts under cfg (the declared
// claim 3): per SVGD arm and particle count N of its cells, ln(MMD-FW's
// MMD² at step N / SVGD's final MMD² at N) per split (positive: SVGD
// smaller, the claim's way).
func claim3Contrasts(res *report.Results, cfg protocolConfig) []Contrast {
	return paperSection(res, 3, cfg)
}

// claim3Pairs are claim 3's contrasts of MMD-FW arm fw with each SVGD arm
// of svs on dataset ds in metric (an MMD²), one per particle count of the
// SVGD arm. MMD-FW at N = 1 is its start: such splits are excluded from
// the pooled estimate.
func claim3Pairs(res *report.Results, id, ds, metric, fw string, svs []string) []Contrast {
	cells := res.Reported(id)
	var out []Contrast
	fwc := bySplit(cells, ds, fw)
	for _, sv := range svs {
		byN := map[int]map[int]*report.Cell{}
		for _, c := range report.CellsOf(report.Done(cells), ds) {
			if c.Prov.Method == sv {
				if byN[c.Prov.N] == nil {
					byN[c.Prov.N] = map[int]*report.Cell{}
				}
				byN[c.Prov.N][c.Prov.Split] = c
			}
		}
		a, b := armInfo(res, id, ds, fw), armInfo(res, id, ds, sv)
		for _, n := range sortedSplits(byN) {
			k := Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(cells, ds), What: fmt.Sprintf("MMD² at N = %d", n), Axis: "particles",
				Key: fmt.Sprintf("%s N = %d:", sv, n),
				A:   b, B: a, Band: Band{Tau: math.Log(MMDBand), Ratio: true}, Confounds: confounds(b, a, false)}
			for _, s := range sortedSplits(byN[n]) {
				f := fwc[s]
				if f == nil {
					continue
				}
				fr, ok1 := atStep(trajectory(f, metric), n)
				sr, ok2 := byN[n][s].Final(metric)
				if !ok1 || !ok2 || !(fr.Value > 0) || !(sr.Value > 0) {
					continue
				}
				k.Splits = append(k.Splits, s)
				k.AVal, k.BVal = append(k.AVal, sr.Value), append(k.BVal, fr.Value)
				k.D = append(k.D, math.Log(fr.Value/sr.Value))
				k.aCost, k.bCost = append(k.aCost, rowCost(sr)), append(k.bCost, rowCost(fr))
				i := len(k.D) - 1
				if r := runFlagged(f, byN[n][s]); r != "" {
					k.exclude(i, r)
				}
				if r := cmp.Or(refCapped(f), refCapped(byN[n][s])); r != "" {
					k.exclude(i, r)
				}
				if n <= 1 {
					k.exclude(i, ExclStart+": "+fw+" at N = 1 is its start")
				}
			}
			if len(k.D) == 0 {
				continue
			}
			k.finish()
			out = append(out, k)
		}
	}
	return out
}

// claim3Factors are the factors of claim 3's swap table.
var claim3Factors = []factor{fwFactor, svgdFactor}

func claim3(res *report.Results) Claim {
	c := Claim{Number: 3,
		Text: "At an equal particle count SVGD reaches a smaller MMD² than MMD-FW (Fig. 1b).",
		Rule: fmt.Sprintf("One contrast per SVGD arm and particle count N of fig1b, paired over splits: ln(MMD-FW's MMD² to the HMC reference at its step N / the SVGD run's "+
			"MMD² with N particles at its final snapshot), shown as the ratio MMD-FW/SVGD (above 1: SVGD smaller, the claim's way). Over splits the mean, 95 %% "+
			"paired-t interval. Tolerance band: ratios within ×%g of 1 count for neither: better when the interval lies above ×%g, worse when below "+
			"1/%g, inconclusive otherwise. A contrast whose arms start differently (or differ in budget or evaluation rows) is shown and not counted. "+
			"Paper's protocol: the paper's MMD-FW arm against the paper's SVGD arm; fair protocol: the fair MMD-FW arm against every SVGD arm. "+
			"Supported when more than half of the computed contrasts are better and none is worse; not supported when one is worse; otherwise the evidence cannot decide. "+
			"Each row also gives each arm's cost at N (gradient evaluations; seconds).", MMDBand, MMDBand, MMDBand) + oneMethod,
		Figures: []string{"fig1b"},
		Header: []string{"protocol", "dataset", "N", "SVGD arm (start)", "MMD-FW arm (start)", "splits", "SVGD MMD²", "MMD-FW MMD²", "MMD-FW/SVGD, mean [95 % CI]", "outcome",
			"SVGD cost: gradient evaluations; seconds", "MMD-FW cost: gradient evaluations; seconds"},
	}
	eval := func(cfg protocolConfig) []Contrast { return claim3Contrasts(res, cfg) }
	var all []Contrast
	gains := map[string][]Contrast{}
	c.settle(eval, func(proto string, cs []Contrast) {
		all = append(all, cs...)
		gains[proto] = mmdGainContrasts(res, protocolConfigs[proto])
		for i := range cs {
			k := &cs[i]
			c.Rows = append(c.Rows, append([]string{protocolName(proto), k.Dataset, strings.TrimPrefix(k.What, "MMD² at N = "), k.A.Label(), k.B.Label(), fmt.Sprint(len(k.Splits)),
				report.FormatG(geoMean(k.AVal)), report.FormatG(geoMean(k.BVal))}, append(k.outcomeCells(), k.costText(true), k.costText(false))...))
		}
	})
	c.Tables = append(c.Tables, costTable(res, all))
	if len(gains[paper])+len(gains[fair]) > 0 {
		c.Tables = append(c.Tables, mmdGainTable(gains))
		c.StartGain = gainSentence(gains)
	}
	c.swap(append(slices.Clip(claim3Factors), startFactor(startClasses(res, []string{"fig1b"}))), eval,
		"the cost axis, snapshot rule and budget do not apply: the claim is at equal particle counts, and fig1b records no development rows; start: the MMD-FW and SVGD arms of one start class")
	return c
}

// claim4Contrasts returns claim 4's contrasts under cfg (the declared
// claims 4 and 4a): the protocol's SP arm against its MMD-FW arm, on
// fig1b's MMD² and KSD² and fig1a's accuracy, each at equal N and at
// equal cost.
func claim4Contrasts(res *report.Results, cfg protocolConfig) []Contrast {
	return paperSection(res, 4, cfg)
}

// spContrast is one contrast of claim 4: MMD-FW arm fw against SP arm sp
// on metric, per split at the largest N both reach or, with equalCost, at
// each arm's last snapshot within the least gradient budget at which both
// have one. The difference is oriented so that positive means SP worse:
// ln(SP / MMD-FW) for an MMD² or KSD², MMD-FW − SP for an accuracy.
func spContrast(res *report.Results, id, ds, metric, fw, sp string, equalCost bool) (Contrast, bool) {
	cells := res.Reported(id)
	fwc, spc := bySplit(cells, ds, fw), bySplit(cells, ds, sp)
	if len(fwc) == 0 || len(spc) == 0 {
		return Contrast{}, false
	}
	hb, unranked := res.HigherBetter(metric)
	band := Band{Tau: math.Log(MMDBand), Ratio: true}
	if hb {
		band = Band{Tau: AccuracyBand}
	}
	label := map[string]string{"mmd2": "MMD²", "ksd2": "KSD²"}[metric]
	if label == "" {
		label = metric
	}
	what := label + " at equal N (the largest both reach)"
	if equalCost {
		what = label + " at equal cost (the least gradient budget at which both have a snapshot)"
	}
	a, b := armInfo(res, id, ds, fw), armInfo(res, id, ds, sp)
	key := label + " at equal N:"
	if equalCost {
		key = label + " at equal cost:"
	}
	k := Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(cells, ds), What: what, Key: key, Axis: axisGrads, A: a, B: b, Band: band, Confounds: confounds(a, b, false)}
	if !equalCost {
		k.Axis = "particles"
	}
	if unranked != nil {
		k.Skip = "no direction: " + unranked.Error()
		k.finish()
		return k, true
	}
	var ns, spN []string
	for _, s := range sortedSplits(spc) {
		f := fwc[s]
		if f == nil {
			continue
		}
		ft, st := trajectory(f, metric), trajectory(spc[s], metric)
		if len(ft) == 0 || len(st) == 0 {
			continue
		}
		var fr, sr report.Row
		if equalCost {
			c := math.Max(float64(ft[0].GradEvals), float64(st[0].GradEvals))
			fr, _ = lastRowWithin(ft, c)
			sr, _ = lastRowWithin(st, c)
			ns = append(ns, fmt.Sprint(fr.Step))
			spN = append(spN, fmt.Sprint(sr.Step))
		} else {
			n := -1
			for _, r := range st {
				if _, ok := atStep(ft, r.Step); ok {
					n = max(n, r.Step)
				}
			}
			if n < 0 {
				continue
			}
			fr, _ = atStep(ft, n)
			sr, _ = atStep(st, n)
			ns = append(ns, fmt.Sprint(n))
		}
		var d float64
		if hb {
			d = fr.Value - sr.Value
		} else {
			if !(fr.Value > 0) || !(sr.Value > 0) {
				continue
			}
			d = math.Log(sr.Value / fr.Value)
		}
		if !report.Finite(d) {
			continue
		}
		k.Splits = append(k.Splits, s)
		k.AVal, k.BVal = append(k.AVal, fr.Value), append(k.BVal, sr.Value)
		k.D = append(k.D, d)
		k.aCost, k.bCost = append(k.aCost, rowCost(fr)), append(k.bCost, rowCost(sr))
		i := len(k.D) - 1
		if r := runFlagged(f, spc[s]); r != "" {
			k.exclude(i, r)
		}
		if metric == "mmd2" {
			if r := cmp.Or(refCapped(f), refCapped(spc[s])); r != "" {
				k.exclude(i, r)
			}
		}
		switch {
		case fr.Step <= 1:
			k.exclude(i, fmt.Sprintf("%s: %s at N = %d is its start", ExclStart, fw, fr.Step))
		case sr.Step <= 1:
			k.exclude(i, fmt.Sprintf("%s: %s at N = %d is its start", ExclStart, sp, sr.Step))
		}
	}
	if equalCost {
		k.Notes = append(k.Notes, fmt.Sprintf("MMD-FW at N = %s, SP at N = %s (per split)", strings.Join(ns, ", "), strings.Join(spN, ", ")))
	} else {
		k.Notes = append(k.Notes, fmt.Sprintf("N = %s (per split)", strings.Join(ns, ", ")))
	}
	k.finish()
	return k, true
}

// lastRowWithin returns the last row of rows (by step) with at most c
// gradient evaluations.
func lastRowWithin(rows []report.Row, c float64) (report.Row, bool) {
	var out report.Row
	ok := false
	for _, r := range rows {
		if float64(r.GradEvals) <= c {
			out, ok = r, true
		}
	}
	return out, ok
}

func claim4(res *report.Results) Claim {
	c := Claim{Number: 4,
		Text: "SP does not work well in these dimensions (Fig. 1).",
		Rule: fmt.Sprintf("Stein Points against MMD-FW, as the paper compares them: contrasts paired over splits on fig1a's test accuracy and fig1b's MMD² to the HMC "+
			"reference and KSD², each at equal N (on each split the largest particle count both runs reach) and at equal cost (on each split each arm's last snapshot "+
			"within the least gradient-evaluation budget at which both have one). The difference is oriented so that positive means SP worse: ln(SP / MMD-FW) for MMD² "+
			"and KSD², shown as the ratio SP/MMD-FW; MMD-FW's accuracy minus SP's. Over splits the mean, 95 %% paired-t interval. Tolerance bands: "+
			"ratios within ×%g of 1, accuracy differences within ±%g; better (SP worse) when the interval lies above the band, worse (SP better) when below it, "+
			"inconclusive otherwise. A contrast whose arms start differently is shown and not counted (SP's own candidate search is not the MAP MMD-FW starts from). "+
			"Paper's protocol: the paper's SP and MMD-FW arms; fair protocol: the fair ones. Supported when more than half of the computed contrasts are better and "+
			"none is worse; not supported when one is worse; otherwise the evidence cannot decide.", MMDBand, AccuracyBand) + oneMethod,
		Figures: []string{"fig1a", "fig1b"},
		Header: []string{"protocol", "figure", "dataset", "compared", "MMD-FW arm (start)", "SP arm (start)", "splits", "MMD-FW", "SP", "SP worse by, mean [95 % CI]", "outcome",
			"MMD-FW cost: gradient evaluations; seconds", "SP cost: gradient evaluations; seconds", "notes"},
	}
	eval := func(cfg protocolConfig) []Contrast { return claim4Contrasts(res, cfg) }
	var all []Contrast
	c.settle(eval, func(proto string, cs []Contrast) {
		for i := range cs {
			k := &cs[i]
			all = append(all, *k)
			c.Rows = append(c.Rows, append([]string{protocolName(proto), k.Figure, k.Dataset, k.What, k.A.Label(), k.B.Label(), fmt.Sprint(len(k.Splits)),
				valueText(k.AVal, k.Band.Ratio), valueText(k.BVal, k.Band.Ratio)}, append(k.outcomeCells(), k.costText(true), k.costText(false), strings.Join(k.Notes, "; "))...))
		}
	})
	c.Tables = append(c.Tables, costTable(res, all))
	c.StartGain = spGainSentence(res)
	c.Scope = spBNNScope(res)
	return c
}

// spGainSentence says what the Stein Points arms of fig1a and fig1b gain
// over their start alone (the MAP alone for SP at the MAP), per protocol,
// from the gain contrasts of claims 1 and 3 restricted to SP arms; an SP
// arm from its own candidate search has no start-only baseline and is
// named as such.
func spGainSentence(res *report.Results) string {
	gs := map[string][]Contrast{}
	n := 0
	for _, p := range []string{paper, fair} {
		cfg := protocolConfigs[p]
		all := append(gainContrasts(res, []struct{ id, metric string }{{"fig1a", "accuracy"}}, cfg), mmdGainContrasts(res, cfg)...)
		for _, k := range all {
			if report.IsSP(k.A.Kind) {
				gs[p] = append(gs[p], k)
			}
		}
		n += len(gs[p])
	}
	if n == 0 {
		return ""
	}
	return "Stein Points against its start (rows in the gain tables of claims 1 and 3). " + gainSentence(gs)
}

// valueText is a value over splits: the geometric mean for a ratio
// measure, mean ± sd otherwise.
func valueText(v []float64, ratio bool) string {
	if ratio {
		return report.FormatG(geoMean(v))
	}
	return pmText(v)
}
