package paper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"

	"gonum.org/v1/gonum/stat/distuv"
)

// A verdict is a set of paired contrasts. A contrast compares two arms that
// should differ in one factor, the method, on the same splits: per split
// the difference of one measure (oriented so that a positive difference
// goes the way the claim says), over the splits its mean with a 95 %
// paired-t interval and a sign test beside it. The interval, read against
// a tolerance band stated with the contrast, gives one of three outcomes.

// Outcome is the result of one contrast, read the way its claim states it.
type Outcome string

// Outcomes of a contrast.
const (
	// Better: the contrast goes the claim's way beyond the tolerance band
	// (for claim 5, about as accurate: not worse beyond the band).
	Better Outcome = "better"
	// Worse: it goes against the claim beyond the band.
	Worse Outcome = "worse"
	// Inconclusive: the interval covers the band's edge that decides.
	Inconclusive Outcome = "inconclusive"
)

// CannotDecide is the verdict of a claim whose contrasts do not settle
// it: too few splits, intervals that cover the tolerance band, or arms
// that differ in more than the method.
const CannotDecide Verdict = "cannot decide"

// Confidence is the coverage of the paired-t interval of a contrast.
const Confidence = 0.95

// PairedStats summarises the paired differences d_s of one contrast over
// its splits.
type PairedStats struct {
	// N is the number of splits.
	N int
	// Mean and SD are the mean and sample sd of the differences.
	Mean, SD float64
	// Lo and Hi bound the 95 % paired-t interval of the mean,
	// Mean ± t_{0.975, N−1}·SD/√N (NaN with fewer than two splits).
	Lo, Hi float64
	// Pos and Neg count the positive and negative differences; SignP is the
	// two-sided exact sign-test p-value, 2·P(Bin(Pos+Neg, ½) ≤ min(Pos,
	// Neg)) capped at 1 (with 5 splits it is at least 0.0625).
	Pos, Neg int
	SignP    float64
}

// Paired returns the paired statistics of the differences d.
func Paired(d []float64) PairedStats {
	p := PairedStats{N: len(d), Lo: math.NaN(), Hi: math.NaN(), SignP: math.NaN()}
	p.Mean, p.SD = report.MeanSD(d)
	for _, v := range d {
		switch {
		case v > 0:
			p.Pos++
		case v < 0:
			p.Neg++
		}
	}
	p.SignP = SignTestP(p.Pos, p.Neg)
	if p.N >= 2 && report.Finite(p.Mean) && report.Finite(p.SD) {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(p.N - 1)}.Quantile(0.5 + Confidence/2)
		h := t * p.SD / math.Sqrt(float64(p.N))
		p.Lo, p.Hi = p.Mean-h, p.Mean+h
	}
	return p
}

// SignTestP is the two-sided exact sign test of pos positive and neg
// negative differences (ties left out): 2·P(Bin(pos+neg, ½) ≤ min(pos, neg)),
// at most 1; 1 when there is no difference.
func SignTestP(pos, neg int) float64 {
	m := pos + neg
	if m == 0 {
		return 1
	}
	k := min(pos, neg)
	var s float64
	c := 1.0 // C(m, 0)
	for i := 0; i <= k; i++ {
		if i > 0 {
			c = c * float64(m-i+1) / float64(i)
		}
		s += c
	}
	return math.Min(1, 2*s/math.Pow(2, float64(m)))
}

// Band is the tolerance band of a contrast: differences within ±Tau count
// for neither arm.
type Band struct {
	// Tau is the band's half-width in the units of the differences (the
	// natural log of a ratio when Ratio).
	Tau float64
	// Ratio says the differences are natural logs of ratios, shown as
	// ratios (a band of ±10 % is Tau = ln 1.1).
	Ratio bool
	// NonInferiority reads the claim "about as good": better when the
	// interval lies above −Tau, worse when below it. Otherwise the claim is
	// "better": better when the interval lies above +Tau, worse when it
	// lies below −Tau.
	NonInferiority bool
}

// Text says the band in words.
func (b Band) Text() string {
	var w string
	if b.Ratio {
		w = fmt.Sprintf("ratio within ×%.3g of 1", math.Exp(b.Tau))
	} else {
		w = fmt.Sprintf("difference within ±%.3g", b.Tau)
	}
	if b.NonInferiority {
		return "not worse than the band's edge, " + w
	}
	return w
}

