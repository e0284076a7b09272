package paper

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// A claims file with a key the format does not know is refused, and the
// error names the file, the line and the key.
func TestParseClaimsBadKey(t *testing.T) {
	src := `[claim.x]
section = 1
statement = "A beats B"
statistic = "cost to level"
scale = "ratio"
direction = "lower"
test = "superiority"
margin = 1.1
pool = [{ experiment = "e", metric = "rmse" }]
[claim.x.arms]
under_test = "mmdfw"
comparator = "svgd"
[claim.x.protocols.fair]
cost = "gradient evaluations"
arms = "fair"
marginn = 2
`
	_, err := ParseClaims("my-claims.toml", []byte(src))
	var ce *harness.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want a *harness.ConfigError", err, err)
	}
	if ce.File != "my-claims.toml" || ce.Line != 16 || ce.Key != "claim.x.protocols.fair.marginn" {
		t.Errorf("error names file %q, line %d, key %q; want my-claims.toml, 16, claim.x.protocols.fair.marginn", ce.File, ce.Line, ce.Key)
	}
	for _, w := range []string{"my-claims.toml", "16", "marginn"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	// A value the format refuses is named likewise: a statement of 13
	// words on line 3.
	bad := strings.Replace(src, `"A beats B"`, `"one two three four five six seven eight nine ten eleven twelve thirteen"`, 1)
	bad = strings.Replace(bad, "marginn = 2\n", "", 1)
	_, err = ParseClaims("my-claims.toml", []byte(bad))
	if !errors.As(err, &ce) || ce.Line != 3 || ce.Key != "claim.x.statement" {
		t.Errorf("a 13-word statement: %v; want line 3, key claim.x.statement", err)
	}
	good := strings.Replace(src, "marginn = 2\n", "", 1)
	s, err := ParseClaims("my-claims.toml", []byte(good))
	if err != nil || len(s) != 1 || s[0].ID != "x" || len(s[0].Protocols) != 1 || s[0].Protocols[0].Name != fair {
		t.Errorf("a good file: %+v, %v", s, err)
	}
}

// The paper's claims file parses, and its margins are the bands the
// per-split contrasts were read with.
func TestPaperClaims(t *testing.T) {
	want := map[string]float64{"1": math.Log(CostBand), "3": math.Log(MMDBand), "4": math.Log(MMDBand), "4a": AccuracyBand, "5": math.Log(RMSEMargin), "5a": LLMargin}
	specs := PaperClaims()
	var sections []int
	for _, s := range specs {
		if !slices.Contains(sections, s.Section) {
			sections = append(sections, s.Section)
		}
		if m, ok := want[s.ID]; ok && !near(s.LogMargin(), m, 1e-12) {
			t.Errorf("claim %s: margin %g on the contrasts' scale, want %g", s.ID, s.LogMargin(), m)
		}
		if len(s.Protocols) != 2 {
			t.Errorf("claim %s: %d protocols, want paper and fair", s.ID, len(s.Protocols))
		}
	}
	if !slices.Equal(sections, []int{1, 2, 3, 4, 5}) {
		t.Errorf("sections %v, want the five claims", sections)
	}
}

