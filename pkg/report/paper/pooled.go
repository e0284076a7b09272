package paper

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"

	"gonum.org/v1/gonum/stat/distuv"
)

// One pooled estimate per claim and protocol. Each counted contrast of a
// claim (a data set, a pair of arms, a metric and statistic) is a stratum:
// its splits' differences d, oriented so that a positive value goes the
// claim's way (ln(comparator/under test) for a "lower" ratio claim). The
// pooled estimate is the mean over strata of the stratum means,
//
//	θ̂ = (1/S) Σ_s (1/n_s) Σ_i d_si,
//
// and its 95 % interval the percentiles 2.5 and 97.5 of θ̂ over
// BootstrapResamples stratified bootstrap resamples (each stratum's splits
// drawn with replacement within the stratum, a seeded generator: the same
// results give the same interval). P(improvement) is the share of
// resamples with θ̂* > 0, beyond the no-effect line the claim's way. The
// verdict reads the interval against the declared margin m (on the
// contrasts' scale):
//
//   - superiority: supported when the 95 % interval lies above +m,
//     contradicted when it lies below −m, otherwise undecided;
//   - non-inferiority: supported above −m, contradicted below −m;
//   - equivalence (two one-sided tests): supported ("equivalent") when the
//     90 % interval (percentiles 5 and 95) lies inside (−m, m),
//     contradicted when the 95 % interval lies wholly outside [−m, m],
//     otherwise undecided.
//
// Per data set the same test is run on the stratum's paired-t statistic
// (one-sided p-values; the larger of the two for equivalence), and the
// p-values are Holm-adjusted across the claim's strata.

// BootstrapResamples is the number of stratified bootstrap resamples of a
// pooled estimate.
const BootstrapResamples = 10000

// BootstrapSeed seeds the resampling of every pooled estimate (with the
// claim's id and protocol hashed in).
const BootstrapSeed = 2026

// Pooled verdicts.
const (
	VerdictSupported    = "supported"
	VerdictContradicted = "contradicted"
	VerdictUndecided    = "undecided"
	VerdictUnmeasured   = "unmeasured"
)

// Alpha is the level of the per-data-set tests (Holm-adjusted).
const Alpha = 0.05

// DatasetContrast is one stratum of a pooled estimate: a data set's paired
// contrast over its splits, on the claim's display scale (a ratio for a
// ratio claim).
type DatasetContrast struct {
	// Label names the data set, the arms and the measure.
	Label string
	// Est is the mean over the kept splits, [Lo, Hi] its 95 % paired-t
	// interval (NaN with fewer than two splits).
	Est, Lo, Hi float64
	// N is the number of splits kept.
	N int
	// PHolm is the Holm-adjusted p-value of the claim's test on this data
	// set; Verdict "supported" when it is below Alpha, else "undecided".
	PHolm   float64
	Verdict string
	// Excluded says why the whole stratum takes no part ("" when it does).
	Excluded string
}

// Exclusion is a contrast, or some of its splits, left out of a pooled
// estimate, with the reason.
type Exclusion struct {
	// Label names the contrast; Splits the splits left out (none when the
	// whole contrast is).
	Label  string
	Splits []int
	Reason string
}

// Text says the exclusion in one line.
func (e Exclusion) Text() string {
	if len(e.Splits) == 0 {
		return e.Label + ": " + e.Reason
	}
	return fmt.Sprintf("%s, %s %s: %s", e.Label, plural(len(e.Splits), "split", "splits"), joinInts(e.Splits), e.Reason)
}

