package paper

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// Claim 1: MMD-FW reaches a given accuracy or RMSE at less cost than
// SVGD. Per split the level is the SVGD arm's value at its chosen snapshot
// (never a raw final value of a diverged run), and each arm's cost to it
// is read from that split's own snapshots, so no common grid is needed.

// Thresholds of the claims' contrasts.
const (
	// LevelFraction relaxes a level by 1 % of its error (see Level).
	LevelFraction = 0.01
	// CostBand is the tolerance band of a cost ratio (claim 1): costs
	// within 10 % count for neither arm.
	CostBand = 1.1
	// MMDBand is the tolerance band of an MMD² or KSD² ratio (claims 3
	// and 4).
	MMDBand = 1.1
	// AccuracyBand is the tolerance band of an accuracy difference
	// (claim 4): 0.1 percentage point.
	AccuracyBand = 0.001
	// RMSEMargin and LLMargin are claim 5's margins of "about as
	// accurate": an RMSE at most 5 % above SVGD's, a test log-likelihood at
	// most 0.05 nats (a likelihood ratio of 5 % per test point) below it.
	RMSEMargin = 1.05
	LLMargin   = 0.05
)

// Level relaxes the value v of a metric whose meaning is mm by
// LevelFraction of its error: a metric that is better lower (an RMSE) to
// v·(1 + f); a fraction that is better higher (an accuracy, mm.Fraction)
// to 1 − (1 − v)(1 + f), the same 1 % of its error rate; any other metric
// that is better higher (a log-likelihood) to v − f·|v|. A metric best at
// an ideal value has no level: NaN. Claim 1's level is the SVGD arm's
// value at its chosen snapshot, so relaxed; the SVGD arm reaches it by
// construction, and noise at a plateau does not decide.
func Level(mm harness.MetricMeaning, v float64) float64 {
	switch mm.Better {
	case harness.HigherBetter:
		if mm.Fraction {
			return 1 - (1-v)*(1+LevelFraction)
		}
		return v - LevelFraction*math.Abs(v)
	case harness.LowerBetter:
		return v * (1 + LevelFraction)
	}
	return math.NaN()
}

// chosenSnapshot returns the snapshot of c that rule chooses among those
// keep accepts: the last (by gradient evaluations, then step) for
// snapFinal; for snapDev the one with the best development RMSE (the
// earliest of equals), or the last when the cell records no development
// metric. dev reports whether development rows chose it.
func chosenSnapshot(c *report.Cell, keep func(report.Row) bool, rule string) (sn *snapshot, dev bool) {
	snaps := snapshotsOf(c, keep)
	if len(snaps) == 0 {
		return nil, false
	}
	sort.SliceStable(snaps, func(i, j int) bool {
		if snaps[i].grads != snaps[j].grads {
			return snaps[i].grads < snaps[j].grads
		}
		return snaps[i].step < snaps[j].step
	})
	if rule == snapDev && report.HasMetric([]*report.Cell{c}, selectionMetric) {
		best := -1
		for i, s := range snaps {
			if v, ok := s.vals[selectionMetric]; ok && report.Finite(v) && (best < 0 || v < snaps[best].vals[selectionMetric]) {
				best = i
			}
		}
		if best < 0 {
			return nil, true
		}
		return snaps[best], true
	}
	return snaps[len(snaps)-1], false
}

// withinGrads keeps the rows of a cell within budget level lv of its
// gradient evaluations (every row of a cell without a gradient budget).
func withinGrads(c *report.Cell, lv BudgetLevel) func(report.Row) bool {
	b := budgetOf(c, lv)
	return func(r report.Row) bool { return float64(r.GradEvals) <= b }
}

// cost is a point on both cost axes.
type cost struct {
	grads, secs float64
	reached     bool
	// first is set when the level is reached at the cell's first snapshot.
	first bool
}

// at returns the cost on an axis.
func (c cost) at(axis string) float64 {
	if axis == axisSeconds {
		return c.secs
	}
	return c.grads
}