// exactPooledCDF enumerates every stratified resample of d (each
// stratum's n values drawn with replacement: nⁿ equally likely draws) and
// returns the exact distribution of the mean over strata of the stratum
// means, as sorted values with their probabilities.
func exactPooledCDF(d [][]float64) (vals, probs []float64) {
	dist := map[float64]float64{0: 1}
	for _, s := range d {
		n := len(s)
		means := map[float64]float64{}
		total := int(math.Pow(float64(n), float64(n)))
		for k := 0; k < total; k++ {
			x := k
			sum := 0.0
			for range n {
				sum += s[x%n]
				x /= n
			}
			means[sum/float64(n)] += 1 / float64(total)
		}
		next := map[float64]float64{}
		for a, pa := range dist {
			for m, pm := range means {
				// Rounded, so that equal sums in another order are one atom.
				next[math.Round((a+m/float64(len(d)))*1e9)/1e9] += pa * pm
			}
		}
		dist = next
	}
	for v := range dist {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for _, v := range vals {
		probs = append(probs, dist[v])
	}
	return vals, probs
}

// The pooled estimate is the mean of the strata's means, and its
// bootstrap distribution matches the exact distribution of a stratified
// resample, enumerated by hand: strata {−1, 1} and {−0.5, 0.5, 2}
// (4 × 27 resamples). With 10,000 resamples a share has a Monte Carlo sd
// of at most 0.005: the CDF is compared within 0.02 at every atom.
func TestStratifiedBootstrapByHand(t *testing.T) {
	d := [][]float64{{-1, 1}, {-0.5, 0.5, 2}}
	est, dist := StratifiedBootstrap(d, BootstrapResamples, 7)
	if want := (0 + 2.0/3) / 2; !near(est, want, 1e-12) {
		t.Errorf("estimate %g, want the mean of the strata's means %g", est, want)
	}
	vals, probs := exactPooledCDF(d)
	cum := 0.0
	for i, v := range vals {
		cum += probs[i]
		n := 0
		for _, x := range dist {
			if x <= v+1e-8 {
				n++
			}
		}
		if got := float64(n) / float64(len(dist)); math.Abs(got-cum) > 0.02 {
			t.Errorf("P(pooled ≤ %g): bootstrap %g, exact %g", v, got, cum)
		}
	}
	// The share beyond zero, P(improvement), likewise.
	exact := 0.0
	for i, v := range vals {
		if v > 0 {
			exact += probs[i]
		}
	}
	n := 0
	for _, x := range dist {
		if x > 0 {
			n++
		}
	}
	if got := float64(n) / float64(len(dist)); math.Abs(got-exact) > 0.02 {
		t.Errorf("P(pooled > 0): bootstrap %g, exact %g", got, exact)
	}
	// Seeded: the same seed gives the same resamples.
	_, again := StratifiedBootstrap(d, BootstrapResamples, 7)
	if !slices.Equal(dist, again) {
		t.Error("the bootstrap is not deterministic")
	}
}

// ratioContrast is a counted contrast of claim id whose under-test arm
// has value a[i] and the comparator b[i] on split i.
func ratioContrast(id string, a, b []float64) Contrast {
	c := Contrast{Claim: id, Figure: "e", DS: "d", Dataset: "d", A: ArmInfo{Method: "ut"}, B: ArmInfo{Method: "cp"}, AVal: a, BVal: b}
	for i := range a {
		c.Splits = append(c.Splits, i)
		c.D = append(c.D, math.Log(b[i]/a[i]))
	}
	c.finish()
	return c
}

// An equivalence claim reads "supported" when its 90 % interval lies
// inside the margin, "contradicted" when the 95 % interval lies wholly
// outside it, "undecided" between.
func TestEquivalenceClaim(t *testing.T) {
	spec := ClaimSpec{ID: "eq", Statement: "about as accurate", Scale: ScaleRatio, Direction: "lower", Test: TestEquivalence, Margin: 1.05}
	one := []float64{1, 1, 1, 1, 1}
	inside := ratioContrast("eq", one, []float64{1.01, 0.99, 1.02, 1.0, 0.995})
	outside := ratioContrast("eq", one, []float64{1.2, 1.25, 1.18, 1.22, 1.21})
	wide := ratioContrast("eq", one, []float64{0.8, 1.25, 0.9, 1.2, 1.0})
	for _, c := range []struct {
		name string
		k    Contrast
		want string
	}{{"inside", inside, VerdictSupported}, {"outside", outside, VerdictContradicted}, {"wide", wide, VerdictUndecided}} {
		r := pool(&spec, fair, []Contrast{c.k})
		if r.Verdict != c.want {
			t.Errorf("%s: %s (%s), 90 %% [%g, %g], 95 %% [%g, %g]; want %s", c.name, r.Verdict, r.Why, r.Lo90, r.Hi90, r.Lo, r.Hi, c.want)
		}
		if r.Margin != [2]float64{1 / 1.05, 1.05} {
			t.Errorf("%s: margin %v", c.name, r.Margin)
		}
	}
	// The same numbers read as superiority with the same margin: the
	// inside contrast does not show a gain beyond ×1.05.
	sup := spec
	sup.Test = TestSuperiority
	if r := pool(&sup, fair, []Contrast{inside}); r.Verdict != VerdictUndecided {
		t.Errorf("superiority on an equivalent contrast: %s", r.Verdict)
	}
}

// Splits excluded from a contrast (decided by the start, a bound, a
// flagged run) and contrasts whose arms differ in more than the method
// take no part in the pooled estimate, and each is listed with its
// reason.
func TestPoolExclusions(t *testing.T) {
	spec := ClaimSpec{ID: "c", Scale: ScaleRatio, Direction: "lower", Test: TestSuperiority, Margin: 1.1}
	k := ratioContrast("c", []float64{1, 1, 1, 1}, []float64{2, 2, 2, 100})
	k.exclude(3, ExclStart+": both arms' first snapshot already reaches the level")
	conf := ratioContrast("c", []float64{1, 1}, []float64{50, 50})
	conf.Confounds = []string{"start: MAP vs prior draws"}
	other := ratioContrast("not-this-claim", []float64{1, 1}, []float64{0.01, 0.01})
	r := pool(&spec, fair, []Contrast{k, conf, other})
	if !near(r.Estimate, 2, 1e-12) || r.Verdict != VerdictSupported {
		t.Errorf("pooled %g (%s); want 2 from the three kept splits, supported", r.Estimate, r.Verdict)
	}
	if len(r.Excluded) != 2 || !slices.Equal(r.Excluded[0].Splits, []int{3}) || !strings.HasPrefix(r.Excluded[0].Reason, ExclStart) ||
		!strings.HasPrefix(r.Excluded[1].Reason, ExclConfounded) {
		t.Errorf("exclusions %+v", r.Excluded)
	}
	if len(r.PerDataset) != 2 || r.PerDataset[0].N != 3 || r.PerDataset[1].Excluded != ExclConfounded {
		t.Errorf("per data set %+v", r.PerDataset)
	}
	// Every split excluded: nothing to pool.
	all := ratioContrast("c", []float64{1, 1}, []float64{2, 2})
	all.exclude(0, ExclBound+": x")
	all.exclude(1, ExclBound+": x")
	if r := pool(&spec, fair, []Contrast{all}); r.Verdict != VerdictUnmeasured || len(r.Excluded) != 1 || !slices.Equal(r.Excluded[0].Splits, []int{0, 1}) {
		t.Errorf("all excluded: %s, %+v", r.Verdict, r.Excluded)
	}
	f := r.Forest()
	if !f.Log || f.Null != 1 || f.Band != r.Margin || f.Pooled == nil || len(f.Rows) != 2 || f.Rows[1].Note != ExclConfounded {
		t.Errorf("forest %+v", f)
	}
}

// A contrast decided at the start: both arms' first snapshot already
// reaches the level (the MAP alone passes it), so the cost ratio compares
// starts, not methods; such splits are excluded from the pooled estimate,
// and a split where the arms get there by their steps is kept.
func TestDecidedByTheStart(t *testing.T) {
	var cells []*report.Cell
	for s := 0; s < 3; s++ {
		first := 0.9 // below SVGD's level 1.01 from the first snapshot
		if s == 2 {
			first = 3 // both must move to reach it
		}
		cells = append(cells,
			memCell("fig2a", "mmdfw", "mmdfw", "naval", s, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: first}, report.Row{Seconds: 2, GradEvals: 200, Metric: "rmse", Value: 0.5}),
			memCell("fig2a", "svgd", "svgd", "naval", s, 20, report.Row{Seconds: 1, GradEvals: 110, Metric: "rmse", Value: first}, report.Row{Seconds: 40, GradEvals: 40000, Metric: "rmse", Value: 1}))
	}
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells}
	k, _ := costContrast(res, "fig2a", "naval", "rmse", "mmdfw", "svgd", fairConfig)
	if len(k.D) != 3 {
		t.Fatalf("%d splits, want 3", len(k.D))
	}
	for i, want := range []bool{true, true, false} {
		if got := strings.HasPrefix(k.ExcludedAt(i), ExclStart); got != want {
			t.Errorf("split %d: excluded %q, want decided by the start %v", i, k.ExcludedAt(i), want)
		}
	}
	k.Claim = "c"
	spec := ClaimSpec{ID: "c", Scale: ScaleRatio, Direction: "lower", Test: TestSuperiority, Margin: 1.1}
	r := pool(&spec, fair, []Contrast{k})
	if r.PerDataset[0].N != 1 || len(r.Excluded) != 1 || !slices.Equal(r.Excluded[0].Splits, []int{0, 1}) {
		t.Errorf("pooled on %d splits, exclusions %+v; want split 2 alone, splits 0 and 1 decided by the start", r.PerDataset[0].N, r.Excluded)
	}
}