// ClaimResult is the pooled estimate of one declared claim under one
// protocol.
type ClaimResult struct {
	// ID, Section and Statement are the claim's; Protocol "paper" or
	// "fair"; Test its test.
	ID        string
	Section   int
	Statement string
	Protocol  string
	Test      string
	// Estimate is the pooled estimate and [Lo, Hi] its 95 % stratified
	// bootstrap interval, on the display Scale: "ratio" (exp of the mean
	// log ratio: above 1 goes the claim's way), "difference" (positive
	// goes the claim's way) or "share" (claim 2: the share of counted
	// series that pass).
	Estimate, Lo, Hi float64
	Scale            string
	// Lo90 and Hi90 bound the 90 % interval (the two one-sided tests of
	// an equivalence claim).
	Lo90, Hi90 float64
	// PImprove is the probability of improvement, as rliable defines it
	// for paired runs: per data set the share of its splits on which the
	// arm under test does better than the comparator (a tie counts ½),
	// averaged over the data sets; [PImproveLo, PImproveHi] is its 95 %
	// stratified bootstrap interval (the same resampling as the estimate).
	// NaN for a share.
	PImprove, PImproveLo, PImproveHi float64
	// Verdict is one word: supported, contradicted, undecided or
	// unmeasured; Why says it in a sentence.
	Verdict, Why string
	// PerDataset are the strata, counted and excluded.
	PerDataset []DatasetContrast
	// Margin is the margin band on the display scale: [1/m, m] for a
	// ratio, [−m, m] for a difference.
	Margin [2]float64
	// Excluded are the contrasts and splits left out, with the reasons.
	Excluded []Exclusion
	// Splits is the most splits any stratum keeps.
	Splits int
}

// stratum is one counted contrast's kept differences.
type stratum struct {
	label string
	d     []float64
}

// orient returns the difference of one split on the claim's scale,
// positive the claim's way: under-test value a, comparator value b.
func (s *ClaimSpec) orient(a, b float64) float64 {
	if s.Scale == ScaleRatio {
		if s.Direction == "lower" {
			return math.Log(b / a)
		}
		return math.Log(a / b)
	}
	if s.Direction == "lower" {
		return b - a
	}
	return a - b
}

// display maps a value on the contrasts' scale to the display scale.
func (s *ClaimSpec) display(v float64) float64 {
	if s.Scale == ScaleRatio {
		return math.Exp(v)
	}
	return v
}

// contrastLabel names a contrast as a row of a per-data-set table.
func contrastLabel(c *Contrast) string {
	l := fmt.Sprintf("%s %s: %s vs %s", c.Figure, c.Dataset, c.A.Method, c.B.Method)
	if c.What != "" {
		l += ", " + c.What
	}
	return l
}