// costToLevel returns the cost at which metric of cell c first reaches
// level (from below when higher is better), interpolated linearly between
// the two snapshots around the crossing, on both axes at once (the
// crossing's fraction is the same on either). A cell that never reaches it
// returns the cost of its last snapshot with reached false. Costs are at
// least the cell's first positive cost, so that a ratio of costs is
// defined.
func costToLevel(c *report.Cell, metric string, level float64, higherBetter bool) cost {
	rows := c.Metric(metric)
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].GradEvals != rows[j].GradEvals {
			return rows[i].GradEvals < rows[j].GradEvals
		}
		return rows[i].Step < rows[j].Step
	})
	if len(rows) == 0 {
		return cost{grads: math.NaN(), secs: math.NaN()}
	}
	minG, minS := math.Inf(1), math.Inf(1)
	for _, r := range rows {
		if r.GradEvals > 0 {
			minG = math.Min(minG, float64(r.GradEvals))
		}
		if r.Seconds > 0 {
			minS = math.Min(minS, r.Seconds)
		}
	}
	floor := func(k cost) cost {
		if report.Finite(minG) {
			k.grads = math.Max(k.grads, minG)
		}
		if report.Finite(minS) {
			k.secs = math.Max(k.secs, minS)
		}
		return k
	}
	reached := func(v float64) bool {
		if higherBetter {
			return v >= level
		}
		return v <= level
	}
	for i, r := range rows {
		if !report.Finite(r.Value) || !reached(r.Value) {
			continue
		}
		if i == 0 || !report.Finite(rows[i-1].Value) {
			return floor(cost{float64(r.GradEvals), r.Seconds, true, i == 0})
		}
		p := rows[i-1]
		f := (level - p.Value) / (r.Value - p.Value)
		return floor(cost{float64(p.GradEvals) + f*float64(r.GradEvals-p.GradEvals), p.Seconds + f*(r.Seconds-p.Seconds), true, false})
	}
	last := rows[len(rows)-1]
	return floor(cost{float64(last.GradEvals), last.Seconds, false, false})
}

// bySplit returns the finished cells of method m on dataset ds by split
// (the one of largest N when a split has several).
func bySplit(cells []*report.Cell, ds, m string) map[int]*report.Cell {
	out := map[int]*report.Cell{}
	for _, c := range report.Done(cells) {
		if c.Prov.Dataset == ds && c.Prov.Method == m {
			if o, ok := out[c.Prov.Split]; !ok || c.Prov.N > o.Prov.N {
				out[c.Prov.Split] = c
			}
		}
	}
	return out
}

// sortedSplits returns the keys of m in order.
func sortedSplits[V any](m map[int]V) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// claim1Experiments are the comparisons of claim 1: the experiment and
// the metric its level is read in.
var claim1Experiments = []struct{ id, metric string }{{"fig1a", "accuracy"}, {"fig2a", "rmse"}, {"table1", "rmse"}}

// claim1Contrasts returns the contrasts of claim 1 under cfg on its cost
// axis (the declared claim 1).
func claim1Contrasts(res *report.Results, cfg protocolConfig) []Contrast {
	return paperSection(res, 1, cfg)
}