// A run flagged "collapse" is excluded: from a contrast's split, and from
// claim 2's series.
func TestCollapsedExcluded(t *testing.T) {
	flagged := func(c *report.Cell) *report.Cell {
		c.Prov.Diagnostics = &harness.Diagnostics{Flags: []harness.DiagFlag{{Code: "collapse", Reason: "kish ESS 1e-7"}}}
		return c
	}
	var cells []*report.Cell
	for s := 0; s < 3; s++ {
		fw := memCell("fig2a", "mmdfw", "mmdfw", "naval", s, 20, report.Row{Seconds: 1, GradEvals: 100, Metric: "rmse", Value: 3}, report.Row{Seconds: 2, GradEvals: 200, Metric: "rmse", Value: 0.5})
		if s == 1 {
			fw = flagged(fw)
		}
		cells = append(cells, fw, memCell("fig2a", "svgd", "svgd", "naval", s, 20, report.Row{Seconds: 1, GradEvals: 110, Metric: "rmse", Value: 3}, report.Row{Seconds: 40, GradEvals: 40000, Metric: "rmse", Value: 1}))
	}
	k, _ := costContrast(&report.Results{Metrics: reporttest.Meanings, Cells: cells}, "fig2a", "naval", "rmse", "mmdfw", "svgd", fairConfig)
	for i, want := range []bool{false, true, false} {
		if got := strings.Contains(k.ExcludedAt(i), `flagged "collapse"`); got != want {
			t.Errorf("split %d: excluded %q, want collapse %v", i, k.ExcludedAt(i), want)
		}
	}
	if r := seriesExcluded(cells, "naval", "mmdfw"); !strings.Contains(r, "collapse") || !strings.Contains(r, "split 1") {
		t.Errorf("claim 2's series of a collapsed run: excluded %q", r)
	}
	if r := seriesExcluded(cells, "naval", "svgd"); r != "" {
		t.Errorf("an unflagged series excluded: %q", r)
	}
}

