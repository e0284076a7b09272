package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/internal/harness"
)

// Verdict is the outcome of checking one of the paper's claims against the
// results.
type Verdict string

// Verdicts.
const (
	Supported    Verdict = "supported"
	NotSupported Verdict = "not supported"
	NotMeasured  Verdict = "not measured here"
)

// Thresholds of the decision rules.
const (
	// LevelFraction is the least relaxation of the level of claims 1 and
	// 5 (see Level): 1% of SVGD's final mean value.
	LevelFraction = 0.01
	// MinRatePoints is the fewest particle counts a rate is fitted to.
	MinRatePoints = 3
)

// Claim is one of the paper's claims with the evidence the results give.
type Claim struct {
	// Number is the claim's number in the specification (1–5).
	Number int
	// Text is the claim as the paper makes it.
	Text string
	// Rule is the decision rule, in words.
	Rule string
	// Verdict is computed by Rule from the evidence under the fair
	// protocol: gradient-evaluation budgets, snapshots chosen on
	// development rows, tuned arms where the results hold them.
	Verdict Verdict
	// Why is one sentence on how the verdict follows from the evidence.
	Why string
	// Paper and PaperWhy are the verdict under the paper's protocol as
	// it states it (fixed wall-clock budgets, final snapshots, the arms as
	// the paper configures them), and its reason.
	Paper    Verdict
	PaperWhy string
	// Difference says which choice of protocol makes the two verdicts
	// differ ("" when they agree).
	Difference string
	// Figures are the ids of the figures the claim rests on, as the
	// experiment files declare them ([[figures]] id), and "table1" for
	// Table 1.
	Figures []string
	// Header and Rows are the evidence table (Markdown cells).
	Header []string
	Rows   [][]string
	// Tables are further evidence tables, rendered after Rows.
	Tables []ClaimTable
}

// ClaimTable is a titled evidence table of a claim (Markdown cells).
type ClaimTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

// Claims checks the five claims of the paper against res.
func Claims(res *Results) []Claim {
	return []Claim{claim1(res), claim2(res), claim3(res), claim4(res), claim5(res)}
}

// majority decides a claim from per-comparison outcomes: not measured
// without any, supported when more than half hold.
func majority(pass, total int) Verdict {
	switch {
	case total == 0:
		return NotMeasured
	case 2*pass > total:
		return Supported
	}
	return NotSupported
}

// every is the verdict of a claim that must hold in all of total
// measurements, pass of which it did.
func every(pass, total int) Verdict {
	switch {
	case total == 0:
		return NotMeasured
	case pass == total:
		return Supported
	}
	return NotSupported
}

// tally is one protocol's count for a claim: pass of total measurements
// held, and the sentence that says so.
type tally struct {
	pass, total int
	why         string
}

// settle sets both verdicts of c by rule (majority or every) from the
// paper's and the fair protocol's tallies, and, where both are measured and
// they differ, the sentence on which choice makes the difference.
func (c *Claim) settle(rule func(pass, total int) Verdict, paper, fair tally, difference string) {
	c.Paper, c.PaperWhy = rule(paper.pass, paper.total), paper.why
	c.Verdict, c.Why = rule(fair.pass, fair.total), fair.why
	if c.Paper != c.Verdict && c.Paper != NotMeasured && c.Verdict != NotMeasured {
		c.Difference = difference
	}
}

// oneMethod says which method stands for MMD-FW (and SVGD, SP) where an
// experiment has several: part of the rules of claims 1, 3, 4 and 5.
const oneMethod = " Arms: where the experiment file declares the arm of a kind for a protocol (a method's `protocols` key), that protocol reads " +
	"the declared arm; the fair protocol's SVGD arms are then the SVGD methods declared for either protocol (the paper's first). " +
	"Where it declares none, the claim uses the first by name (`mmdfw` before `mmdfw-stein`) among those with the RBF kernel and the paper's approximate " +
	"LMO direction, and the fair protocol every such SVGD arm."

// Protocols of the claims' verdicts.
const (
	paper = harness.ProtocolPaper
	fair  = harness.ProtocolFair
)

// declaredArms returns the methods of experiment id that its file declares
// for protocol proto and whose kind (as cells record it) satisfies is, in
// file order.
func (r *Results) declaredArms(id, proto string, cells []*Cell, is func(string) bool) []string {
	_, kinds := methodOrder(cells)
	var out []string
	for _, m := range r.Declared[id].Arms[proto] {
		if k, ok := kinds[m]; ok && is(k) {
			out = append(out, m)
		}
	}
	return out
}

// arm returns the method that stands for the kinds is accepts in
// experiment id under protocol proto: the declared arm, else the first by
// the rule of firstMethod ("" when there is none).
func (r *Results) arm(id, proto string, cells []*Cell, is func(string) bool) string {
	if a := r.declaredArms(id, proto, cells, is); len(a) > 0 {
		return a[0]
	}
	return firstMethod(cells, is)
}