// costContrast is claim 1's contrast of MMD-FW arm fw with SVGD arm sv on
// one dataset under cfg: per split, the SVGD arm's value at the snapshot
// cfg.Snap chooses within cfg.Budget, relaxed by Level, and the
// difference ln(SVGD's cost / MMD-FW's cost) to reach it on cfg.Axis. A
// split whose SVGD value is worse than the constant predictor's has
// diverged and gives no level.
func costContrast(res *report.Results, id, ds, metric, fw, sv string, cfg protocolConfig) (Contrast, bool) {
	cells := res.Reported(id)
	fwc, svc := bySplit(cells, ds, fw), bySplit(cells, ds, sv)
	if len(fwc) == 0 || len(svc) == 0 {
		return Contrast{}, false
	}
	hb, noLevel := res.HigherBetter(metric)
	mm, _ := res.Meaning(metric)
	c := Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(cells, ds), What: "cost to the " + metricWord(metric) + " level", Axis: cfg.Axis,
		Key: fmt.Sprintf("%s %s vs %s:", id, ds, sv),
		A:   armInfo(res, id, ds, fw), B: armInfo(res, id, ds, sv), Band: Band{Tau: math.Log(CostBand), Ratio: true}}
	c.Confounds = confounds(c.A, c.B, cfg.Axis == axisSeconds)
	if noLevel != nil {
		c.Skip = "no level: " + noLevel.Error()
		c.finish()
		return c, true
	}
	floor, src := constantFloor(res, id, ds, metric)
	var diverged, never, neverSV, noDev []string
	noValue := 0
	for _, s := range sortedSplits(svc) {
		fc := fwc[s]
		if fc == nil {
			continue
		}
		snap, dev := chosenSnapshot(svc[s], withinGrads(svc[s], cfg.Budget), cfg.Snap)
		if snap == nil {
			continue
		}
		if cfg.Snap == snapDev && !dev {
			noDev = append(noDev, fmt.Sprint(s))
		}
		v, ok := snap.vals[metric]
		if !ok || !report.Finite(v) {
			noValue++
			continue
		}
		if f, ok := floor[s]; ok && worseThan(v, f, hb) {
			diverged = append(diverged, fmt.Sprintf("%d (%.4g against the constant predictor's %.4g)", s, v, f))
			continue
		}
		lv := Level(mm, v)
		a, b := costToLevel(fc, metric, lv, hb), costToLevel(svc[s], metric, lv, hb)
		ca, cb := a.at(cfg.Axis), b.at(cfg.Axis)
		if !(ca > 0) || !(cb > 0) {
			continue
		}
		if !a.reached {
			never = append(never, fmt.Sprint(s))
		}
		if !b.reached {
			neverSV = append(neverSV, fmt.Sprint(s))
		}
		c.Splits = append(c.Splits, s)
		c.AVal = append(c.AVal, ca)
		c.BVal = append(c.BVal, cb)
		c.D = append(c.D, math.Log(cb/ca))
		c.levels = append(c.levels, lv)
		c.aCost, c.bCost = append(c.aCost, a), append(c.bCost, b)
		i := len(c.D) - 1
		if r := runFlagged(fc, svc[s]); r != "" {
			c.exclude(i, r)
		}
		switch {
		case a.first && b.first:
			c.exclude(i, ExclStart+": both arms' first snapshot already reaches the level")
		case !a.reached && !b.reached:
			c.exclude(i, "neither arm reaches the level")
		case !a.reached && ca < cb:
			c.aCheap++
			c.exclude(i, ExclBound+": "+fw+" never reaches the level, but its whole run costs less than "+sv+"'s cost to it")
		case !b.reached && cb < ca:
			c.bCheap++
			c.exclude(i, ExclBound+": "+sv+" never reaches the level, but its whole run costs less than "+fw+"'s cost to it")
		}
	}
	c.aNever, c.bNever = len(never), len(neverSV)
	if len(diverged) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("SVGD diverged (worse than the constant predictor of %s) on split %s: no level there", src, strings.Join(diverged, ", ")))
	}
	switch {
	case len(never) > 0 && len(never) == len(c.D) && c.aCheap == 0:
		c.Notes = append(c.Notes, "MMD-FW never reaches the level within its whole run on any split: worse (the interval, from its whole run's cost, is a bound in its favour)")
	case len(never) > 0:
		c.Notes = append(c.Notes, fmt.Sprintf("MMD-FW never reaches the level on split %s: its cost there is its whole run's, a bound in its favour, so the contrast cannot be better", strings.Join(never, ", ")))
	}
	if c.aCheap+c.bCheap > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("on %d %s the arm that never reaches the level ran, in all, cheaper than the other's cost to it: a bound that decides nothing there (inconclusive, not worse)",
			c.aCheap+c.bCheap, plural(c.aCheap+c.bCheap, "split", "splits")))
	}
	if len(neverSV) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("SVGD never reaches its level on split %s: its cost there is its whole run's, a bound in its favour, so the contrast cannot be worse", strings.Join(neverSV, ", ")))
	}
	if len(noDev) > 0 {
		c.Notes = append(c.Notes, "no development rows recorded: the level is read at the final snapshot")
	}
	if floor == nil {
		c.Notes = append(c.Notes, "no constant predictor recorded: divergence not checked")
	}
	switch {
	case len(c.D) > 0:
	case len(diverged) > 0:
		c.Skip = "SVGD diverged on every split"
	case noValue > 0:
		c.Skip = "the SVGD arm has no finite value at its chosen snapshot on any split: no level"
	}
	c.finish()
	c.censor(len(never), len(neverSV))
	return c, true
}