// Holm's adjustment: sorted p₍ᵢ₎·(k − i + 1), made monotone, capped at 1.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.04, 0.01, math.NaN(), 0.03, 0.5})
	// Sorted 0.01, 0.03, 0.04, 0.5 (k = 4): 0.04, 0.09, 0.09 (0.08 made
	// monotone), 0.5.
	want := []float64{0.09, 0.04, math.NaN(), 0.09, 0.5}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && !near(got[i], want[i], 1e-12) {
			t.Errorf("Holm %v, want %v", got, want)
			break
		}
	}
}

// On the fixture tree every declared claim gets a result under each of
// its protocols, the same on every call (the bootstrap is seeded), and the
// report writes each one's verdict in the pooled table and in its claim's
// section.
func TestClaimResultsInReport(t *testing.T) {
	res := goodTree(t)
	rs := ClaimResults(res)
	n := 0
	for _, s := range PaperClaims() {
		n += len(s.Protocols)
	}
	if len(rs) != n {
		t.Fatalf("%d results, want %d", len(rs), n)
	}
	again := ClaimResults(res)
	var b strings.Builder
	Plugin{}.Sections(&b, res, report.Options{})
	out := b.String()
	for i, r := range rs {
		a := again[i]
		if r.Verdict != a.Verdict || !(r.Lo == a.Lo || math.IsNaN(r.Lo) && math.IsNaN(a.Lo)) {
			t.Errorf("claim %s %s: %s [%g] then %s [%g]", r.ID, r.Protocol, r.Verdict, r.Lo, a.Verdict, a.Lo)
		}
		if !slices.Contains([]string{VerdictSupported, VerdictContradicted, VerdictUndecided, VerdictUnmeasured}, r.Verdict) {
			t.Errorf("claim %s %s: verdict %q", r.ID, r.Protocol, r.Verdict)
		}
		row := "| " + r.ID + " | " + r.Statement + " | " + protocolWord(r.Protocol) + " | "
		if !strings.Contains(out, row) || !strings.Contains(out, "**Claim "+r.ID+", "+protocolWord(r.Protocol)+" protocol: "+r.VerdictText()+".**") {
			t.Errorf("claim %s %s: the report lacks its pooled row or section line", r.ID, r.Protocol)
		}
	}
}