// candidates returns the methods that may stand for the kinds is accepts
// under proto, in the order they are tried: the declared arm alone, else
// every method of such a kind in legend order without random features or
// the exact LMO direction.
func (r *Results) candidates(id, proto string, cells []*Cell, is func(string) bool) []string {
	if a := r.declaredArms(id, proto, cells, is); len(a) > 0 {
		return a[:1]
	}
	names, kinds := methodOrder(cells)
	var out []string
	for _, m := range names {
		if is(kinds[m]) && firstMethodIs(cells, m) {
			out = append(out, m)
		}
	}
	return out
}

// svgdArmNames returns the SVGD arms of experiment id under proto: under
// the paper's protocol its one arm (declared, else the first by name);
// under the fair protocol the SVGD arms declared for either protocol, the
// paper's first, else every SVGD arm in legend order.
func (r *Results) svgdArmNames(id, proto string, cells []*Cell) []string {
	if proto == paper {
		if a := r.arm(id, paper, cells, IsSVGD); a != "" {
			return []string{a}
		}
		return nil
	}
	var out []string
	for _, p := range []string{paper, fair} {
		for _, m := range r.declaredArms(id, p, cells, IsSVGD) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	return r.candidates(id, fair, cells, IsSVGD)
}

// named returns the first series of method name (nil when none).
func named(series []Series, name string) *Series {
	for i := range series {
		if series[i].Method == name {
			return &series[i]
		}
	}
	return nil
}

// pickArm is pick for experiment id under protocol proto: the declared
// arm's series when the file declares one, else pick's.
func (r *Results) pickArm(id, proto string, series []Series, cells []*Cell, is func(string) bool) *Series {
	if a := r.declaredArms(id, proto, cells, is); len(a) > 0 {
		return named(series, a[0])
	}
	return pick(series, cells, is)
}

// protoRows collects the evidence rows of both protocols, one row for a
// comparison both make, with the protocols that make it in a last column.
type protoRows struct {
	rows [][]string
	at   map[string]int
}

func (p *protoRows) add(proto string, row []string) {
	k := strings.Join(row, "\x00")
	if p.at == nil {
		p.at = map[string]int{}
	}
	if i, ok := p.at[k]; ok {
		p.rows[i][len(row)] += ", " + proto
		return
	}
	p.at[k] = len(p.rows)
	p.rows = append(p.rows, append(append([]string(nil), row...), proto))
}

// pick returns the first series whose kind satisfies is and, for MMD-FW,
// that uses neither random features nor the exact LMO direction (the
// paper's RBF method).
func pick(series []Series, cells []*Cell, is func(string) bool) *Series {
	rff := map[string]bool{}
	for _, c := range cells {
		rff[c.Prov.Method] = IsRFF(c) || IsExactLMO(c)
	}
	for i := range series {
		if is(series[i].Kind) && !rff[series[i].Method] {
			return &series[i]
		}
	}
	return nil
}

func fmtG(v float64) string {
	if math.IsInf(v, 1) {
		return "never"
	}
	if !finite(v) {
		return "–"
	}
	return fmt.Sprintf("%.4g", v)
}

// Level is the one level rule of claims 1 and 5: SVGD's final mean value
// m over splits (the last finite value of its mean curve, i.e. at the end
// of the common budget), relaxed by δ = max(LevelFraction·|m|, s), s its sd
// over splits there: m − δ for accuracy and test LL, m + δ for RMSE.
// MMD-FW reaches it when its mean is at least as good as the level.
func Level(final, sd float64, higherBetter bool) float64 {
	d := LevelFraction * math.Abs(final)
	if finite(sd) {
		d = math.Max(d, sd)
	}
	if higherBetter {
		return final - d
	}
	return final + d
}

// reaches reports whether a's mean is at least as good as the level of b
// (Level), larger being better when higher.
func reaches(a, b Stat, higher bool) bool {
	l := Level(b.Mean, b.SD, higher)
	if higher {
		return a.Mean >= l
	}
	return a.Mean <= l
}

// finalMean is the last finite value of the mean curve of s and its sd
// over splits (NaN when none).
func finalMean(s *Series) (mean, sd float64) {
	m, d := s.MeanSD()
	for i := len(m) - 1; i >= 0; i-- {
		if finite(m[i]) {
			return m[i], d[i]
		}
	}
	return math.NaN(), math.NaN()
}

func firstMethodIs(cells []*Cell, method string) bool {
	for _, c := range cells {
		if c.Prov.Method == method && (IsRFF(c) || IsExactLMO(c)) {
			return false
		}
	}
	return true
}

// costComparison is one row of claim 1: MMD-FW against one SVGD arm on one
// cost axis.
type costComparison struct {
	figure, label, metric, axis string
	level, cFW, cSVGD           float64
	fw, svgd                    string
	won                         bool
}

// compareCosts finds the cost (seconds or gradient evaluations) MMD-FW and
// each SVGD arm take to reach the level of that arm on one dataset.
// Under the paper's protocol the cost is in seconds, against the paper's
// SVGD arm; under the fair protocol in gradient evaluations, against every
// SVGD arm of the protocol.
func compareCosts(res *Results, id, ds, metric string, higherBetter bool, proto string) []costComparison {
	cells := res.reported(id)
	var series []Series
	axis := "seconds"
	if proto == fair {
		series, axis = GradSeries(cells, ds, metric), "gradient evaluations"
	} else {
		series = TimeSeries(cells, ds, metric)
	}
	fw := named(series, res.arm(id, proto, cells, IsMMDFW))
	var arms []*Series
	for _, m := range res.svgdArmNames(id, proto, cells) {
		if sv := named(series, m); sv != nil {
			arms = append(arms, sv)
		}
	}
	if fw == nil || len(arms) == 0 {
		return nil
	}
	var out []costComparison
	for _, sv := range arms {
		f, sd := finalMean(sv)
		if !finite(f) {
			continue
		}
		cc := costComparison{figure: id, label: DatasetLabel(cells, ds), metric: metric, axis: axis, fw: fw.Name, svgd: sv.Name, level: Level(f, sd, higherBetter)}
		cc.cFW = TimeToLevel(fw, cc.level, higherBetter)
		cc.cSVGD = TimeToLevel(sv, cc.level, higherBetter)
		cc.won = cc.cFW < cc.cSVGD
		out = append(out, cc)
	}
	return out
}

func claim1(res *Results) Claim {
	c := Claim{Number: 1,
		Text: "MMD-FW reaches a given test accuracy / RMSE in less wall-clock time than SVGD (Fig. 1a, 2a, Table 1).",
		Rule: fmt.Sprintf("For each comparison (fig1a accuracy; fig2a RMSE; each Table 1 dataset's RMSE) the level is the one level rule of claims 1 and 5: "+
			"the SVGD arm's final mean value m over splits, relaxed by δ = max(%g%% of |m|, its sd over splits there), m − δ for accuracy, m + δ for RMSE. Each method's cost to the level "+
			"is the first cost at which its mean curve over splits (interpolated on the common grid) reaches it. MMD-FW wins when its cost is strictly smaller. "+
			"Paper's protocol: cost in compute seconds, the paper's MMD-FW arm against the paper's SVGD arm. "+
			"Fair protocol: cost in per-datapoint gradient evaluations, the fair MMD-FW arm against every SVGD arm of the fair protocol (reference and tuned): a comparison is won "+
			"when MMD-FW wins against each arm. Supported when MMD-FW wins more than half of the measured comparisons.", 100*LevelFraction) + oneMethod,
		Figures: []string{"fig1a", "fig1a-seconds", "fig2a", "fig2a-seconds", "table1"},
		Header:  []string{"protocol", "figure", "dataset", "metric", "MMD-FW arm", "SVGD arm", "level", "cost axis", "MMD-FW cost", "SVGD cost", "MMD-FW first"},
	}
	var skip unranked
	count := func(proto string) (pass, total int) {
		for _, e := range []struct{ id, metric string }{{"fig1a", "accuracy"}, {"fig2a", "rmse"}, {"table1", "rmse"}} {
			higher, err := res.higherBetter(e.metric)
			if err != nil {
				skip.add(err)
				continue
			}
			for _, ds := range Datasets(Done(res.reported(e.id))) {
				cs := compareCosts(res, e.id, ds, e.metric, higher, proto)
				if len(cs) == 0 {
					continue
				}
				total++
				won := true
				for _, cc := range cs {
					won = won && cc.won
					c.Rows = append(c.Rows, []string{proto, cc.figure, cc.label, cc.metric, cc.fw, cc.svgd, fmt.Sprintf("%.4g", cc.level), cc.axis, fmtG(cc.cFW), fmtG(cc.cSVGD), yesNo(cc.won)})
				}
				if won {
					pass++
				}
			}
		}
		return pass, total
	}
	pp, pt := count(paper)
	fp, ft := count(fair)
	c.settle(majority,
		tally{pp, pt, fmt.Sprintf("In compute seconds against the paper's SVGD arm, MMD-FW reached the level first in %d of %d comparisons.", pp, pt) + skip.note()},
		tally{fp, ft, fmt.Sprintf("In gradient evaluations against every SVGD arm, MMD-FW reached the level first in %d of %d comparisons.", fp, ft) + skip.note()},
		"The cost axis (seconds against gradient evaluations) and the SVGD arms compared decide the difference: "+
			"the fair rows show, per arm, where MMD-FW's head start in seconds does not hold in gradient evaluations or against a tuned arm.")
	return c
}

// unranked collects the reasons a claim could not rank a metric (it has no
// registered meaning, so no direction), so that its verdict says so.
type unranked []string

func (u *unranked) add(err error) {
	if !slices.Contains(*u, err.Error()) {
		*u = append(*u, err.Error())
	}
}

// note is the sentence that ends a reason: "" when every metric ranked.
func (u unranked) note() string {
	if len(u) == 0 {
		return ""
	}
	return " Not measured where " + strings.Join(u, "; ") + "."
}

// better reports whether a is better than b by more than margin, in the
// direction higher (true: larger is better).
func better(a, b, margin float64, higher bool) bool {
	if higher {
		return a-b > margin
	}
	return b-a > margin
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// weightRule names an MMD-FW cell's weight rule as it ran: the recorded
// weights, or for an unset one the rule the method resolves it to (BQ when a
// z source is set, else Stein).
func weightRule(c *Cell) string {
	s, _, ok := MMDFWSettings(c)
	if !ok {
		return "–"
	}
	w, _ := s.Weights.MarshalText()
	if len(w) > 0 {
		return string(w)
	}
	if z, _ := s.Z.MarshalText(); len(z) > 0 {
		return "bq"
	}
	return "stein"
}

// rateGroup is the claim-2 verdict of one weight rule and kernel.
type rateGroup struct {
	weights, kernel string
	pass, total     int
	listed          int // series against a flagged reference: listed, not counted
}

func claim2(res *Results) Claim {
	c := Claim{Number: 2,
		Text: "MMD-FW's MMD² falls linearly (in log scale) in the number of particles; exactly so with RFF (finite-dimensional kernel) (Fig. 1b, 2b, rff).",
		Rule: fmt.Sprintf("Each MMD-FW series (mean over splits of log MMD² at each N) is tested over the N above its numerical floor: N ≥ 1, up to the first N "+
			"at which MMD² falls below %g of the series' largest (rounding in wᵀKw − 2wᵀz + ∫∫kpp dominates there; a random-feature run reaches it once its "+
			"particles span the feature space). Two lines are fitted by least squares: geometric, log MMD² = a + b·N, and power law, log MMD² = a + c·log N. "+
			"A series is linear when it has at least %d points, b < 0, the geometric fit has the larger R² (the smaller residual: both fit the same points with two "+
			"parameters), and the geometric line falls at least %g decade over the N fitted (−b·(N_max − N_min)/ln 10 ≥ %g). "+
			"Each series is measured in its own kernel: an RFF series by `%s` (exact in its random-feature space) when its cells record it; an RBF series "+
			"(and an RFF series without it) by the RBF MMD², in closed form on the Gaussian targets and to the HMC reference otherwise. "+
			"Which MMD² a dataset's series are read from: for a dataset whose reference is flagged in parameter space (R̂/ESS over the coordinates of the draws) "+
			"in any split, the function-space `fmmd2` (MMD² between the distributions of the network's predictions at the first %d test inputs, RBF kernel, "+
			"unchanged by hidden-unit permutations) when its cells record it and the reference is flagged on those predictions in no split; the series are then counted. "+
			"Otherwise the parameter-space `mmd2`. The reason: the hidden-unit permutations of a BNN posterior leave a parameter-space reference unconverged "+
			"whatever its length (its chains sit in permuted copies of the modes), so an MMD² in parameter space against it measures the labelling of units as "+
			"much as the approximation, while the predictions, which the permutations leave unchanged, can be converged. "+
			"Series measured against a reference flagged in the space they are measured in (see the diagnostics) are listed and do not count. The claim rests on the paper's algorithm, whose LMO follows an approximate direction "+
			"(the Stein-type estimate of ∇μ_p, `direction` self or frozen); series with the exact LMO direction "+
			"(`direction = \"exact\"`) are a control of Frank-Wolfe's own rate and do not count. The counted series are grouped by weight rule and kernel; "+
			"a group is supported when every series of it is linear. The claim is supported when every counted series is linear, and the table below "+
			"gives the verdict of each weight rule and kernel: Frank-Wolfe theory promises a linear rate for the line-search and BQ weights, not for "+
			"equal or Stein weights. No budget enters this claim (the axis is the particle count), so both protocols judge the same series.",
			ZeroFloor, MinRatePoints, MinDecades, MinDecades, KernelMMD2, FunctionInputs),
		Figures: []string{"fig1b", "fig2b", "fig2b-function", "rff"},
		Header: []string{"figure", "dataset", "series", "kernel", "weights", "LMO direction", "MMD² in", "N range",
			"geometric rate r per particle", "geometric R²", "power-law exponent c", "power-law R²", "decades", "linear", "counted"},
	}
	pass, total := 0, 0
	cpass, ctotal := 0, 0
	listed := 0
	var groups []*rateGroup
	group := func(w, k string) *rateGroup {
		for _, g := range groups {
			if g.weights == w && g.kernel == k {
				return g
			}
		}
		g := &rateGroup{weights: w, kernel: k}
		groups = append(groups, g)
		return g
	}
	for _, id := range []string{"fig1b", "fig2b", "rff"} {
		cells := res.reported(id)
		for _, ds := range Datasets(Done(cells)) {
			base := "mmd2"
			if id == "rff" {
				base = rateMetric(cells, ds)
			}
			rff := map[string]bool{}
			dir := map[string]string{}
			wr := map[string]string{}
			for _, cl := range cells {
				rff[cl.Prov.Method] = IsRFF(cl)
				dir[cl.Prov.Method] = LMODirection(cl)
				wr[cl.Prov.Method] = weightRule(cl)
			}
			flagged, nsplits := flaggedSplits(cells, ds)
			inFunction := ""
			if base == "mmd2" && flagged > 0 && HasMetric(cellsOf(cells, ds), "fmmd2") {
				if pf, pt := predFlaggedSplits(cells, ds); pt > 0 && pf == 0 {
					base = "fmmd2"
					inFunction = fmt.Sprintf("RBF kernel on predictions at %d test inputs, to the reference (flagged in parameter space in %d of %d splits, on predictions in none)",
						FunctionInputs, flagged, nsplits)
				}
			}
			series, metric := OwnKernelSeries(cells, ds, base)
			// The paper's direction first, then the exact-direction control.
			var controls [][]string
			for _, s := range series {
				if !IsMMDFW(s.Kind) {
					continue
				}
				rt := TestRate(&s)
				g := rt.Geometric
				if g.N < MinRatePoints || !finite(g.Slope) {
					continue
				}
				kern := "RBF"
				if rff[s.Method] {
					kern = "RFF"
				}
				direction := "approximate (" + dir[s.Method] + ")"
				counted := "yes"
				onFlagged := base == "mmd2" && metric[s.Name] != KernelMMD2 && flagged > 0
				switch {
				case dir[s.Method] == "exact":
					direction = "exact (control)"
					counted = "no (control)"
					ctotal++
					if rt.Linear {
						cpass++
					}
				case onFlagged:
					counted = "no (flagged reference)"
					listed++
					group(wr[s.Method], kern).listed++
				default:
					total++
					gr := group(wr[s.Method], kern)
					gr.total++
					if rt.Linear {
						pass++
						gr.pass++
					}
				}
				in := "RBF kernel, " + map[string]string{"mmd2_exact": "exact", "mmd2": mmdSource(cells, ds)}[base]
				if base == "fmmd2" {
					in = inFunction
				}
				if metric[s.Name] == KernelMMD2 {
					in = ownKernelNote + " (`" + KernelMMD2 + "`)"
				}
				row := []string{id, DatasetLabel(cells, ds), s.Name, kern, wr[s.Method], direction, in,
					fmt.Sprintf("%g–%g", g.XMin, g.XMax), fmt.Sprintf("%.4g", -g.Slope), fmt.Sprintf("%.4f", g.R2),
					fmt.Sprintf("%.4g", rt.Power.Slope), fmt.Sprintf("%.4f", rt.Power.R2), fmt.Sprintf("%.3g", rt.Decades), yesNo(rt.Linear), counted}
				if dir[s.Method] == "exact" {
					controls = append(controls, row)
				} else {
					c.Rows = append(c.Rows, row)
				}
			}
			c.Rows = append(c.Rows, controls...)
		}
	}
	why := fmt.Sprintf("%d of %d counted MMD-FW series with the paper's approximate LMO direction are linear by the rule.", pass, total)
	if listed > 0 {
		why += fmt.Sprintf(" %d measured against a flagged reference are listed, not counted.", listed)
	}
	if ctotal > 0 {
		why += fmt.Sprintf(" With the exact LMO direction (control, not counted): %d of %d.", cpass, ctotal)
	}
	// One rule for both protocols: the series are the same runs.
	c.settle(every, tally{pass, total, why}, tally{pass, total, why}, "")
	if len(groups) > 0 {
		t := ClaimTable{Title: "By weight rule and kernel", Header: []string{"weights", "kernel", "linear / counted", "listed (flagged reference)", "verdict"}}
		for _, g := range groups {
			t.Rows = append(t.Rows, []string{g.weights, g.kernel, fmt.Sprintf("%d / %d", g.pass, g.total), fmt.Sprint(g.listed), string(every(g.pass, g.total))})
		}
		c.Tables = append(c.Tables, t)
	}
	return c
}

// mmdSource says what the RBF "mmd2" of a dataset is measured against:
// the closed form on a Gaussian target, the reference sample otherwise.
func mmdSource(cells []*Cell, ds string) string {
	if exactReference(cells, ds) {
		return "exact"
	}
	if f, n := flaggedSplits(cells, ds); f > 0 {
		return fmt.Sprintf("to the reference (flagged in %d of %d splits)", f, n)
	}
	return "to the reference"
}

// flaggedSplits counts the splits of ds whose reference, as the done cells
// record it, is flagged, and the splits with a recorded reference.
func flaggedSplits(cells []*Cell, ds string) (flagged, total int) {
	seen := map[int]bool{}
	for _, c := range Done(cells) {
		if c.Prov.Dataset != ds {
			continue
		}
		m, ok := refSummary(c)
		if !ok {
			continue
		}
		var f bool
		for k, v := range m {
			if normKey(k) == "flagged" {
				f, _ = v.(bool)
			}
		}
		if prev, ok := seen[c.Prov.Split]; !ok || (f && !prev) {
			seen[c.Prov.Split] = f
		}
	}
	for _, f := range seen {
		total++
		if f {
			flagged++
		}
	}
	return flagged, total
}

func claim3(res *Results) Claim {
	c := Claim{Number: 3,
		Text: "At an equal particle count SVGD reaches a smaller MMD² than MMD-FW (Fig. 1b).",
		Rule: "At every particle count N where fig1b has both SVGD and MMD-FW with the RBF kernel, compare their MMD² to the HMC reference " +
			"(geometric mean over splits). Paper's protocol: the paper's MMD-FW arm against the paper's SVGD arm; supported when SVGD's is " +
			"smaller at more than half of those N. Fair protocol: the fair MMD-FW arm against every SVGD arm of the fair protocol (reference and tuned); supported when SVGD's is smaller in more " +
			"than half of the (arm, N) comparisons. The last column says which protocols count a row." + oneMethod,
		Figures: []string{"fig1b"},
		Header:  []string{"dataset", "SVGD arm", "N", "SVGD MMD²", "MMD-FW MMD²", "SVGD smaller", "MMD-FW arm", "protocols"},
	}
	cells := res.reported("fig1b")
	var rows protoRows
	count := func(proto string) (pass, total int) {
		for _, ds := range Datasets(Done(cells)) {
			series := ParticleSeries(cells, ds, "mmd2")
			fw := named(series, res.arm("fig1b", proto, cells, IsMMDFW))
			if fw == nil {
				continue
			}
			for _, m := range res.svgdArmNames("fig1b", proto, cells) {
				sv := named(series, m)
				if sv == nil {
					continue
				}
				for i, n := range sv.X {
					fv, ok := fw.At(n)
					if !ok {
						continue
					}
					a, b := geoMean(sv.Vals[i]), geoMean(fv)
					if !finite(a) || !finite(b) {
						continue
					}
					total++
					if a < b {
						pass++
					}
					rows.add(proto, []string{DatasetLabel(cells, ds), sv.Name, fmt.Sprint(n), fmt.Sprintf("%.4g", a), fmt.Sprintf("%.4g", b), yesNo(a < b), fw.Name})
				}
			}
		}
		return pass, total
	}
	pp, pt := count(paper)
	fp, ft := count(fair)
	c.Rows = rows.rows
	c.settle(majority,
		tally{pp, pt, fmt.Sprintf("The paper's SVGD arm had the smaller MMD² at %d of %d particle counts.", pp, pt)},
		tally{fp, ft, fmt.Sprintf("SVGD had the smaller MMD² in %d of %d comparisons over its arms and particle counts.", fp, ft)},
		"The arms decide the difference: the SVGD arms' MMD² (reference and tuned), or the two protocols' MMD-FW arms, fall on different sides of each other.")
	return c
}

// geoMean is the geometric mean of the positive values of v (NaN when none).
func geoMean(v []float64) float64 {
	var l []float64
	for _, x := range v {
		if x > 0 && finite(x) {
			l = append(l, math.Log(x))
		}
	}
	m, _ := MeanSD(l)
	return math.Exp(m)
}

func claim4(res *Results) Claim {
	c := Claim{Number: 4,
		Text: "SP does not work well in these dimensions (Fig. 1).",
		Rule: "fig1a: SP's final test accuracy (mean over splits) is below MMD-FW's and below SVGD's by more than the pooled sd of the two. " +
			"fig1b: SP's MMD² and, where recorded, its KSD² at its largest particle count are above MMD-FW's (RBF) and SVGD's at the same N (geometric means). " +
			"No budget enters these comparisons: each protocol compares its own arms of SP, MMD-FW and SVGD (one each), so the two verdicts differ only where " +
			"the files declare different arms for them. The last column says which protocols count a row. " +
			"Supported when SP is worse in every measured comparison." + oneMethod,
		Figures: []string{"fig1a", "fig1b"},
		Header:  []string{"figure", "dataset", "compared with", "SP", "other", "SP worse", "protocols"},
	}
	var rows protoRows
	var skip unranked
	judge := func(proto string) (pass, total int) {
		cells := res.reported("fig1a")
		higher, err := res.higherBetter("accuracy")
		if err != nil {
			skip.add(err)
			cells = nil
		}
		for _, ds := range Datasets(Done(cells)) {
			g := byMethod(cells, ds)
			var sp *Stat
			for _, m := range res.candidates("fig1a", proto, cells, IsSP) {
				if s, ok := finalStat(g[m], "accuracy"); ok {
					sp = &s
					break
				}
			}
			if sp == nil {
				continue
			}
			for _, is := range []func(string) bool{IsMMDFW, IsSVGD} {
				for _, m := range res.candidates("fig1a", proto, cells, is) {
					o, ok := finalStat(g[m], "accuracy")
					if !ok || !finite(o.Mean) || !finite(sp.Mean) {
						continue
					}
					total++
					worse := better(o.Mean, sp.Mean, PooledSD(o.SD, sp.SD), higher)
					if worse {
						pass++
					}
					rows.add(proto, []string{"fig1a", DatasetLabel(cells, ds), m + " (final accuracy)", FormatPM(sp.Mean, sp.SD), FormatPM(o.Mean, o.SD), yesNo(worse)})
					break
				}
			}
		}
		cells = res.reported("fig1b")
		for _, ds := range Datasets(Done(cells)) {
			for _, metric := range []string{"mmd2", "ksd2"} {
				higher, err := res.higherBetter(metric)
				if err != nil {
					skip.add(err)
					continue
				}
				pass, total = claim4Particles(res, &rows, proto, cells, ds, metric, higher, pass, total)
			}
		}
		return pass, total
	}
	pp, pt := judge(paper)
	fp, ft := judge(fair)
	c.Rows = rows.rows
	c.settle(every,
		tally{pp, pt, fmt.Sprintf("SP was worse in %d of %d comparisons.", pp, pt) + skip.note()},
		tally{fp, ft, fmt.Sprintf("SP was worse in %d of %d comparisons.", fp, ft) + skip.note()},
		"The arms decide the difference: the files declare different SP, MMD-FW or SVGD arms for the two protocols.")
	return c
}

// claim4Particles adds claim 4's comparisons under proto of SP's metric
// (MMD² or KSD², larger better when higher) at its largest particle count
// on one fig1b dataset.
func claim4Particles(res *Results, rows *protoRows, proto string, cells []*Cell, ds, metric string, higher bool, pass, total int) (int, int) {
	label := map[string]string{"mmd2": "MMD²", "ksd2": "KSD²"}[metric]
	series := ParticleSeries(cells, ds, metric)
	sp := res.pickArm("fig1b", proto, series, cells, IsSP)
	if sp == nil {
		return pass, total
	}
	n := sp.X[len(sp.X)-1]
	spv := geoMean(sp.Last())
	for _, is := range []func(string) bool{IsMMDFW, IsSVGD} {
		o := res.pickArm("fig1b", proto, series, cells, is)
		if o == nil {
			continue
		}
		ov, ok := o.At(n)
		if !ok || !finite(spv) || !finite(geoMean(ov)) {
			continue
		}
		total++
		worse := better(geoMean(ov), spv, 0, higher)
		if worse {
			pass++
		}
		rows.add(proto, []string{"fig1b", DatasetLabel(cells, ds), fmt.Sprintf("%s (%s at N=%g)", o.Name, label, n), fmt.Sprintf("%.4g", spv), fmt.Sprintf("%.4g", geoMean(ov)), yesNo(worse)})
	}
	return pass, total
}

func anyRFF(cells []*Cell) bool {
	for _, c := range cells {
		if IsRFF(c) {
			return true
		}
	}
	return false
}

func anyExactLMO(cells []*Cell) bool {
	for _, c := range cells {
		if IsExactLMO(c) {
			return true
		}
	}
	return false
}

func claim5(res *Results) Claim {
	c := Claim{Number: 5,
		Text: "On the regression sets MMD-FW is about as accurate as SVGD at the same time budget (Table 1).",
		Rule: fmt.Sprintf("For each Table 1 dataset with both methods, the one level rule of claims 1 and 5 on both metrics: MMD-FW is about as accurate when "+
			"its mean over splits reaches the SVGD arm's level, the SVGD mean m relaxed by δ = max(%g%% of |m|, SVGD's sd over splits): RMSE ≤ m + δ, test LL ≥ m − δ. "+
			"Paper's protocol: the same fixed wall-clock budget for both and their final snapshots, the paper's MMD-FW arm against the paper's SVGD arm; "+
			"from runs under gradient-evaluation budgets (WallClockStats) the budget on each split is the compute seconds the SVGD arm took for its reference "+
			"protocol (its last snapshot within 1× the reference budget), and MMD-FW reports its last snapshot within those seconds. Fair protocol: at 1× the SVGD reference budget of gradient evaluations, each method's snapshot chosen on "+
			"development RMSE, the fair MMD-FW arm against every SVGD arm of the fair protocol, reference and tuned (about as accurate when it holds against each). Supported when that holds on more than half of the "+
			"measured datasets.", 100*LevelFraction) + oneMethod,
		Figures: []string{"table1"},
		Header:  []string{"protocol", "dataset", "MMD-FW arm", "SVGD arm", "MMD-FW RMSE", "SVGD RMSE", "MMD-FW test LL", "SVGD test LL", "about as accurate"},
	}
	t := &Table{}
	if !res.Tuning("table1") {
		t = MakeTable(res, "table1")
	}
	cells := res.reported("table1")
	var skip unranked
	higher := map[string]bool{}
	for _, m := range []string{"rmse", "test_ll"} {
		h, err := res.higherBetter(m)
		if err != nil {
			skip.add(err)
		}
		higher[m] = h
	}
	judge := func(proto string, stats map[string]map[string]map[string]Stat) (pass, total int) {
		fw := res.arm("table1", proto, cells, IsMMDFW)
		arms := res.svgdArmNames("table1", proto, cells)
		if stats == nil || fw == "" || len(skip) > 0 {
			return 0, 0
		}
		for _, ds := range t.Datasets {
			measured, all := false, true
			for _, sv := range arms {
				a, b := stats[ds][fw], stats[ds][sv]
				ar, ok1 := a["rmse"]
				br, ok2 := b["rmse"]
				al, ok3 := a["test_ll"]
				bl, ok4 := b["test_ll"]
				if !ok1 || !ok2 || !ok3 || !ok4 {
					continue
				}
				measured = true
				ok := reaches(ar, br, higher["rmse"]) && reaches(al, bl, higher["test_ll"])
				all = all && ok
				c.Rows = append(c.Rows, []string{proto, t.Labels[ds], fw, sv, FormatPM(ar.Mean, ar.SD), FormatPM(br.Mean, br.SD), FormatPM(al.Mean, al.SD), FormatPM(bl.Mean, bl.SD), yesNo(ok)})
			}
			if measured {
				total++
				if all {
					pass++
				}
			}
		}
		return pass, total
	}
	var paperStats, fairStats map[string]map[string]map[string]Stat
	if t.AtBudget == nil {
		paperStats = t.Stats
	} else {
		fairStats = t.AtBudget["1x"]
		fw := res.arm("table1", paper, cells, IsMMDFW)
		if sv := res.svgdArmNames("table1", paper, cells); fw != "" && len(sv) > 0 {
			paperStats = WallClockStats(cells, t.Datasets, []string{"rmse", "test_ll"}, fw, sv[0])
		}
	}
	pp, pt := judge(paper, paperStats)
	fp, ft := judge(fair, fairStats)
	paperWhy := "Table 1 has no fixed wall-clock run to judge: not measured under the paper's protocol."
	if pt > 0 {
		budget := t.BudgetText()
		if t.AtBudget != nil {
			budget = "the seconds SVGD took for its reference protocol, per split"
		}
		paperWhy = fmt.Sprintf("At the final snapshot of the wall-clock budget (%s), MMD-FW was about as accurate as SVGD on %d of %d datasets.", budget, pp, pt)
	}
	fairWhy := "Table 1 has no gradient-evaluation budgets with development-row selection: not measured under the fair protocol."
	if ft > 0 {
		fairWhy = fmt.Sprintf("At 1× the reference budget (%s gradient evaluations), snapshots chosen on development RMSE, MMD-FW was about as accurate as every SVGD arm on %d of %d datasets.",
			gradText(t.BudgetGradEvals(BudgetLevels[1])), fp, ft)
	}
	c.settle(majority, tally{pp, pt, paperWhy + skip.note()}, tally{fp, ft, fairWhy + skip.note()},
		"The budget (wall-clock against gradient evaluations), the snapshot (final against chosen on development rows) and the SVGD arms compared decide the difference.")
	return c
}

// Markdown renders the claim's evidence tables.
func (c *Claim) Markdown() string {
	if len(c.Rows) == 0 {
		return "No results to measure this claim.\n"
	}
	var b strings.Builder
	mdTable(&b, c.Header, c.Rows)
	for _, t := range c.Tables {
		if len(t.Rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n*%s.*\n\n", t.Title)
		mdTable(&b, t.Header, t.Rows)
	}
	return b.String()
}

func mdTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// firstMethod returns the name of the first method in legend order whose
// kind satisfies is and that uses neither random features nor the exact LMO
// direction, or "" when there is none.
func firstMethod(cells []*Cell, is func(string) bool) string {
	names, kinds := methodOrder(cells)
	g := map[string][]*Cell{}
	for _, c := range cells {
		g[c.Prov.Method] = append(g[c.Prov.Method], c)
	}
	for _, m := range names {
		if is(kinds[m]) && !anyRFF(g[m]) && !anyExactLMO(g[m]) {
			return m
		}
	}
	return ""
}