// censor corrects the outcome of a cost contrast for the splits on which
// an arm never reached the level (aNever of A, bNever of B), whose costs
// are bounds in that arm's favour: a bound cannot show that arm ahead, so
// A censored anywhere makes a better outcome inconclusive (B censored, a
// worse one); A never reaching the level on any split while B reaches it
// on every split is worse (within its whole run A does not get where B
// gets), and the converse better, unless on some split the arm's whole
// run cost less than the other's cost to the level (c.aCheap, c.bCheap):
// there the bound says nothing, and the contrast stays as its interval
// reads.
func (c *Contrast) censor(aNever, bNever int) {
	if c.Skip != "" {
		return
	}
	c.Bound = aNever+bNever > 0
	n := len(c.D)
	switch {
	case aNever == n && bNever == 0 && c.aCheap == 0:
		c.Outcome = Worse
	case bNever == n && aNever == 0 && c.bCheap == 0:
		c.Outcome = Better
	case aNever > 0 && c.Outcome == Better, bNever > 0 && c.Outcome == Worse:
		c.Outcome = Inconclusive
	}
}

// metricWord names a metric in a sentence.
func metricWord(m string) string {
	switch m {
	case "rmse":
		return "RMSE"
	case "test_ll":
		return "test LL"
	}
	return m
}

// startRule says how claims 1, 3 and 5 treat the start.
const startRule = " Start: every MMD-FW arm is paired with every SVGD arm of its protocol; a pair of the same start class (the network's own initialisation, " +
	"a trained network, the MAP, prior draws) is counted, a pair across start classes is shown and takes no part in the verdict (when every pair is across " +
	"starts, the evidence cannot decide). Each arm is also set against its start alone: the start-only baselines (kind `start`: the trained network alone, " +
	"a deep ensemble of trained networks, the MAP alone, Laplace draws at the MAP) of its start class, at the same gradient-evaluation budget and snapshot rule, " +
	"in the table \"Gain over its start\"; that gain is not part of the verdict, and an arm that does not beat its start alone is named."

// claim1Factors are the factors of claim 1's swap table.
var claim1Factors = []factor{axisFactor, snapFactor, budgetFactor, fwFactor, svgdFactor}