// pool computes the pooled estimate of spec under protocol proto from the
// contrasts cs (those of other claims are ignored).
func pool(spec *ClaimSpec, proto string, cs []Contrast) ClaimResult {
	r := ClaimResult{ID: spec.ID, Section: spec.Section, Statement: spec.Statement, Protocol: proto, Test: spec.Test, Scale: spec.Scale,
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Lo90: math.NaN(), Hi90: math.NaN(), PImprove: math.NaN(), PImproveLo: math.NaN(), PImproveHi: math.NaN()}
	m := spec.LogMargin()
	if spec.Scale == ScaleRatio {
		r.Margin = [2]float64{math.Exp(-m), math.Exp(m)}
	} else {
		r.Margin = [2]float64{-m, m}
	}
	var strata []stratum
	var counted []int // index into r.PerDataset of each stratum
	for i := range cs {
		c := &cs[i]
		if c.Claim != spec.ID {
			continue
		}
		label := contrastLabel(c)
		switch {
		case c.Skip != "":
			r.Excluded = append(r.Excluded, Exclusion{Label: label, Reason: ExclNotComputable + ": " + c.Skip})
			r.PerDataset = append(r.PerDataset, DatasetContrast{Label: label, Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), PHolm: math.NaN(), Excluded: ExclNotComputable})
			continue
		case len(c.Confounds) > 0:
			r.Excluded = append(r.Excluded, Exclusion{Label: label, Reason: ExclConfounded + ": " + strings.Join(c.Confounds, "; ")})
			r.PerDataset = append(r.PerDataset, DatasetContrast{Label: label, Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), PHolm: math.NaN(), N: len(c.D), Excluded: ExclConfounded})
			continue
		}
		var d []float64
		byReason := map[string][]int{}
		var reasons []string
		for j := range c.D {
			if why := c.ExcludedAt(j); why != "" {
				if byReason[why] == nil {
					reasons = append(reasons, why)
				}
				byReason[why] = append(byReason[why], c.Splits[j])
				continue
			}
			v := spec.orient(c.AVal[j], c.BVal[j])
			if report.Finite(v) {
				d = append(d, v)
			}
		}
		for _, why := range reasons {
			r.Excluded = append(r.Excluded, Exclusion{Label: label, Splits: byReason[why], Reason: why})
		}
		dc := DatasetContrast{Label: label, Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), PHolm: math.NaN(), N: len(d)}
		if len(d) == 0 {
			dc.Excluded = "every split excluded"
			r.PerDataset = append(r.PerDataset, dc)
			continue
		}
		p := Paired(d)
		dc.Est, dc.Lo, dc.Hi = spec.display(p.Mean), spec.display(p.Lo), spec.display(p.Hi)
		r.PerDataset = append(r.PerDataset, dc)
		strata = append(strata, stratum{label: label, d: d})
		counted = append(counted, len(r.PerDataset)-1)
		r.Splits = max(r.Splits, len(d))
	}
	// A data set with one kept split has no spread for the bootstrap to
	// resample: pooled beside data sets with several, it would narrow the
	// interval with a value that may be noise. When some data set keeps
	// two splits or more, those with one are left out, with the reason.
	if r.Splits >= 2 {
		keep, keptIdx := strata[:0:0], counted[:0:0]
		for i, st := range strata {
			if len(st.d) >= 2 {
				keep, keptIdx = append(keep, st), append(keptIdx, counted[i])
				continue
			}
			dc := &r.PerDataset[counted[i]]
			dc.Excluded = ExclOneSplit
			r.Excluded = append(r.Excluded, Exclusion{Label: st.label, Reason: ExclOneSplit})
		}
		strata, counted = keep, keptIdx
	}
	// Per data set: the claim's test on the paired-t statistic, Holm-
	// adjusted over the strata.
	ps, opp := make([]float64, len(strata)), make([]float64, len(strata))
	for i, s := range strata {
		ps[i], opp[i] = testP(spec.Test, m, s.d)
	}
	hopp := Holm(opp)
	for i, q := range Holm(ps) {
		dc := &r.PerDataset[counted[i]]
		dc.PHolm = q
		switch {
		case q < Alpha:
			dc.Verdict = VerdictSupported
		case hopp[i] < Alpha:
			dc.Verdict = VerdictContradicted
		default:
			dc.Verdict = VerdictUndecided
		}
	}
	if len(strata) == 0 {
		r.Verdict, r.Why = VerdictUnmeasured, fmt.Sprintf("every contrast is excluded (%d exclusions, listed below): nothing is left to pool", len(r.Excluded))
		if len(r.PerDataset) == 0 {
			r.Why = "no contrast could be computed"
		}
		return r
	}
	est, dist := StratifiedBootstrap(strata2d(strata), BootstrapResamples, seedOf(spec.ID, proto))
	r.Estimate = spec.display(est)
	q := func(p float64) float64 { return spec.display(quantile(dist, p)) }
	r.Lo, r.Hi, r.Lo90, r.Hi90 = q(0.025), q(0.975), q(0.05), q(0.95)
	r.PImprove, r.PImproveLo, r.PImproveHi = probImprove(strata, seedOf(spec.ID, proto))
	lo, hi, lo90, hi90 := quantile(dist, 0.025), quantile(dist, 0.975), quantile(dist, 0.05), quantile(dist, 0.95)
	r.Verdict, r.Why = decide(spec.Test, m, lo, hi, lo90, hi90)
	if r.Splits < 2 {
		r.Verdict, r.Why = VerdictUndecided, "one split per data set: the interval shows no spread, so it decides nothing"
	}
	return r
}