// The declared direction and scale of each claim orient its contrasts as
// its statistic does: on the fixture tree, for every split of every
// contrast, ClaimSpec.orient of the arms' values equals the contrast's
// own difference.
func TestDeclaredDirection(t *testing.T) {
	res := goodTree(t)
	specs := PaperClaims()
	checked := 0
	for i := range specs {
		s := &specs[i]
		for _, p := range s.Protocols {
			for _, c := range sectionContrasts(res, specs, s.Section, p.config()) {
				if c.Claim != s.ID {
					continue
				}
				for j := range c.D {
					if got := s.orient(c.AVal[j], c.BVal[j]); !near(got, c.D[j], 1e-9) {
						t.Errorf("claim %s %s %s split %d: declared orientation %g, statistic %g", s.ID, p.Name, c.Key, c.Splits[j], got, c.D[j])
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no contrast on the fixture tree")
	}
}

// TestProbImprove computes the probability of improvement by hand: data
// set A has one better, one worse and one tied split (½ + ½·… = 1.5/3),
// data set B two better splits (1), so P = (0.5 + 1)/2 = 0.75; every
// resample of B gives 1 and of A a value in [0, 1], so the interval lies
// in [0.5, 1] and holds P.
func TestProbImprove(t *testing.T) {
	p, lo, hi := probImprove([]stratum{{label: "A", d: []float64{1, -1, 0}}, {label: "B", d: []float64{2, 3}}}, 7)
	if p != 0.75 {
		t.Errorf("P(improvement) %v, want 0.75", p)
	}
	if !(lo >= 0.5 && lo <= p && p <= hi && hi <= 1) {
		t.Errorf("interval [%v, %v] of %v, want inside [0.5, 1] around it", lo, hi, p)
	}
}

// TestRanShort excludes an arm that stopped short of the budget it is read
// at: run budget 4·10⁶, read at 1× (10⁶): a run whose last snapshot is at
// 5·10⁵ was not given the budget; one at 9.5·10⁵ (within
// BudgetTolerance) and one with snapshots beyond 10⁶ were.
func TestRanShort(t *testing.T) {
	cell := func(method string, grads ...int64) *report.Cell {
		c := memCell("table1", method, "svgd", "boston", 0, 20)
		c.Prov.KeyDoc.Budget.GradEvals = 4_000_000
		for i, g := range grads {
			c.Rows = append(c.Rows, report.Row{Step: i + 1, GradEvals: g, Metric: "rmse", Value: 1})
		}
		return c
	}
	lv := BudgetLevel{"1x", 1}
	short, near, beyond := cell("a", 1e5, 5e5), cell("b", 5e5, 9.5e5), cell("c", 5e5, 2e6)
	if why := ranShort(lv, near, beyond); why != "" {
		t.Errorf("runs at 95 %% and beyond the budget excluded: %s", why)
	}
	why := ranShort(lv, near, short)
	if !strings.HasPrefix(why, ExclShort) || !strings.Contains(why, "a stopped at 5e+05") {
		t.Errorf("a run at half the budget: %q, want an exclusion naming it", why)
	}
}

// A data set with one kept split, pooled beside data sets with several,
// is left out with its reason (it has no spread to resample): the
// estimate is the others'. When every data set keeps one split, none is
// left out and the verdict is "one split: no verdict".
func TestPoolOneSplitLeftOut(t *testing.T) {
	spec := ClaimSpec{ID: "c", Scale: ScaleRatio, Direction: "lower", Test: TestSuperiority, Margin: 1.1}
	two := ratioContrast("c", []float64{1, 1}, []float64{2, 2})
	one := ratioContrast("c", []float64{1}, []float64{0.1})
	r := pool(&spec, fair, []Contrast{two, one})
	if !near(r.Estimate, 2, 1e-12) || r.Verdict != VerdictSupported {
		t.Errorf("pooled %g (%s); want 2 from the two-split data set alone, supported", r.Estimate, r.Verdict)
	}
	if len(r.Excluded) != 1 || r.Excluded[0].Reason != ExclOneSplit || r.PerDataset[1].Excluded != ExclOneSplit {
		t.Errorf("exclusions %+v, per data set %+v", r.Excluded, r.PerDataset)
	}
	r = pool(&spec, fair, []Contrast{one, one})
	if len(r.Excluded) != 0 || r.VerdictText() != noVerdict {
		t.Errorf("every data set with one split: exclusions %+v, verdict %q", r.Excluded, r.VerdictText())
	}
}