// Outcome reads an interval against the band. Without an interval (fewer
// than two splits) the outcome is inconclusive.
func (b Band) Outcome(p PairedStats) Outcome {
	if !report.Finite(p.Lo) || !report.Finite(p.Hi) {
		return Inconclusive
	}
	if b.NonInferiority {
		switch {
		case p.Lo > -b.Tau:
			return Better
		case p.Hi < -b.Tau:
			return Worse
		}
		return Inconclusive
	}
	switch {
	case p.Lo > b.Tau:
		return Better
	case p.Hi < -b.Tau:
		return Worse
	}
	return Inconclusive
}

// ArmInfo is one arm of a contrast: a method of an experiment on one
// dataset, with what the report states about it.
type ArmInfo struct {
	// Method and Kind name the method.
	Method, Kind string
	// Start is the first particle or particles the arm starts from, in
	// words; StartClass the class contrasts match starts by (the MAP, a
	// model init draw, a trained network, prior draws, SP's own search).
	Start, StartClass string
	// Timing is the run setting of its timed cells (jobs, threads, host),
	// "" when untimed.
	Timing string
	// SecPerKGrad is the mean over its cells of compute seconds per
	// thousand per-datapoint gradient evaluations (NaN when unknown).
	SecPerKGrad float64
	// Budget and Rows are the cells' budget and evaluation rows as the
	// cache key records them, for matching.
	Budget, Rows string
}

// Label is the arm with its start: "mmdfw (MAP)".
func (a ArmInfo) Label() string {
	if a.Start == "" {
		return a.Method
	}
	return fmt.Sprintf("%s (%s)", a.Method, a.Start)
}

// Contrast is one paired comparison of arm A (the arm the claim speaks
// for) with arm B.
type Contrast struct {
	// Claim is the id of the declared claim the contrast belongs to
	// (ClaimSpec.ID; "" for a contrast of no claim, as a start gain).
	Claim string
	// Figure is the experiment id, DS the dataset and Dataset its label,
	// What the measure compared ("cost to the RMSE level", "MMD² at N =
	// 50"), Key a short name of the contrast for the verdict table.
	Figure, DS, Dataset, What, Key string
	// Axis is the cost axis of the measure: "gradient evaluations",
	// "seconds" or "particles".
	Axis string
	// A and B are the arms.
	A, B ArmInfo
	// Splits are the splits paired; D the oriented differences (positive:
	// the claim's way), AVal and BVal each arm's value per split, as
	// shown.
	Splits     []int
	D          []float64
	AVal, BVal []float64
	// Stats are the paired statistics of D.
	Stats PairedStats
	// Band is the tolerance band; Outcome the interval read against it.
	Band    Band
	Outcome Outcome
	// Confounds name the factors besides the method in which A and B
	// differ ("start: MAP vs prior draws"): a confounded contrast is shown
	// and not counted.
	Confounds []string
	// Skip says why the contrast could not be computed ("" when it was).
	Skip string
	// Notes qualify the contrast (diverged splits left out, levels never
	// reached, the snapshot rule that applied).
	Notes []string
	// Bound is set when some differences are bounds, not values (an arm
	// that never reached claim 1's level is given its whole run's cost).
	Bound bool
	// Excluded says, per split (parallel to D), why that split takes no
	// part in the pooled estimate of its claim ("" when it does): decided
	// by the start, a bound that cannot decide, a flagged run. Nil when
	// no split is excluded.
	Excluded []string

	// metric is the metric compared (claim 5's contrasts).
	metric string
	// levels are claim 1's levels per split; aCost and bCost each arm's
	// cost per split on both axes (to the level, or of the snapshot read).
	levels       []float64
	aCost, bCost []cost
	// aNever and bNever count the splits on which arm A (B) never reached
	// claim 1's level; aCheap and bCheap those of them on which its whole
	// run cost less than the other arm's cost to the level (a bound that
	// decides nothing).
	aNever, bNever, aCheap, bCheap int
}