// decide is the verdict of a test with margin m (on the contrasts' scale)
// on the pooled 95 % interval [lo, hi] and 90 % interval [lo90, hi90].
func decide(test string, m, lo, hi, lo90, hi90 float64) (string, string) {
	switch test {
	case TestSuperiority:
		switch {
		case lo > m:
			return VerdictSupported, "the 95 % interval lies beyond the margin the claim's way"
		case hi < -m:
			return VerdictContradicted, "the 95 % interval lies beyond the margin against the claim"
		}
		return VerdictUndecided, "the 95 % interval reaches into the margin"
	case TestNonInferiority:
		switch {
		case lo > -m:
			return VerdictSupported, "the 95 % interval lies above the margin's lower edge"
		case hi < -m:
			return VerdictContradicted, "the 95 % interval lies below the margin's lower edge"
		}
		return VerdictUndecided, "the 95 % interval covers the margin's lower edge"
	case TestEquivalence:
		switch {
		case lo90 > -m && hi90 < m:
			return VerdictSupported, "equivalent: both one-sided 95 % bounds (the 90 % interval) lie inside the margin"
		case lo > m || hi < -m:
			return VerdictContradicted, "the 95 % interval lies wholly outside the margin"
		}
		return VerdictUndecided, "the 90 % interval reaches beyond the margin"
	}
	return VerdictUndecided, "no test"
}

// testP returns the one-sided paired-t p-values on the differences d of
// test with margin m (p) and of its opposite (opp, the claim contradicted):
// superiority H₀: μ ≤ m; non-inferiority H₀: μ ≤ −m, each with the
// opposite H₀: μ ≥ −m; equivalence the larger of H₀: μ ≤ −m and H₀: μ ≥ m,
// with the opposite twice the smaller of H₀: μ ≥ −m and H₀: μ ≤ m (either
// side, Bonferroni). NaN with fewer than two differences or no spread.
func testP(test string, m float64, d []float64) (p, opp float64) {
	n := len(d)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	mean, sd := report.MeanSD(d)
	se := sd / math.Sqrt(float64(n))
	if !(se > 0) {
		return math.NaN(), math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	above := func(edge float64) float64 { return 1 - t.CDF((mean-edge)/se) } // H₀: μ ≤ edge
	below := func(edge float64) float64 { return t.CDF((mean - edge) / se) } // H₀: μ ≥ edge
	switch test {
	case TestSuperiority:
		return above(m), below(-m)
	case TestNonInferiority:
		return above(-m), below(-m)
	case TestEquivalence:
		return math.Max(above(-m), below(m)), math.Min(1, 2*math.Min(below(-m), above(m)))
	}
	return math.NaN(), math.NaN()
}

// Holm returns the Holm-adjusted p-values of p, in p's order: sorted
// ascending, p₍ᵢ₎·(k − i + 1) (i from 1), made non-decreasing and capped
// at 1. A NaN stays NaN and takes no part.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	k := len(idx)
	run := 0.0
	for r, i := range idx {
		v := math.Min(1, p[i]*float64(k-r))
		run = math.Max(run, v)
		out[i] = run
	}
	return out
}

// strata2d returns the differences of each stratum.
func strata2d(s []stratum) [][]float64 {
	out := make([][]float64, len(s))
	for i := range s {
		out[i] = s[i].d
	}
	return out
}

// seedOf is the resampling seed of a claim under a protocol.
func seedOf(id, proto string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id + "\x00" + proto))
	return h.Sum64()
}

// StratifiedBootstrap returns the mean over strata of the stratum means
// of d, and its value on each of b resamples that draw each stratum's
// values with replacement within the stratum (a PCG generator seeded with
// BootstrapSeed and seed; the draws of a resample go stratum by stratum,
// value by value, each rand.IntN(n_s)). The resampled values come sorted.
func StratifiedBootstrap(d [][]float64, b int, seed uint64) (float64, []float64) {
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	var est float64
	for _, s := range d {
		est += mean(s)
	}
	est /= float64(len(d))
	rng := rand.New(rand.NewPCG(BootstrapSeed, seed))
	out := make([]float64, b)
	for k := range out {
		var tot float64
		for _, s := range d {
			var sum float64
			for range s {
				sum += s[rng.IntN(len(s))]
			}
			tot += sum / float64(len(s))
		}
		out[k] = tot / float64(len(d))
	}
	slices.Sort(out)
	return est, out
}

