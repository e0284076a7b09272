package paper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// Start is a factor of every comparison. Claims 1, 3 and 5 pair an MMD-FW
// arm with an SVGD arm of the same start class (the network's own
// initialisation, a trained network, the MAP); a pair across start classes
// is shown and takes no part in the verdict. Each arm is also set against
// its start alone, the start-only baselines (kind start) of its class: a
// method that does not beat the start it was handed adds nothing to it.

// GainBand is the tolerance band of a gain over the start on an RMSE: an
// arm within ×1.01 of its start-only baseline neither beats it nor falls
// behind it.
const GainBand = 1.01

// startOrder orders start classes in tables and swap rows.
var startOrder = []string{startModel, startTrained, startMAP, startPrior, startSVGD, startSearch, startRef}

// sortStarts sorts start classes by startOrder (others after, by name).
func sortStarts(cs []string) {
	rank := func(s string) int {
		if i := slices.Index(startOrder, s); i >= 0 {
			return i
		}
		return len(startOrder)
	}
	slices.SortStableFunc(cs, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

// protocolFWArms returns the MMD-FW arms of experiment id under protocol
// proto: under the paper's its one arm (declared, else the first by name);
// under the fair one every arm declared for it (one per start class, as
// validation chose it), else the first by name.
func protocolFWArms(r *report.Results, id, proto string, cells []*report.Cell) []string {
	if proto == fair {
		if a := declaredArms(r, id, fair, cells, report.IsMMDFW); len(a) > 0 {
			return a
		}
	}
	if a := arm(r, id, proto, cells, report.IsMMDFW); a != "" {
		return []string{a}
	}
	return nil
}

// allArms returns every arm of a kind is accepts that a protocol may read
// in experiment id: those declared for the paper's protocol, then the fair
// one, then the undeclared candidates (no random features, no exact LMO
// direction).
func allArms(r *report.Results, id string, cells []*report.Cell, is func(string) bool) []string {
	var out []string
	add := func(ms []string) {
		for _, m := range ms {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	add(declaredArms(r, id, paper, cells, is))
	add(declaredArms(r, id, fair, cells, is))
	names, kinds := report.MethodOrder(cells)
	for _, m := range names {
		if is(kinds[m]) && firstMethodIs(cells, m) && len(r.Declared[id].Arms) == 0 {
			add([]string{m})
		}
	}
	return out
}

// ofStart keeps the arms of own whose start class on dataset ds is class;
// when none is, the arms of all of that class (another protocol's arm of
// that start).
func ofStart(r *report.Results, id, ds, class string, own, all []string) []string {
	keep := func(ms []string) []string {
		var out []string
		for _, m := range ms {
			if armInfo(r, id, ds, m).StartClass == class {
				out = append(out, m)
			}
		}
		return out
	}
	if k := keep(own); len(k) > 0 {
		return k
	}
	return keep(all)
}

// armSets returns the MMD-FW and SVGD arms a claim pairs on dataset ds of
// experiment id under cfg: the protocol's own arms, or with cfg.Start the
// arms of that start class (the protocol's own where it has one).
func armSets(r *report.Results, id, ds string, cells []*report.Cell, cfg protocolConfig) (fws, svs []string) {
	fws = protocolFWArms(r, id, cfg.FW, cells)
	svs = svgdArmNames(r, id, cfg.SVGD, cells)
	if cfg.Start != "" {
		fws = ofStart(r, id, ds, cfg.Start, fws, allArms(r, id, cells, report.IsMMDFW))
		svs = ofStart(r, id, ds, cfg.Start, svs, allArms(r, id, cells, report.IsSVGD))
	}
	return fws, svs
}

// hasCells reports whether method m has a finished cell on dataset ds.
func hasCells(cells []*report.Cell, ds, m string) bool { return len(bySplit(cells, ds, m)) > 0 }

// noPartner is the contrast, not computable, of an MMD-FW arm of start
// class cfg.Start that no SVGD arm of that start can be set against.
func noPartner(res *report.Results, id, ds, fw, what, axis string, cfg protocolConfig) Contrast {
	cells := res.Reported(id)
	c := Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(cells, ds), What: what, Axis: axis,
		Key: fmt.Sprintf("%s %s:", id, ds), A: armInfo(res, id, ds, fw),
		B:    ArmInfo{Method: "–", Start: cfg.Start, StartClass: cfg.Start, SecPerKGrad: math.NaN()},
		Skip: "no SVGD arm starts from the " + cfg.Start}
	return c
}

// startClasses returns the start classes of the MMD-FW and SVGD arms of
// experiments ids (every arm a protocol may read), in startOrder.
func startClasses(r *report.Results, ids []string) []string {
	var out []string
	for _, id := range ids {
		cells := r.Reported(id)
		for _, ds := range report.Datasets(report.Done(cells)) {
			for _, is := range []func(string) bool{report.IsMMDFW, report.IsSVGD} {
				for _, m := range allArms(r, id, cells, is) {
					if cl := armInfo(r, id, ds, m).StartClass; cl != "" && hasCells(cells, ds, m) && !slices.Contains(out, cl) {
						out = append(out, cl)
					}
				}
			}
		}
	}
	sortStarts(out)
	return out
}

// startFactor is the start factor of a swap table over the start classes
// present: the protocol's arms as they are (every start they have), or the
// arms of one start class.
func startFactor(classes []string) factor {
	return factor{name: "start", values: append([]string{""}, classes...),
		words: func(v string) string {
			if v == "" {
				return "the protocol's arms' own starts"
			}
			return "the arms that start from the " + v
		},
		get: func(c protocolConfig) string { return c.Start },
		set: func(c protocolConfig, v string) protocolConfig { c.Start = v; return c }}
}

// startBaselines returns the start-only baselines (kind start) of
// experiment id on dataset ds whose start class is class: the start alone
// first (the trained network, the MAP), then the others (a deep ensemble,
// Laplace draws), each in legend order.
func startBaselines(res *report.Results, id, ds, class string) []string {
	cells := res.Reported(id)
	names, kinds := report.MethodOrder(cells)
	done := report.CellsOf(report.Done(cells), ds)
	var alone, other []string
	for _, m := range names {
		if !IsStartKind(kinds[m]) || !hasCells(cells, ds, m) {
			continue
		}
		if armInfo(res, id, ds, m).StartClass != class {
			continue
		}
		isAlone := false
		for _, c := range done {
			if c.Prov.Method == m {
				isAlone = startAlone(c)
				break
			}
		}
		if isAlone {
			alone = append(alone, m)
		} else {
			other = append(other, m)
		}
	}
	return append(alone, other...)
}

// gainHead is a gain contrast of arm m against start-only baseline base on
// dataset ds of experiment id before its splits are added: its labels, its
// arms, its band and its confounds. The start-only baseline is the start,
// not another method: only its start class matters, and it runs under its
// own, smaller budget, so a budget difference is no confound.
func gainHead(res *report.Results, id, ds, m, base, what, axis, key string, band Band) Contrast {
	a, b := armInfo(res, id, ds, m), armInfo(res, id, ds, base)
	return Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(res.Reported(id), ds), What: what, Axis: axis,
		Key: key, A: a, B: b, Band: band,
		Confounds: slices.DeleteFunc(confounds(a, b, false), func(s string) bool { return strings.HasPrefix(s, "budget:") })}
}

// gainWhat is what a gain contrast on metric under cfg compares: the
// metric at the snapshot cfg.Snap chooses within cfg.Budget.
func gainWhat(metric string, cfg protocolConfig) string {
	return fmt.Sprintf("%s, %s at %s", metricWord(metric), cfg.Snap, cfg.Budget.Label)
}

// gainContrast sets arm m against start-only baseline base on dataset ds
// of experiment id: per split, metric at the snapshot cfg.Snap chooses
// within cfg.Budget's gradient evaluations, for the arm and for the
// baseline; the difference is ln(base / arm) for an RMSE (shown as the
// ratio base/arm, above 1: the arm beats its start) and arm − base for an
// accuracy. Better when the interval lies above the band (×GainBand, or
// AccuracyBand), worse when below its negative.
func gainContrast(res *report.Results, id, ds, metric, m, base string, cfg protocolConfig) Contrast {
	cells := res.Reported(id)
	ratio := metric == "rmse"
	band := Band{Tau: AccuracyBand}
	switch {
	case ratio:
		band = Band{Tau: math.Log(GainBand), Ratio: true}
	case metric == "test_ll":
		band = Band{Tau: LLMargin}
	}
	c := gainHead(res, id, ds, m, base, gainWhat(metric, cfg),
		axisGrads, fmt.Sprintf("%s %s %s vs %s:", id, ds, m, base), band)
	ac, bc := bySplit(cells, ds, m), bySplit(cells, ds, base)
	for _, s := range sortedSplits(ac) {
		if bc[s] == nil {
			continue
		}
		as, _ := chosenSnapshot(ac[s], withinGrads(ac[s], cfg.Budget), cfg.Snap)
		bs, _ := chosenSnapshot(bc[s], withinGrads(bc[s], cfg.Budget), cfg.Snap)
		if as == nil || bs == nil {
			continue
		}
		av, ok1 := as.vals[metric]
		bv, ok2 := bs.vals[metric]
		if !ok1 || !ok2 || !report.Finite(av) || !report.Finite(bv) || (ratio && (av <= 0 || bv <= 0)) {
			continue
		}
		d := av - bv
		if ratio {
			d = math.Log(bv / av)
		}
		c.Splits, c.AVal, c.BVal, c.D = append(c.Splits, s), append(c.AVal, av), append(c.BVal, bv), append(c.D, d)
		c.aCost = append(c.aCost, cost{grads: float64(as.grads), secs: as.secs, reached: true})
		c.bCost = append(c.bCost, cost{grads: float64(bs.grads), secs: bs.secs, reached: true})
	}
	if len(c.D) == 0 {
		c.Skip = "no split with both"
	}
	c.finish()
	return c
}

// gainContrasts returns, for the experiments exps of a claim under cfg,
// every MMD-FW and SVGD arm the claim pairs set against each start-only
// baseline of its start class; on fig1a also the Stein Points and SGLD
// arms of the protocol (otherArms), on its accuracy and test LL, each
// against the baselines of its own start class or, when its class has
// none, a row that says so.
func gainContrasts(res *report.Results, exps []struct{ id, metric string }, cfg protocolConfig) []Contrast {
	var out []Contrast
	for _, e := range exps {
		cells := res.Reported(e.id)
		for _, ds := range report.Datasets(report.Done(cells)) {
			fws, svs := armSets(res, e.id, ds, cells, cfg)
			for _, m := range append(fws, svs...) {
				if !hasCells(cells, ds, m) {
					continue
				}
				for _, base := range startBaselines(res, e.id, ds, armInfo(res, e.id, ds, m).StartClass) {
					out = append(out, gainContrast(res, e.id, ds, e.metric, m, base, cfg))
				}
			}
			if e.id != "fig1a" {
				continue
			}
			for _, m := range otherArms(res, e.id, cfg.FW, cells) {
				if !hasCells(cells, ds, m) {
					continue
				}
				bases := startBaselines(res, e.id, ds, armInfo(res, e.id, ds, m).StartClass)
				for _, metric := range []string{e.metric, "test_ll"} {
					if metric == "test_ll" && !report.HasMetric(report.CellsOf(report.Done(cells), ds), metric) {
						continue
					}
					if len(bases) == 0 {
						out = append(out, noBaseline(res, e.id, ds, m, gainWhat(metric, cfg), axisGrads))
					}
					for _, base := range bases {
						out = append(out, gainContrast(res, e.id, ds, metric, m, base, cfg))
					}
				}
			}
		}
	}
	return out
}

// isOtherKind reports whether a method kind is one whose arms are set
// against their start on fig1a and fig1b beside MMD-FW and SVGD: Stein
// Points or SGLD.
func isOtherKind(kind string) bool { return report.IsSP(kind) || report.NormKind(kind) == "sgld" }

// otherArms returns the Stein Points and SGLD arms of experiment id read
// under protocol proto: those declared for it and, under the paper's
// protocol, those declared for neither protocol (the ablations kept beside
// the paper's arms, such as SP from the MAP).
func otherArms(r *report.Results, id, proto string, cells []*report.Cell) []string {
	out := declaredArms(r, id, proto, cells, isOtherKind)
	if proto != paper {
		return out
	}
	fairArms := declaredArms(r, id, fair, cells, isOtherKind)
	names, kinds := report.MethodOrder(cells)
	for _, m := range names {
		if isOtherKind(kinds[m]) && !slices.Contains(out, m) && !slices.Contains(fairArms, m) {
			out = append(out, m)
		}
	}
	return out
}

// noBaseline is the gain contrast, not computable, of arm m on dataset ds
// of experiment id whose start class has no start-only baseline (Stein
// Points' own candidate search).
func noBaseline(res *report.Results, id, ds, m, what, axis string) Contrast {
	cells := res.Reported(id)
	a := armInfo(res, id, ds, m)
	return Contrast{Figure: id, DS: ds, Dataset: report.DatasetLabel(cells, ds), What: what, Axis: axis,
		Key: fmt.Sprintf("%s %s %s vs –:", id, ds, m), A: a,
		B:    ArmInfo{Method: "–", Start: a.Start, StartClass: a.StartClass, SecPerKGrad: math.NaN()},
		Skip: "no start-only baseline of its start (" + a.Start + ")"}
}

// mmdGainContrasts returns, for fig1b under cfg, every MMD-FW and SVGD arm
// the claim pairs, and the protocol's Stein Points and SGLD arms
// (otherArms; one row that says so when the start class has no baseline),
// set against each start-only baseline of its start class at each particle
// count N of fig1b's SVGD cells: per split ln(baseline's MMD² / the
// arm's), the arm at N (MMD-FW and SP: the greedy run's step N; SVGD and
// SGLD: the run with N particles, final snapshot) and the baseline with N
// particles, or, for a baseline of one point (the MAP alone), that point
// at every N. Shown as the ratio baseline/arm: above ×MMDBand the arm
// beats its start, below 1/MMDBand it is worse than its start alone.
func mmdGainContrasts(res *report.Results, cfg protocolConfig) []Contrast {
	const id = "fig1b"
	cells := res.Reported(id)
	var out []Contrast
	for _, ds := range report.Datasets(report.Done(cells)) {
		var ns []int
		for _, c := range report.CellsOf(report.Done(cells), ds) {
			if report.IsSVGD(c.Prov.Kind) && !slices.Contains(ns, c.Prov.N) {
				ns = append(ns, c.Prov.N)
			}
		}
		slices.Sort(ns)
		fws, svs := armSets(res, id, ds, cells, cfg)
		others := otherArms(res, id, cfg.FW, cells)
		for _, m := range append(append(fws, svs...), others...) {
			if !hasCells(cells, ds, m) {
				continue
			}
			bases := startBaselines(res, id, ds, armInfo(res, id, ds, m).StartClass)
			if len(bases) == 0 && slices.Contains(others, m) {
				out = append(out, noBaseline(res, id, ds, m, "MMD² at each N", "particles"))
			}
			for _, base := range bases {
				for _, n := range ns {
					if k, ok := mmdGain(res, id, ds, m, base, n); ok {
						out = append(out, k)
					}
				}
			}
		}
	}
	return out
}

// mmdGain is one contrast of mmdGainContrasts: arm m against baseline base
// at N = n on dataset ds of experiment id; false when neither records N.
func mmdGain(res *report.Results, id, ds, m, base string, n int) (Contrast, bool) {
	cells := res.Reported(id)
	k := gainHead(res, id, ds, m, base, fmt.Sprintf("MMD² at N = %d", n), "particles",
		fmt.Sprintf("%s %s %s vs %s N = %d:", id, ds, m, base, n), Band{Tau: math.Log(MMDBand), Ratio: true})
	done := report.CellsOf(report.Done(cells), ds)
	// value returns method m's MMD² on split s at N = n, and its cost.
	value := func(m string, greedy bool) map[int]report.Row {
		out := map[int]report.Row{}
		single := map[int]*report.Cell{}
		for _, c := range done {
			if c.Prov.Method != m {
				continue
			}
			if greedy {
				if r, ok := atStep(trajectory(c, "mmd2"), n); ok {
					out[c.Prov.Split] = r
				}
				continue
			}
			if c.Prov.N == n {
				if r, ok := c.Final("mmd2"); ok {
					out[c.Prov.Split] = r
				}
			}
			if c.Prov.N <= 1 {
				single[c.Prov.Split] = c
			}
		}
		for s, c := range single {
			if _, ok := out[s]; !ok {
				if r, ok := c.Final("mmd2"); ok {
					out[s] = r
				}
			}
		}
		return out
	}
	av, bv := value(m, report.IsGreedy(k.A.Kind)), value(base, false)
	for _, s := range sortedSplits(av) {
		ar, br := av[s], bv[s]
		if _, ok := bv[s]; !ok || !(ar.Value > 0) || !(br.Value > 0) {
			continue
		}
		k.Splits, k.AVal, k.BVal = append(k.Splits, s), append(k.AVal, ar.Value), append(k.BVal, br.Value)
		k.D = append(k.D, math.Log(br.Value/ar.Value))
		k.aCost, k.bCost = append(k.aCost, rowCost(ar)), append(k.bCost, rowCost(br))
	}
	if len(k.D) == 0 {
		return k, false
	}
	k.finish()
	return k, true
}

// gainText is a gain contrast's outcome in words.
func gainText(c *Contrast) string {
	if c.Skip != "" {
		return "not computable: " + c.Skip
	}
	switch c.Outcome {
	case Better:
		return "beats its start"
	case Worse:
		return "worse than its start alone"
	}
	return "inconclusive"
}

// otherArmsNote says in a gain table's title which Stein Points and SGLD
// arms it lists and how an arm without a baseline of its start shows.
const otherArmsNote = "on fig1a and fig1b also the Stein Points and SGLD arms of each protocol, under the paper's also those declared for neither protocol " +
	"(SP from the MAP); an arm whose start has no start-only baseline (SP's own candidate search) is listed as not computable"

// isTestLLGain reports whether gain contrast k is on the test LL.
func isTestLLGain(k *Contrast) bool { return strings.HasPrefix(k.What, metricWord("test_ll")+",") }

// gainTable is the table of gain contrasts gs per protocol.
func gainTable(gs map[string][]Contrast) ClaimTable {
	t := ClaimTable{Title: fmt.Sprintf("Gain over its start (each arm against the start-only baselines of its start class: the test value at the snapshot the protocol's "+
		"rule chooses within the same gradient-evaluation budget, paired over splits; RMSE as the ratio baseline/arm, above 1: the arm beats its start, band ×%g; "+
		"accuracy and test LL (marked) as arm − baseline, bands ±%g and ±%g nats; "+otherArmsNote+"; not part of the verdict)", GainBand, AccuracyBand, LLMargin),
		Header: []string{"protocol", "figure", "dataset", "arm (start)", "start-only baseline", "splits", "arm", "baseline",
			"gain, mean [95 % CI]", "outcome", "arm snapshot: gradient evaluations; seconds", "baseline snapshot: gradient evaluations; seconds"}}
	for _, p := range []string{paper, fair} {
		for i := range gs[p] {
			k := &gs[p][i]
			ds := k.Dataset
			if isTestLLGain(k) {
				ds += ", " + metricWord("test_ll")
			}
			t.Rows = append(t.Rows, []string{protocolName(p), k.Figure, ds, k.A.Label(), k.B.Label(), fmt.Sprint(len(k.Splits)),
				valueText(k.AVal, false), valueText(k.BVal, false), k.IntervalText(), gainText(k), k.costText(true), k.costText(false)})
		}
	}
	return t
}

// mmdGainTable is gainTable for the MMD² gains of mmdGainContrasts: the
// dataset column names the particle count.
func mmdGainTable(gs map[string][]Contrast) ClaimTable {
	t := gainTable(gs)
	t.Title = fmt.Sprintf("Gain over its start (each arm against the start-only baselines of its start class at each particle count N: the arm's MMD² at N "+
		"(MMD-FW's and SP's step N, SVGD's run with N particles) and the baseline's with N particles, or the MAP alone at every N, paired over splits; shown as the ratio "+
		"baseline/arm, above 1: the arm beats its start, band ×%g; "+otherArmsNote+"; not part of the verdict)", MMDBand)
	i := 0
	for _, p := range []string{paper, fair} {
		for _, k := range gs[p] {
			t.Rows[i][2] += ", " + strings.TrimPrefix(k.What, "MMD² at ")
			i++
		}
	}
	return t
}

// gainSentence says plainly, per protocol, which arms do not beat their
// start alone (the first start-only baseline of their class: the trained
// network or the MAP alone where recorded), and on which datasets.
func gainSentence(gs map[string][]Contrast) string {
	var parts []string
	for _, p := range []string{paper, fair} {
		type arm struct {
			name, start, base string
			not, total        []string
			byN, byMetric     bool // some comparison is at a particle count; some on the test LL
		}
		var arms []*arm
		var unmeasured []string
		seen := map[string]bool{}
		for i := range gs[p] {
			k := &gs[p][i]
			key := k.Figure + "|" + k.DS + "|" + k.A.Method + "|" + k.What
			if k.Skip != "" && k.B.Method == "–" {
				if w := fmt.Sprintf("%s (%s)", k.A.Method, k.A.Start); !slices.Contains(unmeasured, w) {
					unmeasured = append(unmeasured, w)
				}
				continue
			}
			if k.Skip != "" || seen[key] {
				continue
			}
			seen[key] = true // the first baseline of the class: the start alone
			var a *arm
			for _, x := range arms {
				if x.name == k.A.Method && x.base == k.B.Method {
					a = x
				}
			}
			if a == nil {
				a = &arm{name: k.A.Method, start: k.A.Start, base: k.B.Method}
				arms = append(arms, a)
			}
			where := k.Dataset
			if k.Figure != "table1" {
				where = k.Figure + " " + k.Dataset
			}
			if k.Axis == "particles" {
				where += ", " + strings.TrimPrefix(k.What, "MMD² at ")
				a.byN = true
			}
			if isTestLLGain(k) {
				where += " " + metricWord("test_ll")
				a.byMetric = true
			}
			a.total = append(a.total, where)
			if k.Outcome != Better {
				a.not = append(a.not, fmt.Sprintf("%s (%s, %s)", where, k.IntervalText(), k.Outcome))
			}
		}
		for _, a := range arms {
			unit := "datasets"
			switch {
			case a.byN && a.byMetric:
				unit = "comparisons (dataset, metric and particle count)"
			case a.byN:
				unit = "comparisons (dataset and particle count)"
			case a.byMetric:
				unit = "comparisons (dataset and metric)"
			}
			if len(a.not) == 0 {
				parts = append(parts, fmt.Sprintf("%s: %s (%s) beats its start alone (%s) on all %d %s.", upperFirst(protocolName(p)+" protocol"), a.name, a.start, a.base, len(a.total), unit))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %s (%s) does not beat its start alone (%s) on %d of %d %s: %s.", upperFirst(protocolName(p)+" protocol"),
				a.name, a.start, a.base, len(a.not), len(a.total), unit, strings.Join(a.not, "; ")))
		}
		if len(unmeasured) > 0 {
			parts = append(parts, fmt.Sprintf("%s: no start-only baseline of the start of %s is recorded: its gain over its start is not measured.",
				upperFirst(protocolName(p)+" protocol"), strings.Join(unmeasured, ", ")))
		}
	}
	if len(parts) == 0 {
		return "No start-only baseline (kind `start`) of any arm's start class is recorded: the gain over the start is not measured."
	}
	return strings.Join(parts, " ")
}

// gainLookup indexes the gain contrasts of one protocol against the start
// alone (the first baseline of each arm's class) by figure, dataset and
// arm.
func gainLookup(gs []Contrast) map[string]*Contrast {
	out := map[string]*Contrast{}
	for i := range gs {
		k := &gs[i]
		key := k.Figure + "|" + k.DS + "|" + k.A.Method
		if _, ok := out[key]; !ok {
			out[key] = k
		}
	}
	return out
}

// gainCell is the gain of arm m over its start alone as a table cell.
func gainCell(l map[string]*Contrast, fig, ds, m string) string {
	k, ok := l[fig+"|"+ds+"|"+m]
	if !ok {
		return "–"
	}
	if k.Skip != "" {
		return "–"
	}
	return fmt.Sprintf("%s vs %s: %s", k.IntervalText(), k.B.Method, gainText(k))
}