// exclude marks the split at index i of c's differences as excluded from
// the pooled estimate for reason (the first reason given stays).
func (c *Contrast) exclude(i int, reason string) {
	for len(c.Excluded) < len(c.D) {
		c.Excluded = append(c.Excluded, "")
	}
	if c.Excluded[i] == "" {
		c.Excluded[i] = reason
	}
}

// ExcludedAt is the reason split index i of c is excluded ("" when kept).
func (c *Contrast) ExcludedAt(i int) string {
	if i < len(c.Excluded) {
		return c.Excluded[i]
	}
	return ""
}

// reband reads c against band b in place of its own.
func (c *Contrast) reband(b Band) {
	c.Band = b
	if c.Skip != "" || len(c.D) == 0 {
		return
	}
	c.Outcome = b.Outcome(c.Stats)
	c.censor(c.aNever, c.bNever)
}

// costText is the mean over splits of arm A's (a) or B's cost on both
// axes: "2e+05; 1.3 s".
func (c *Contrast) costText(a bool) string {
	k := c.bCost
	if a {
		k = c.aCost
	}
	if len(k) == 0 {
		return "–"
	}
	var g, s []float64
	for _, x := range k {
		g, s = append(g, x.grads), append(s, x.secs)
	}
	return fmt.Sprintf("%s; %s s", report.FormatG(meanOf(g)), report.FormatG(meanOf(s)))
}

// Counted reports whether the contrast counts towards its claim's verdict:
// computed, and its arms differ in the method only.
func (c *Contrast) Counted() bool { return c.Skip == "" && len(c.Confounds) == 0 }

// AcrossStarts reports whether the arms of c start from different start
// classes: such a contrast is shown and takes no part in the verdict.
func (c *Contrast) AcrossStarts() bool { return c.A.StartClass != c.B.StartClass }

// finish computes the statistics and outcome of c from its differences,
// and marks it not computable when no split remains.
func (c *Contrast) finish() {
	if len(c.D) == 0 {
		if c.Skip == "" {
			c.Skip = "no split with both arms"
		}
		return
	}
	c.Stats = Paired(c.D)
	c.Outcome = c.Band.Outcome(c.Stats)
	if c.Stats.N < 2 {
		c.Notes = append(c.Notes, "one split: no interval")
	}
}

// OutcomeText is the contrast's outcome as a table cell: the outcome, or
// why it is not counted.
func (c *Contrast) OutcomeText() string {
	switch {
	case c.Skip != "":
		return "not computable: " + c.Skip
	case len(c.Confounds) > 0:
		return fmt.Sprintf("%s, not counted (confounded: %s)", c.Outcome, strings.Join(c.Confounds, "; "))
	}
	return string(c.Outcome)
}

// IntervalText is the mean and 95 % interval of the differences as a
// table cell: ratios for a ratio band ("1.23 [1.05, 1.44]"), signed
// differences otherwise.
func (c *Contrast) IntervalText() string {
	if c.Skip != "" || c.Stats.N == 0 {
		return "–"
	}
	f := func(v float64) string {
		if c.Band.Ratio {
			return fmtRatio(math.Exp(v))
		}
		return fmt.Sprintf("%+.3g", v)
	}
	b := ""
	if c.Bound {
		b = " (a bound)"
	}
	if !report.Finite(c.Stats.Lo) {
		return f(c.Stats.Mean) + " [–]" + b
	}
	return fmt.Sprintf("%s [%s, %s]%s", f(c.Stats.Mean), f(c.Stats.Lo), f(c.Stats.Hi), b)
}

// SignText is the sign test as a table cell: "5+ 0− (p 0.062)".
func (c *Contrast) SignText() string {
	if c.Skip != "" || c.Stats.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%d+ %d− (p %.2g)", c.Stats.Pos, c.Stats.Neg, c.Stats.SignP)
}

// fmtRatio formats a ratio with three significant digits, in plain
// notation from 0.001 to 10⁴.
func fmtRatio(v float64) string {
	if !report.Finite(v) {
		return "–"
	}
	if v >= 1e-3 && v < 1e4 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2e", v)
}