// probImprove returns the probability of improvement over the strata (the
// mean over strata of the share of positive differences, a zero counting
// ½) and its 95 % stratified bootstrap interval, resampled with seed as
// the estimate is.
func probImprove(strata []stratum, seed uint64) (p, lo, hi float64) {
	ind := make([][]float64, len(strata))
	for i, s := range strata {
		ind[i] = make([]float64, len(s.d))
		for j, v := range s.d {
			switch {
			case v > 0:
				ind[i][j] = 1
			case v == 0:
				ind[i][j] = 0.5
			}
		}
	}
	p, dist := StratifiedBootstrap(ind, BootstrapResamples, seed)
	return p, quantile(dist, 0.025), quantile(dist, 0.975)
}

// quantile is the p-quantile of the sorted values v, interpolated
// linearly between order statistics (type 7).
func quantile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	h := p * float64(len(v)-1)
	i := int(math.Floor(h))
	if i+1 >= len(v) {
		return v[len(v)-1]
	}
	return v[i] + (h-float64(i))*(v[i+1]-v[i])
}

// Evaluate computes the pooled estimate of every claim of specs under
// each of its protocols from res. The claims of one section that share
// their arms by role and read a protocol alike are computed in one pass
// (groupContrasts). A rate claim (StatRate) is claim 2's own code: its
// result is rateResult's.
//
// Any experiment of res can be pooled: the arm that stands for a kind
// under a protocol is the method its experiment file declares for that
// protocol (a method's protocols key), else the first method of the kind
// in legend order.
func Evaluate(res *report.Results, specs []ClaimSpec) []ClaimResult {
	type group struct {
		section int
		arms    string
		proto   ProtocolSpec
	}
	var out []ClaimResult
	done := map[group][]Contrast{}
	for i := range specs {
		s := &specs[i]
		for _, p := range s.Protocols {
			if slices.Contains(s.Statistics, StatRate) {
				out = append(out, rateResult(res, s, p.Name))
				continue
			}
			g := group{s.Section, fmt.Sprint(s.Arms), p}
			cs, ok := done[g]
			if !ok {
				var mine []*ClaimSpec
				for j := range specs {
					o := &specs[j]
					if q, ok := o.Protocol(p.Name); ok && q == p && o.Section == s.Section && fmt.Sprint(o.Arms) == g.arms && !slices.Contains(o.Statistics, StatRate) {
						mine = append(mine, o)
					}
				}
				cs = groupContrasts(res, mine, p.config())
				done[g] = cs
			}
			out = append(out, pool(s, p.Name, cs))
		}
	}
	return out
}

// ClaimResults returns the pooled estimates of the paper's declared
// claims (claims.toml) on res.
//
// On the quick profile (one split per data set) every result reads "one
// split: no verdict", a rate claim's included: its series are the quick
// profile's too.
func ClaimResults(res *report.Results) []ClaimResult {
	rs := Evaluate(res, paperSpecs)
	if quickProfile(res) {
		for i := range rs {
			rs[i].Splits = min(rs[i].Splits, 1)
		}
	}
	return rs
}

// Forest describes the forest plot of the result: a row per data set (an
// excluded one with its reason as the note), the pooled estimate as the
// diamond, the no-effect line and the margin band, the verdict in the
// title.
func (r *ClaimResult) Forest() report.Forest {
	f := report.Forest{
		Title:  fmt.Sprintf("Claim %s (%s protocol): %s — %s", r.ID, protocolWord(r.Protocol), r.Statement, r.VerdictText()),
		XLabel: r.axisLabel(),
		Log:    r.Scale == ScaleRatio,
		Band:   r.Margin,
	}
	if r.Scale == ScaleRatio {
		f.Null = 1
	}
	for _, d := range r.PerDataset {
		f.Rows = append(f.Rows, report.ForestRow{Label: d.Label, Est: d.Est, Lo: d.Lo, Hi: d.Hi, N: d.N, Note: d.Excluded})
	}
	if report.Finite(r.Estimate) {
		f.Pooled = &report.ForestRow{Label: "pooled", Est: r.Estimate, Lo: r.Lo, Hi: r.Hi, N: r.Splits}
	}
	return f
}

// ForestName is the file name (without extension) of the result's forest
// plot: "claim-1-fair".
func (r *ClaimResult) ForestName() string { return "claim-" + r.ID + "-" + r.Protocol }

