package paper

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// Claim 5: on the regression sets MMD-FW is about as accurate as SVGD at
// the same budget. Per split each arm's snapshot is read by the
// protocol's rule within the budget (the same gradient evaluations, or the
// compute seconds the SVGD arm took to spend them), and the contrast asks
// whether MMD-FW is worse than SVGD by more than a stated margin.

// claim5Contrasts returns the contrasts of claim 5 under cfg: per Table 1
// dataset and SVGD arm, one on RMSE and one on test LL (the declared
// claims 5 and 5a).
func claim5Contrasts(res *report.Results, cfg protocolConfig) []Contrast {
	return paperSection(res, 5, cfg)
}

// accuracyContrasts are claim 5's two contrasts of MMD-FW arm fw with SVGD
// arm sv on one dataset under cfg (none when either arm has no cell),
// then one per metric of others other than rmse and test_ll, its D the
// under-test arm's value minus the comparator's (a declared claim orients
// it by its own direction and scale).
func accuracyContrasts(res *report.Results, id, ds, fw, sv string, cfg protocolConfig, others ...string) []Contrast {
	cells := res.Reported(id)
	fwc, svc := bySplit(cells, ds, fw), bySplit(cells, ds, sv)
	if len(fwc) == 0 || len(svc) == 0 {
		return nil
	}
	a, b := armInfo(res, id, ds, fw), armInfo(res, id, ds, sv)
	budget := fmt.Sprintf("%s at %s", cfg.Snap, cfg.Budget.Label)
	if cfg.Axis == axisSeconds {
		budget += " (the SVGD arm's seconds for it)"
	}
	mk := func(metric string, band Band) Contrast {
		return Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(cells, ds), What: metricWord(metric) + ", " + budget, Axis: cfg.Axis,
			Key: fmt.Sprintf("%s %s vs %s:", ds, metricWord(metric), sv),
			A:   a, B: b, Band: band, Confounds: confounds(a, b, cfg.Axis == axisSeconds)}
	}
	rm := mk("rmse", Band{Tau: math.Log(RMSEMargin), Ratio: true, NonInferiority: true})
	ll := mk("test_ll", Band{Tau: LLMargin, NonInferiority: true})
	rm.metric, ll.metric = "rmse", "test_ll"
	var more []Contrast
	for _, m := range others {
		if m != "rmse" && m != "test_ll" {
			k := mk(m, Band{NonInferiority: true})
			k.metric = m
			more = append(more, k)
		}
	}
	floor, src := constantFloor(res, id, ds, "rmse")
	var diverged, fwDiverged, empty, noDev []string
	for _, s := range sortedSplits(svc) {
		fc := fwc[s]
		if fc == nil {
			continue
		}
		ss, dev := chosenSnapshot(svc[s], withinGrads(svc[s], cfg.Budget), cfg.Snap)
		keep := withinGrads(fc, cfg.Budget)
		if cfg.Axis == axisSeconds {
			_, T, ok := lastWithin(svc[s], withinGrads(svc[s], cfg.Budget))
			if !ok {
				continue
			}
			keep = func(r report.Row) bool { return r.Seconds <= T }
		}
		fs, fdev := chosenSnapshot(fc, keep, cfg.Snap)
		if ss == nil {
			continue
		}
		if fs == nil {
			empty = append(empty, fmt.Sprint(s))
			continue
		}
		if cfg.Snap == snapDev && (!dev || !fdev) {
			noDev = append(noDev, fmt.Sprint(s))
		}
		sr, ok1 := ss.vals["rmse"]
		fr, ok2 := fs.vals["rmse"]
		sl, ok3 := ss.vals["test_ll"]
		fl, ok4 := fs.vals["test_ll"]
		if f, ok := floor[s]; ok && ok1 && worseThan(sr, f, false) {
			diverged = append(diverged, fmt.Sprintf("%d (RMSE %.4g against the constant predictor's %.4g)", s, sr, f))
			continue
		}
		if f, ok := floor[s]; ok && ok2 && worseThan(fr, f, false) {
			fwDiverged = append(fwDiverged, fmt.Sprintf("%d (RMSE %.4g against %.4g)", s, fr, f))
		}
		kf, ks := cost{grads: float64(fs.grads), secs: fs.secs, reached: true}, cost{grads: float64(ss.grads), secs: ss.secs, reached: true}
		excl := cmp.Or(runFlagged(fc, svc[s]), ranShort(cfg.Budget, fc, svc[s]))
		switch {
		case excl != "":
		case atStart(a.Kind, fs.step):
			excl = fmt.Sprintf("%s: %s's snapshot read is its start (step %d)", ExclStart, fw, fs.step)
		case atStart(b.Kind, ss.step):
			excl = fmt.Sprintf("%s: %s's snapshot read is its start (step %d)", ExclStart, sv, ss.step)
		}
		if ok1 && ok2 && sr > 0 && fr > 0 {
			rm.Splits, rm.AVal, rm.BVal = append(rm.Splits, s), append(rm.AVal, fr), append(rm.BVal, sr)
			rm.D = append(rm.D, math.Log(sr/fr))
			rm.aCost, rm.bCost = append(rm.aCost, kf), append(rm.bCost, ks)
			if excl != "" {
				rm.exclude(len(rm.D)-1, excl)
			}
		}
		if ok3 && ok4 && report.Finite(sl) && report.Finite(fl) {
			ll.Splits, ll.AVal, ll.BVal = append(ll.Splits, s), append(ll.AVal, fl), append(ll.BVal, sl)
			ll.D = append(ll.D, fl-sl)
			ll.aCost, ll.bCost = append(ll.aCost, kf), append(ll.bCost, ks)
			if excl != "" {
				ll.exclude(len(ll.D)-1, excl)
			}
		}
		for i := range more {
			k := &more[i]
			bv, ok1 := ss.vals[k.metric]
			av, ok2 := fs.vals[k.metric]
			if !ok1 || !ok2 || !report.Finite(av) || !report.Finite(bv) {
				continue
			}
			k.Splits, k.AVal, k.BVal = append(k.Splits, s), append(k.AVal, av), append(k.BVal, bv)
			k.D = append(k.D, av-bv)
			k.aCost, k.bCost = append(k.aCost, kf), append(k.bCost, ks)
			if excl != "" {
				k.exclude(len(k.D)-1, excl)
			}
		}
	}
	var notes []string
	if len(diverged) > 0 {
		notes = append(notes, fmt.Sprintf("SVGD diverged (worse than the constant predictor of %s) on split %s: left out", src, strings.Join(diverged, ", ")))
	}
	if len(fwDiverged) > 0 {
		notes = append(notes, fmt.Sprintf("MMD-FW diverged on split %s: kept (it counts against MMD-FW)", strings.Join(fwDiverged, ", ")))
	}
	if len(empty) > 0 {
		notes = append(notes, fmt.Sprintf("MMD-FW has no snapshot within the budget on split %s: left out", strings.Join(empty, ", ")))
	}
	if len(noDev) > 0 {
		notes = append(notes, "a cell without development rows reports its final snapshot")
	}
	out := append([]Contrast{rm, ll}, more...)
	for i := range out {
		out[i].Notes = append(out[i].Notes, notes...)
		switch {
		case len(out[i].D) > 0:
		case len(empty) > 0:
			out[i].Skip = "MMD-FW has no snapshot within the budget on any split"
		case len(diverged) > 0:
			out[i].Skip = "SVGD diverged on every split"
		}
		out[i].finish()
	}
	return out
}