func claim1(res *report.Results) Claim {
	c := Claim{Number: 1,
		Text: "MMD-FW reaches a given test accuracy / RMSE in less wall-clock time than SVGD (Fig. 1a, 2a, Table 1).",
		Rule: fmt.Sprintf("One contrast per comparison (fig1a accuracy; fig2a RMSE; each Table 1 dataset's RMSE) and SVGD arm, paired over splits. On each split the level is "+
			"the SVGD arm's test value at the snapshot the protocol's rule chooses within the budget (final: its last; development-selected: the best development RMSE, "+
			"or its last where no development rows are recorded, as in fig1a and fig2a), relaxed by %g %% of its error (RMSE × 1.01; accuracy 1 − 1.01·(1 − a)). "+
			"A split on which that value is worse than the constant predictor's (the training mean) has diverged and gives no level. Each arm's cost to the level "+
			"is read from that split's own snapshots, interpolated between the two around the crossing, on both axes (gradient evaluations and compute seconds); "+
			"an arm that never reaches it is given its whole run's cost (a bound in its favour). The difference is ln(SVGD's cost / MMD-FW's cost); "+
			"over splits its mean, 95 %% paired-t interval, shown as the ratio SVGD/MMD-FW (above 1: MMD-FW faster). "+
			"Tolerance band: ratios within ×%g of 1 count for neither: better when the interval lies above ×%g, worse when below 1/%g, inconclusive otherwise. "+
			"A contrast whose arms differ in more than the method (their start, budget, evaluation rows or, on the seconds axis, the run setting of their timed cells) "+
			"is shown and not counted. Paper's protocol: compute seconds, final snapshots at 1× the reference budget, the paper's MMD-FW and SVGD arms. "+
			"Fair protocol: gradient evaluations, development-selected snapshots at 1×, the fair MMD-FW arm against every SVGD arm. A verdict is given on each axis. "+
			"Supported when more than half of the computed contrasts (counted or confounded) are better and none is worse; not supported when one is worse; otherwise the evidence cannot decide.",
			100*LevelFraction, CostBand, CostBand, CostBand) + oneMethod,
		Figures: []string{"fig1a", "fig1a-seconds", "fig2a", "fig2a-seconds", "table1"},
		Header: []string{"protocol", "figure", "dataset", "MMD-FW arm (start)", "SVGD arm (start)", "splits", "level (mean)",
			"MMD-FW cost: gradient evaluations; seconds", "SVGD cost: gradient evaluations; seconds",
			"SVGD/MMD-FW in gradient evaluations, mean [95 % CI]", "outcome",
			"SVGD/MMD-FW in seconds, mean [95 % CI]", "outcome",
			"MMD-FW's gain over its start alone", "SVGD's gain over its start alone", "notes"},
	}
	c.Rule += startRule
	eval := func(cfg protocolConfig) []Contrast { return claim1Contrasts(res, cfg) }
	var all []Contrast
	gains := map[string][]Contrast{}
	c.settleAxes(eval, func(proto string, grads, secs []Contrast) {
		all = append(all, grads...)
		gains[proto] = gainContrasts(res, claim1Experiments, protocolConfigs[proto])
		l := gainLookup(gains[proto])
		for i, k := range grads {
			s := &secs[i]
			c.Rows = append(c.Rows, append(append([]string{protocolName(proto), k.Figure, k.Dataset, k.A.Label(), k.B.Label(), fmt.Sprint(len(k.Splits)),
				report.FormatG(meanOf(k.levels)), k.costText(true), k.costText(false)}, k.outcomeCells()...),
				append(s.outcomeCells(), gainCell(l, k.Figure, k.DS, k.A.Method), gainCell(l, k.Figure, k.DS, k.B.Method), notesText(&k, s))...))
		}
	})
	c.Tables = append(c.Tables, costTable(res, all), gainTable(gains))
	c.StartGain = gainSentence(gains)
	ids := make([]string, len(claim1Experiments))
	for i, e := range claim1Experiments {
		ids[i] = e.id
	}
	c.swap(append(slices.Clip(claim1Factors), startFactor(startClasses(res, ids))), eval,
		"budget: Table 1 only, fig1a and fig2a have one; snapshot rule: fig1a and fig2a record no development rows; start: the MMD-FW and SVGD arms of one start class")
	return c
}

// meanOf is the mean of v (NaN when empty).
func meanOf(v []float64) float64 { m, _ := report.MeanSD(v); return m }

// outcomeCells are a contrast's interval and outcome cells.
func (c *Contrast) outcomeCells() []string {
	return []string{c.IntervalText(), c.OutcomeText()}
}

// notesText joins the notes of the contrasts of one comparison, each once.
func notesText(cs ...*Contrast) string {
	var n []string
	for _, c := range cs {
		for _, s := range c.Notes {
			if !slices.Contains(n, s) {
				n = append(n, s)
			}
		}
	}
	return strings.Join(n, "; ")
}