// VerdictText is the verdict as the report prints it: the verdict, or
// "one split: no verdict" when no data set pairs two splits.
func (r *ClaimResult) VerdictText() string {
	if r.Splits < 2 && r.Verdict != VerdictUnmeasured {
		return noVerdict
	}
	return r.Verdict
}

// axisLabel says what the estimate measures.
func (r *ClaimResult) axisLabel() string {
	switch r.Scale {
	case ScaleRatio:
		return "ratio (above 1: the claim's way)"
	case ScaleShare:
		return "share of counted series that pass"
	}
	return "difference (positive: the claim's way)"
}

// protocolWord names a protocol in a sentence.
func protocolWord(p string) string {
	if p == paper {
		return "paper's"
	}
	return p
}

// rateResult is the result of a rate claim (claim 2's code, StatRate)
// under protocol proto: the share of counted MMD-FW series that are linear
// by the rate rule (the mean over data sets of each one's share), with a 95 % bootstrap interval stratified by data set
// (series resampled within each); the declared test "every" is supported
// when every counted series is linear, contradicted when one is not.
// Series excluded (a collapsed run, a capped or flagged reference, the
// exact-direction control) are listed with the reason. No budget enters
// the claim, so both protocols read the same series.
func rateResult(res *report.Results, spec *ClaimSpec, proto string) ClaimResult {
	r := ClaimResult{ID: spec.ID, Section: spec.Section, Statement: spec.Statement, Protocol: proto, Test: spec.Test, Scale: ScaleShare,
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Lo90: math.NaN(), Hi90: math.NaN(), PImprove: math.NaN(), PImproveLo: math.NaN(), PImproveHi: math.NaN(), Margin: [2]float64{1, 1}}
	// The pooled experiments, claim 2's first in its order, so that the
	// paper's series come as its claim 2 lists them.
	var ids []string
	for _, e := range Claim2Experiments {
		if slices.ContainsFunc(spec.Pool, func(p PoolEntry) bool { return p.Experiment == e }) {
			ids = append(ids, e)
		}
	}
	for _, p := range spec.Pool {
		if !slices.Contains(ids, p.Experiment) {
			ids = append(ids, p.Experiment)
		}
	}
	c := rateClaim(res, ids)
	var keys []string
	by := map[string][]float64{}
	for _, s := range c.series {
		if !slices.Contains(ids, s.figure) {
			continue
		}
		label := s.figure + " " + s.dataset
		if s.excluded != "" {
			r.Excluded = append(r.Excluded, Exclusion{Label: label + ": " + s.name, Reason: s.excluded})
			continue
		}
		if by[label] == nil {
			keys = append(keys, label)
		}
		v := 0.0
		if s.linear {
			v = 1
		}
		by[label] = append(by[label], v)
	}
	var d [][]float64
	pass, total := 0, 0
	for _, k := range keys {
		v := by[k]
		d = append(d, v)
		m := meanOf(v)
		for _, x := range v {
			pass += int(x)
		}
		total += len(v)
		r.PerDataset = append(r.PerDataset, DatasetContrast{Label: k, Est: m, Lo: math.NaN(), Hi: math.NaN(), N: len(v), PHolm: math.NaN(), Verdict: map[bool]string{true: VerdictSupported, false: VerdictContradicted}[m == 1]})
		r.Splits = max(r.Splits, len(v))
	}
	if total == 0 {
		r.Verdict, r.Why = VerdictUnmeasured, "no counted series"
		return r
	}
	est, dist := StratifiedBootstrap(d, BootstrapResamples, seedOf(spec.ID, proto))
	r.Estimate = est
	r.Lo, r.Hi, r.Lo90, r.Hi90 = quantile(dist, 0.025), quantile(dist, 0.975), quantile(dist, 0.05), quantile(dist, 0.95)
	if pass == total {
		r.Verdict, r.Why = VerdictSupported, fmt.Sprintf("every counted series (%d) is linear by the rate rule", total)
	} else {
		r.Verdict, r.Why = VerdictContradicted, fmt.Sprintf("%d of %d counted series are linear by the rate rule; the claim needs every one", pass, total)
	}
	return r
}