// Tally counts the contrasts of one verdict by outcome.
type Tally struct {
	// Better, Worse and Inconclusive count the counted contrasts.
	Better, Worse, Inconclusive int
	// Confounded counts the contrasts whose arms differ in more than the
	// method (shown, not counted); Factors the factors they differ in.
	Confounded int
	Factors    []string
	// AcrossStarts counts the confounded contrasts whose arms start from
	// different start classes: they take no part in the verdict at all.
	AcrossStarts int
	// NotComputable counts the contrasts that could not be computed.
	NotComputable int
	// MaxSplits is the most splits any computed contrast pairs.
	MaxSplits int
}

// Measured is the number of computed contrasts, counted or confounded.
func (t Tally) Measured() int { return t.Better + t.Worse + t.Inconclusive + t.Confounded }

// Counted is the number of contrasts that count.
func (t Tally) Counted() int { return t.Better + t.Worse + t.Inconclusive }

// tallyOf counts cs.
func tallyOf(cs []Contrast) Tally {
	var t Tally
	for i := range cs {
		c := &cs[i]
		if c.Skip != "" {
			t.NotComputable++
			continue
		}
		t.MaxSplits = max(t.MaxSplits, c.Stats.N)
		if len(c.Confounds) > 0 {
			t.Confounded++
			if c.AcrossStarts() {
				t.AcrossStarts++
			}
			for _, f := range c.Confounds {
				name, _, _ := strings.Cut(f, ":")
				if !slices.Contains(t.Factors, name) {
					t.Factors = append(t.Factors, name)
				}
			}
			continue
		}
		switch c.Outcome {
		case Better:
			t.Better++
		case Worse:
			t.Worse++
		default:
			t.Inconclusive++
		}
	}
	return t
}

// Decide is the verdict rule of every claim on its contrasts. Not measured
// without a computed contrast; cannot decide when no contrast pairs two
// splits (one split decides nothing); not supported when a counted
// contrast is worse; supported when more than half of the computed
// contrasts between arms of the same start (counted, or confounded by the
// budget, rows or timing) are better; otherwise cannot decide, because the
// arms differ in more than the method or the intervals cover the
// tolerance band. Contrasts across starts take no part: they are shown
// beside the same-start ones, and when every contrast is across starts
// the evidence cannot decide. The sentence says which.
func (t Tally) Decide() (Verdict, string) {
	m := t.Measured()
	same := m - t.AcrossStarts
	across := ""
	if t.AcrossStarts > 0 && same > 0 {
		across = fmt.Sprintf("; %d across starts shown, not counted", t.AcrossStarts)
	}
	switch {
	case m == 0:
		return NotMeasured, "no contrast could be computed"
	case t.MaxSplits < 2:
		return CannotDecide, "one split per contrast: no interval, so the numbers decide nothing"
	case t.Worse > 0:
		return NotSupported, fmt.Sprintf("%d of %d counted contrasts %s against the claim%s", t.Worse, t.Counted(), verb(t.Worse, "goes", "go"), across)
	case same > 0 && 2*t.Better > same:
		return Supported, fmt.Sprintf("%d of %d contrasts %s the claim's way, none against it%s", t.Better, same, verb(t.Better, "goes", "go"), across)
	case t.Counted() == 0 || 2*(t.Confounded-t.AcrossStarts) >= same:
		return CannotDecide, fmt.Sprintf("the arms differ in %s in %d of %d contrasts", strings.Join(t.Factors, " and "), t.Confounded, m)
	}
	return CannotDecide, fmt.Sprintf("%d of %d counted contrasts %s inconclusive (their intervals cover the tolerance band)%s", t.Inconclusive, t.Counted(), verb(t.Inconclusive, "is", "are"), across)
}

// verb is one for a count of 1, many otherwise.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CountsText is the tally as a sentence fragment: "3 better, 0 worse, 1
// inconclusive, 20 confounded (not counted)".
func (t Tally) CountsText() string {
	s := fmt.Sprintf("%d better, %d worse, %d inconclusive", t.Better, t.Worse, t.Inconclusive)
	if t.Confounded > 0 {
		s += fmt.Sprintf(", %d confounded (not counted)", t.Confounded)
	}
	if t.NotComputable > 0 {
		s += fmt.Sprintf(", %d not computable", t.NotComputable)
	}
	return s
}