// claim5Factors are the factors of claim 5's swap table.
var claim5Factors = []factor{axisFactor, snapFactor, budgetFactor, fwFactor, svgdFactor}

func claim5(res *report.Results) Claim {
	c := Claim{Number: 5,
		Text: "On the regression sets MMD-FW is about as accurate as SVGD at the same time budget (Table 1).",
		Rule: fmt.Sprintf("Two contrasts per Table 1 dataset and SVGD arm, paired over splits: test RMSE, the difference ln(SVGD's RMSE / MMD-FW's), shown as "+
			"the ratio SVGD/MMD-FW (above 1: MMD-FW better), and test LL, MMD-FW's minus SVGD's. On each split each arm reports the snapshot the protocol's rule "+
			"chooses within the budget: final (its last) or development-selected (the best development RMSE). The budget is the same number of gradient "+
			"evaluations (a multiple of the SVGD reference protocol's) or, on the seconds axis, the compute seconds the SVGD arm took to spend it on that split. "+
			"A split on which the SVGD arm's RMSE is worse than the constant predictor's has diverged and is left out; MMD-FW's own divergence counts against it. "+
			"About as accurate is non-inferiority with a margin: better (about as accurate or more) when the 95 %% paired-t interval lies above the margin's edge, "+
			"RMSE ratio above 1/%g (MMD-FW at most %g %% worse) and test LL difference above −%g nats; worse when it lies below; inconclusive when it covers the edge. "+
			"A contrast whose arms differ in more than the method (start, budget, evaluation rows, or on the seconds axis the run setting of their timed cells) is shown "+
			"and not counted. Paper's protocol: compute seconds, final snapshots, 1× the reference budget, the paper's arms. Fair protocol: gradient evaluations, "+
			"development-selected snapshots, 1×, the fair MMD-FW arm against every SVGD arm. A verdict is given on each axis. Supported when more than half of the "+
			"computed contrasts are better and none is worse; not supported when one is worse; otherwise the evidence cannot decide.",
			RMSEMargin, 100*(RMSEMargin-1), LLMargin) + oneMethod,
		Figures: []string{"table1"},
		Header: []string{"protocol", "cost axis", "dataset", "MMD-FW arm (start)", "SVGD arm (start)", "splits", "MMD-FW RMSE", "SVGD RMSE",
			"RMSE SVGD/MMD-FW, mean [95 % CI]", "outcome", "MMD-FW test LL", "SVGD test LL", "test LL MMD-FW − SVGD, mean [95 % CI]", "outcome",
			"MMD-FW snapshot: gradient evaluations; seconds", "SVGD snapshot: gradient evaluations; seconds",
			"MMD-FW's RMSE gain over its start alone", "SVGD's RMSE gain over its start alone", "notes"},
	}
	c.Rule += startRule
	eval := func(cfg protocolConfig) []Contrast { return claim5Contrasts(res, cfg) }
	var all []Contrast
	gains := map[string][]Contrast{}
	exps := []struct{ id, metric string }{{"table1", "rmse"}}
	c.settleAxes(eval, func(proto string, grads, secs []Contrast) {
		all = append(all, grads...)
		gains[proto] = gainContrasts(res, exps, protocolConfigs[proto])
		g := gainLookup(gains[proto])
		for _, cs := range [][]Contrast{grads, secs} {
			for i := 0; i+1 < len(cs); i += 2 {
				r, l := &cs[i], &cs[i+1]
				c.Rows = append(c.Rows, []string{protocolName(proto), r.Axis, r.Dataset, r.A.Label(), r.B.Label(), fmt.Sprint(len(r.Splits)),
					pmText(r.AVal), pmText(r.BVal), r.IntervalText(), r.OutcomeText(),
					pmText(l.AVal), pmText(l.BVal), l.IntervalText(), l.OutcomeText(),
					r.costText(true), r.costText(false), gainCell(g, r.Figure, r.DS, r.A.Method), gainCell(g, r.Figure, r.DS, r.B.Method), notesText(r, l)})
			}
		}
	})
	c.Tables = append(c.Tables, costTable(res, all), gainTable(gains))
	c.StartGain = gainSentence(gains)
	c.swap(append(slices.Clip(claim5Factors), startFactor(startClasses(res, []string{"table1"}))), eval,
		"budget ¼×, 1×, 4× of the reference budget; start: the MMD-FW and SVGD arms of one start class")
	return c
}

// pmText is the mean ± sd of v (– when empty).
func pmText(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	m, s := report.MeanSD(v)
	return report.FormatPM(m, s)
}
