package report

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// PDBExperiment is the id of the posteriordb benchmark
// (experiments/posteriordb.toml): every method against posteriordb's
// reference draws. Its cells get the section "posteriordb" of the report
// (writePosteriorDB), not the generic one of other experiments.
const PDBExperiment = "posteriordb"

// The metrics of the posteriordb benchmark the section reads (the
// wiring's pdb_ metrics, pkg/experiment).
const (
	pdbMMD2    = "pdb_mmd2"
	pdbMeanErr = "pdb_mean_err"
	pdbSDMin   = "pdb_sd_ratio_min"
	pdbSDMax   = "pdb_sd_ratio_max"
)

// What the section calls close to the reference, as the zero-value
// benchmark of the methods does (docs/DECISIONS.md, "Every method from its
// zero value on posteriordb"; internal/pdbcheck's contract test): a cell
// is close when the largest |Δ mean| over the reference's parameters is at
// most PDBCloseMeanErr reference sds and every sd ratio lies in
// [PDBCloseSDLow, PDBCloseSDHigh]. For N = 100 independent draws the error
// of one mean is about 0.1 sd and that of one sd ratio about 1/√(2N) ≈
// 0.07, so a cell outside these bounds is off by far more than its particle
// count explains. These are the bounds at PDBCloseN particles; at N they
// widen as the errors of N independent draws do, by s = √(PDBCloseN/N):
// mean err ≤ s·PDBCloseMeanErr and every sd ratio in [PDBCloseSDLow^s,
// PDBCloseSDHigh^s] (at N = 30: 0.91 and [0.28, 3.5]; at N = 10: 1.58 and
// [0.11, 8.9]), so that at every N "close" means as close as the same
// multiple of the draws' standard errors.
const (
	PDBCloseN       = 100
	PDBCloseMeanErr = 0.5
	PDBCloseSDLow   = 0.5
	PDBCloseSDHigh  = 2.0
)

// PDBInterval is a statistic over the seeds of one posterior, method and
// particle count: the mean and the range (min–max) of the seeds' values.
// With 3 to 5 seeds the range is shown, not a normal-theory interval.
type PDBInterval struct {
	Mean, Min, Max float64
	// N is the number of seeds with a finite value.
	N int
}

// pdbInterval returns the interval of the finite values of v.
func pdbInterval(v []float64) PDBInterval {
	in := PDBInterval{Mean: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	var s float64
	for _, x := range v {
		if !Finite(x) {
			continue
		}
		if in.N == 0 || x < in.Min {
			in.Min = x
		}
		if in.N == 0 || x > in.Max {
			in.Max = x
		}
		s += x
		in.N++
	}
	if in.N > 0 {
		in.Mean = s / float64(in.N)
	}
	return in
}

// String formats the interval as "mean [min–max]" with three significant
// digits ("–" without a value).
func (in PDBInterval) String() string {
	if in.N == 0 {
		return "–"
	}
	if in.N == 1 || in.Min == in.Max {
		return sig3(in.Mean)
	}
	return sig3(in.Mean) + " [" + sig3(in.Min) + "–" + sig3(in.Max) + "]"
}

// sig3 formats v with three significant digits.
func sig3(v float64) string {
	if !Finite(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// PDBStat is one posterior × method × particle count of the benchmark, over
// its finished seeds.
type PDBStat struct {
	Dataset, Method, Kind string
	N                     int
	// Seeds is the number of finished cells.
	Seeds int
	// MeanErr is the largest |Δ mean| / reference sd; MMD2Rel the MMD² to
	// the reference divided by the reference's own floor (its two halves'
	// MMD², recorded in each cell's summary); MMD2 the MMD² itself.
	MeanErr, MMD2Rel, MMD2 PDBInterval
	// SDLow and SDHigh are the smallest sd_ratio_min and the largest
	// sd_ratio_max over the seeds: the range of every sd ratio.
	SDLow, SDHigh float64
	// GradEvals and Seconds are the means over the seeds of the cells'
	// charged gradient evaluations and compute seconds, Steps that of their
	// last step (the particles of the set for MMD-FW and Stein Points,
	// whose N is a ceiling).
	GradEvals, Seconds, Steps float64
	// Flagged counts the seeds whose method flagged its result, Codes the
	// distinct flag codes; Close counts the seeds close to the reference
	// (PDBCloseMeanErr, PDBCloseSDLow, PDBCloseSDHigh), SilentOff the
	// seeds neither close nor flagged; Unchecked the seeds not flagged on
	// which a check of the set did not run (pdbUnchecked: too few
	// particles for the Stein and mode checks), whether close or not.
	Flagged, Close, SilentOff, Unchecked int
	Codes                                []string
	// Setup counts the seeds that recorded a flag the benchmark's set-up
	// raises at this N (pdbSetupFlags), not counted above; SetupCodes are
	// their codes.
	Setup      int
	SetupCodes []string
}

// pdbFloor returns the reference's floor of metric that cell c's summary
// records (summary.reference.floors).
func pdbFloor(c *Cell, metric string) (float64, bool) {
	ref, ok := c.Summary["reference"].(map[string]any)
	if !ok {
		return 0, false
	}
	fl, ok := ref["floors"].(map[string]any)
	if !ok {
		return 0, false
	}
	v, ok := fl[metric].(float64)
	return v, ok && Finite(v)
}

// pdbFloors returns the positive MMD² floor of every posterior of cells, by
// dataset, from the first cell whose summary records it: a floor belongs to
// the reference, not to the cell (HMC's cells, whose summary is the
// reference sampler's, record none).
func pdbFloors(cells []*Cell) map[string]float64 {
	out := map[string]float64{}
	for _, c := range cells {
		if _, ok := out[c.Prov.Dataset]; ok {
			continue
		}
		if f, ok := pdbFloor(c, pdbMMD2); ok && f > 0 {
			out[c.Prov.Dataset] = f
		}
	}
	return out
}

// pdbRefDraws returns the number of reference draws the cells' summaries
// record (summary.reference.draws), 0 when none does.
func pdbRefDraws(cells []*Cell) float64 {
	for _, c := range cells {
		if ref, ok := c.Summary["reference"].(map[string]any); ok {
			if r, ok := ref["draws"].(float64); ok && r > 0 {
				return r
			}
		}
	}
	return 0
}

// PDBIIDRatio is the expected MMD²/floor of n independent draws of the
// posterior against r reference draws: the MMD² V-statistic of samples of
// sizes n and m has expectation (1/n + 1/m)·c, c = E k(x,x) − E k(x,x′),
// and the floor compares the reference's two halves (r/2 each), so the
// ratio is (1/n + 1/r) / (4/r) = r/(4n) + 1/4.
func PDBIIDRatio(n int, r float64) float64 { return r/(4*float64(n)) + 0.25 }

// pdbFinal returns the final value of metric in c (NaN when absent).
func pdbFinal(c *Cell, metric string) float64 {
	if r, ok := c.Final(metric); ok {
		return r.Value
	}
	return math.NaN()
}

// pdbCloseBounds returns the bounds of close at n particles: the largest
// mean err and the range of the sd ratios (see PDBCloseMeanErr).
func pdbCloseBounds(n int) (meanErr, sdLow, sdHigh float64) {
	s := 1.0
	if n > 0 {
		s = math.Sqrt(PDBCloseN / float64(n))
	}
	return s * PDBCloseMeanErr, math.Pow(PDBCloseSDLow, s), math.Pow(PDBCloseSDHigh, s)
}

// pdbClose reports whether the values of one snapshot of a set of n
// particles are close to the reference.
func pdbClose(n int, meanErr, sdMin, sdMax float64) bool {
	e, lo, hi := pdbCloseBounds(n)
	return meanErr <= e && sdMin >= lo && sdMax <= hi
}

// PDBStats returns the statistics of the finished cells of the posteriordb
// benchmark among cells, by posterior (sorted), method (in the order of
// MethodOrder) and particle count.
func PDBStats(cells []*Cell) []PDBStat {
	cells = Done(cells)
	floors := pdbFloors(cells)
	names, kinds := MethodOrder(cells)
	var out []PDBStat
	for _, ds := range Datasets(cells) {
		groups := ByMethod(cells, ds)
		for _, name := range names {
			ns, atN := byN(groups[name])
			for _, n := range ns {
				out = append(out, pdbStat(ds, name, kinds[name], n, atN[n], floors[ds]))
			}
		}
	}
	return out
}

// pdbStat summarises the seeds (cells) of one posterior, method and N,
// with floor the posterior's MMD² floor (0: unknown).
func pdbStat(ds, name, kind string, n int, cells []*Cell, floor float64) PDBStat {
	st := PDBStat{Dataset: ds, Method: name, Kind: kind, N: n, Seeds: len(cells), SDLow: math.NaN(), SDHigh: math.NaN()}
	var errs, rel, mmd, grads, secs, steps []float64
	codes, setup := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
		e, lo, hi, m := pdbFinal(c, pdbMeanErr), pdbFinal(c, pdbSDMin), pdbFinal(c, pdbSDMax), pdbFinal(c, pdbMMD2)
		errs, mmd = append(errs, e), append(mmd, m)
		if floor > 0 {
			rel = append(rel, m/floor)
		}
		if Finite(lo) && !(lo >= st.SDLow) {
			st.SDLow = lo
		}
		if Finite(hi) && !(hi <= st.SDHigh) {
			st.SDHigh = hi
		}
		grads = append(grads, float64(c.Prov.GradEvals))
		secs = append(secs, c.Prov.Seconds)
		steps = append(steps, float64(c.Prov.Steps))
		fl := pdbFlags(c)
		flagged := len(fl) > 0
		close := pdbClose(n, e, lo, hi)
		if flagged {
			st.Flagged++
			for _, f := range fl {
				codes[f] = true
			}
		}
		if close {
			st.Close++
		} else if !flagged {
			st.SilentOff++
		}
		if !flagged && len(pdbUnchecked(c)) > 0 {
			st.Unchecked++
		}
		if su := pdbSetupFlags(c); len(su) > 0 {
			st.Setup++
			for _, f := range su {
				setup[f] = true
			}
		}
	}
	st.MeanErr, st.MMD2Rel, st.MMD2 = pdbInterval(errs), pdbInterval(rel), pdbInterval(mmd)
	st.GradEvals, st.Seconds, st.Steps = pdbInterval(grads).Mean, pdbInterval(secs).Mean, pdbInterval(steps).Mean
	st.Codes = SortedKeys(codes)
	st.SetupCodes = SortedKeys(setup)
	return st
}

// PDBVerdict is a method's summary over the posteriors at its largest
// particle count: close on Close of Posteriors (every seed close), flagged
// on Flagged (a flag on at least one seed), silently off on SilentOff (at
// least one seed neither close nor flagged), unchecked on Unchecked (at
// least one seed unflagged with a check of its set that did not run).
type PDBVerdict struct {
	Method                                           string
	N                                                int
	Posteriors, Close, Flagged, SilentOff, Unchecked int
	// Off names the posteriors counted in SilentOff.
	Off []string
}

// PDBVerdicts returns one verdict per method of stats (in their order), at
// each method's largest particle count.
func PDBVerdicts(stats []PDBStat) []PDBVerdict {
	var order []string
	top := map[string]int{}
	for _, s := range stats {
		if _, ok := top[s.Method]; !ok {
			order = append(order, s.Method)
		}
		top[s.Method] = max(top[s.Method], s.N)
	}
	var out []PDBVerdict
	for _, m := range order {
		v := PDBVerdict{Method: m, N: top[m]}
		for _, s := range stats {
			if s.Method != m || s.N != v.N || s.Seeds == 0 {
				continue
			}
			v.Posteriors++
			if s.Close == s.Seeds {
				v.Close++
			}
			if s.Flagged > 0 {
				v.Flagged++
			}
			if s.SilentOff > 0 {
				v.SilentOff++
				v.Off = append(v.Off, pdbName(s.Dataset))
			}
			if s.Unchecked > 0 {
				v.Unchecked++
			}
		}
		out = append(out, v)
	}
	return out
}

// Sentence states the verdict in one line.
func (v PDBVerdict) Sentence() string {
	s := fmt.Sprintf("%s (N = %d): close to the reference on %d of %d posteriors (every seed), flagged on %d (at least one seed), silently off on %d",
		v.Method, v.N, v.Close, v.Posteriors, v.Flagged, v.SilentOff)
	if len(v.Off) > 0 {
		s += " (" + strings.Join(v.Off, ", ") + ")"
	}
	if v.Unchecked > 0 {
		s += fmt.Sprintf("; unchecked on %d (an unflagged seed whose set the Stein or mode check could not judge)", v.Unchecked)
	}
	return s + "."
}

// pdbName is the posterior's name without the datasets' prefix.
func pdbName(ds string) string { return strings.TrimPrefix(ds, "posteriordb.") }

// pdbAtBudget returns the value of metric at the last snapshot of c within
// g gradient evaluations, and false when c has none there (a method whose
// first answer costs more, as HMC's after its warm-up).
func pdbAtBudget(c *Cell, metric string, g float64) (float64, bool) {
	v, ok := math.NaN(), false
	for _, r := range c.Rows {
		if r.Metric == metric && float64(r.GradEvals) <= g {
			v, ok = r.Value, true
		}
	}
	return v, ok
}

// PDBBudgets returns the gradient-evaluation budgets of the equal-budget
// table: B/1000, B/100, B/10 and the cells' run budget B
// (budget.grad_evals); none when the cells ran without one.
func PDBBudgets(cells []*Cell) []float64 {
	var b int64
	for _, c := range cells {
		b = max(b, c.Prov.KeyDoc.Budget.GradEvals)
	}
	if b <= 0 {
		return nil
	}
	return []float64{float64(b) / 1000, float64(b) / 100, float64(b) / 10, float64(b)}
}

// PDBBudgetStat is the MMD² relative to the reference's floor and the
// largest |Δ mean| / sd of one posterior × method at one budget, over the
// seeds with a snapshot within it (Reached of Seeds).
type PDBBudgetStat struct {
	MMD2Rel, MeanErr PDBInterval
	Reached, Seeds   int
}

// pdbBudgetStat reads the cells (the seeds of one posterior, method and N)
// at budget g, with floor the posterior's MMD² floor (0: unknown).
func pdbBudgetStat(cells []*Cell, g, floor float64) PDBBudgetStat {
	st := PDBBudgetStat{Seeds: len(cells)}
	var rel, errs []float64
	for _, c := range cells {
		m, ok := pdbAtBudget(c, pdbMMD2, g)
		if !ok {
			continue
		}
		st.Reached++
		if floor > 0 {
			rel = append(rel, m/floor)
		}
		if e, ok := pdbAtBudget(c, pdbMeanErr, g); ok {
			errs = append(errs, e)
		}
	}
	st.MMD2Rel, st.MeanErr = pdbInterval(rel), pdbInterval(errs)
	return st
}

// PDBPairs counts, over the posteriors at particle count n, those where
// method a's mean MMD² is below method b's (wins) of those where both ran
// (of), and the median over them of the ratio of a's mean gradient
// evaluations to b's.
func PDBPairs(stats []PDBStat, a, b string, n int) (wins, of int, costRatio float64) {
	at := map[string]map[string]PDBStat{}
	for _, s := range stats {
		if s.N != n || s.MMD2.N == 0 {
			continue
		}
		if at[s.Dataset] == nil {
			at[s.Dataset] = map[string]PDBStat{}
		}
		at[s.Dataset][s.Kind] = s
	}
	var ratios []float64
	for _, ds := range SortedKeys(at) {
		sa, okA := at[ds][a]
		sb, okB := at[ds][b]
		if !okA || !okB {
			continue
		}
		of++
		if sa.MMD2.Mean < sb.MMD2.Mean {
			wins++
		}
		if sb.GradEvals > 0 {
			ratios = append(ratios, sa.GradEvals/sb.GradEvals)
		}
	}
	return wins, of, Median(ratios)
}

// Median returns the median of v (NaN for none); v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// PDBSlopes returns, per posterior with at least two particle counts, the
// least-squares slope of log MMD² (mean over seeds) against log n of the
// method of kind k, n the mean number of particles its sets ended with
// (its last step: for a kind that adds one particle per step,
// KindTraits.OneParticlePerStep).
func PDBSlopes(stats []PDBStat, k string) []float64 {
	xs, ys := map[string][]float64{}, map[string][]float64{}
	for _, s := range stats {
		if s.Kind != k || s.MMD2.N == 0 || !(s.MMD2.Mean > 0) || !(s.Steps > 0) {
			continue
		}
		xs[s.Dataset] = append(xs[s.Dataset], math.Log(s.Steps))
		ys[s.Dataset] = append(ys[s.Dataset], math.Log(s.MMD2.Mean))
	}
	var out []float64
	for _, ds := range SortedKeys(xs) {
		if f := FitLine(xs[ds], ys[ds]); Finite(f.Slope) {
			out = append(out, f.Slope)
		}
	}
	return out
}

// pdbMaxN returns the largest particle count of stats.
func pdbMaxN(stats []PDBStat) int {
	n := 0
	for _, s := range stats {
		n = max(n, s.N)
	}
	return n
}

// PDBNs returns the particle counts of stats, ascending.
func PDBNs(stats []PDBStat) []int {
	var ns []int
	for _, s := range stats {
		if !slices.Contains(ns, s.N) {
			ns = append(ns, s.N)
		}
	}
	slices.Sort(ns)
	return ns
}

// writePosteriorDB writes the section on the posteriordb benchmark: per
// posterior and method at the largest particle count the comparison with
// the reference draws (intervals over seeds), the flags, a sentence per
// method, the equal-budget table and the claims' extended evidence.
// Nothing when the results hold no cell of it.
func writePosteriorDB(b *strings.Builder, res *Results, opts Options) {
	all := res.Experiment(PDBExperiment)
	if len(all) == 0 {
		return
	}
	cells := Done(all)
	e30, lo30, hi30 := pdbCloseBounds(30)
	e10, lo10, hi10 := pdbCloseBounds(10)
	b.WriteString("## posteriordb\n\n")
	b.WriteString(DecisionLink(opts, "The posteriordb benchmark from the zero settings (experiments/posteriordb.toml)"))
	fmt.Fprintf(b, "Every method against posteriordb's gold-standard reference draws (Stan NUTS, 10 chains × 1,000 thinned draws) on %d posteriors "+
		"(experiments/posteriordb.toml). Not an experiment of the paper: extended evidence only, no verdict of the paper's claims rests on it. "+
		"Each method runs from its zero settings (its own stopping rule, in the target's own scales where it has a choice) and starts at the MAP, "+
		"whose cost is charged (HMC's chains start around it uncharged). Values are at the end of each run and compared in the reference's "+
		"constrained parameters; an interval is the mean over the seeds and, in brackets, their range (min–max). "+
		"mean err is the largest |Δ mean| / reference sd; sd ratios the range of every parameter's sd ratio over the seeds; "+
		"MMD²/floor the MMD² to the reference over the reference's own floor (its two halves' MMD²). "+
		"A seed is close when mean err ≤ %g and every sd ratio lies in [%g, %g] at N = %d, bounds that widen as the errors of N independent draws do (by √(%d/N): at N = 30, %s and [%s, %s]; at N = 10, %s and [%s, %s]). "+
		"%s"+
		"A seed neither close nor flagged is silently off.\n\n",
		len(Datasets(all)), PDBCloseMeanErr, PDBCloseSDLow, PDBCloseSDHigh, PDBCloseN, PDBCloseN,
		sig3(e30), sig3(lo30), sig3(hi30), sig3(e10), sig3(lo10), sig3(hi10), pdbFlagged(all))
	if len(cells) < len(all) {
		fmt.Fprintf(b, "%d of %d cells finished; the tables read the finished ones.\n\n", len(cells), len(all))
	}
	stats := PDBStats(cells)
	if len(stats) == 0 {
		b.WriteString("No finished cell.\n\n")
		return
	}
	top := pdbMaxN(stats)
	if r := pdbRefDraws(cells); r > 0 {
		var parts []string
		for _, n := range PDBNs(stats) {
			parts = append(parts, fmt.Sprintf("%s at N = %d", sig3(PDBIIDRatio(n, r)), n))
		}
		fmt.Fprintf(b, "The yardstick of MMD²/floor is what N independent draws of the posterior would score in expectation, %g/(4N) + 1/4: %s. "+
			"Below it, a set is closer to the reference than random draws of its size.\n\n", r, strings.Join(parts, ", "))
	}
	for _, v := range PDBVerdicts(stats) {
		b.WriteString("- " + v.Sentence() + "\n")
	}
	b.WriteString("\n")
	for _, name := range PDBFigureNames {
		fmt.Fprintf(b, "![%s](%s)\n", name, path.Join(opts.Figures, name+".png"))
	}
	b.WriteString("\n")
	writePDBUnchecked(b, cells, res.Checks)
	writePDBByN(b, stats)
	fmt.Fprintf(b, "### At N = %d\n\n", top)
	b.WriteString("| posterior | method | seeds | mean err | sd ratios | MMD²/floor | grad evals | seconds | close | flags |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range stats {
		if s.N != top {
			continue
		}
		flags := "–"
		if s.Flagged > 0 {
			flags = fmt.Sprintf("%d: %s", s.Flagged, strings.Join(s.Codes, ", "))
		}
		if s.Setup > 0 {
			flags += fmt.Sprintf(" (and %d recording %s, raised by the set-up at this N: not counted)", s.Setup, strings.Join(s.SetupCodes, ", "))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s–%s | %s | %s | %s | %d/%d | %s |\n",
			pdbName(s.Dataset), s.Method, s.Seeds, s.MeanErr, sig3(s.SDLow), sig3(s.SDHigh), s.MMD2Rel,
			sig3(s.GradEvals), sig3(s.Seconds), s.Close, s.Seeds, flags)
	}
	b.WriteString("\n")
	writePDBBudget(b, cells, top)
	extend(b, res, PDBExperiment, opts)
	for _, l := range experimentLinks(res, PDBExperiment, nil, opts) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
}

// PDBVerdictsAt returns one verdict per method of stats (in their order)
// at particle count n, none for a method without cells there.
func PDBVerdictsAt(stats []PDBStat, n int) []PDBVerdict {
	var at []PDBStat
	for _, s := range stats {
		if s.N == n {
			at = append(at, s)
		}
	}
	return PDBVerdicts(at)
}

// writePDBByN writes the verdicts at every particle count: per method and
// N, the posteriors close on every seed, flagged on some seed and silently
// off on some seed, of those with a finished cell.
func writePDBByN(b *strings.Builder, stats []PDBStat) {
	ns := PDBNs(stats)
	if len(ns) < 2 {
		return
	}
	b.WriteString("At every N, posteriors close on every seed / flagged on some seed / silently off on some seed, of those run, " +
		"and (u unchecked) those with an unflagged seed whose set the Stein or mode check could not judge (too few particles to score):\n\n| method |")
	for _, n := range ns {
		fmt.Fprintf(b, " N = %d |", n)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(ns)) + "\n")
	byMethod := map[string]map[int]PDBVerdict{}
	var order []string
	for _, n := range ns {
		for _, v := range PDBVerdictsAt(stats, n) {
			if byMethod[v.Method] == nil {
				byMethod[v.Method] = map[int]PDBVerdict{}
				order = append(order, v.Method)
			}
			byMethod[v.Method][n] = v
		}
	}
	for _, m := range order {
		fmt.Fprintf(b, "| %s |", m)
		for _, n := range ns {
			if v, ok := byMethod[m][n]; ok {
				fmt.Fprintf(b, " %d / %d / %d of %d", v.Close, v.Flagged, v.SilentOff, v.Posteriors)
				if v.Unchecked > 0 {
					fmt.Fprintf(b, " (%d unchecked)", v.Unchecked)
				}
				b.WriteString(" |")
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// writePDBBudget writes the equal-budget table: per posterior and method at
// N = n, MMD²/floor at the last snapshot within each budget.
func writePDBBudget(b *strings.Builder, cells []*Cell, n int) {
	budgets := PDBBudgets(cells)
	if len(budgets) == 0 {
		return
	}
	b.WriteString("### At equal gradient evaluations\n\n")
	fmt.Fprintf(b, "Every cell ran under the same budget of %s gradient evaluations (its own stopping rule may end it sooner). "+
		"Each entry is MMD²/floor at the run's last evaluated snapshot within the budget (N = %d), the MAP's cost included; "+
		"\"–\" where no seed had an answer within it (HMC has none before its warm-up ends); (k/s) where only k of s seeds had.\n\n",
		sig3(budgets[len(budgets)-1]), n)
	b.WriteString("| posterior | method |")
	for _, g := range budgets {
		fmt.Fprintf(b, " %s |", sig3(g))
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(budgets)) + "\n")
	names, _ := MethodOrder(cells)
	floors := pdbFloors(cells)
	for _, ds := range Datasets(cells) {
		groups := ByMethod(cells, ds)
		for _, name := range names {
			_, atN := byN(groups[name])
			cs := atN[n]
			if len(cs) == 0 {
				continue
			}
			fmt.Fprintf(b, "| %s | %s |", pdbName(ds), name)
			for _, g := range budgets {
				st := pdbBudgetStat(cs, g, floors[ds])
				v := st.MMD2Rel.String()
				if st.Reached > 0 && st.Reached < st.Seeds {
					v += fmt.Sprintf(" (%d/%d)", st.Reached, st.Seeds)
				}
				fmt.Fprintf(b, " %s |", v)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

// pdbFlagged is the sentence on which flags the section counts: every flag
// a method raised, less those its kind's traits leave out
// (KindTraits.FlagNote of the kinds of cells, in the order of their names,
// a note several kinds share written once).
func pdbFlagged(cells []*Cell) string {
	kinds := map[string]string{}
	for _, c := range cells {
		if c.Traits.FlagNote != "" {
			kinds[c.Prov.Kind] = c.Traits.FlagNote
		}
	}
	var notes []string
	for _, k := range SortedKeys(kinds) {
		if !slices.Contains(notes, kinds[k]) {
			notes = append(notes, kinds[k])
		}
	}
	if len(notes) == 0 {
		return "A seed is flagged when its method flagged it. "
	}
	if len(notes) > 1 {
		notes[len(notes)-1] = "and " + notes[len(notes)-1]
	}
	return "A seed is flagged when its method flagged it, less the flags the benchmark's set-up raises at every run: " +
		strings.Join(notes, "; ") + ". "
}

// writePDBUnchecked says, for every run-time check of checks not
// evaluated on some of the benchmark's cells, on how many it was: a seed
// of such a cell counts as unflagged by the check without having been
// checked, so its method's "flagged" may rise and "silently off" fall on
// a rerun ("close" stands: the check changes no number).
func writePDBUnchecked(b *strings.Builder, cells []*Cell, checks []harness.RunCheck) {
	counts := notEvaluated(countChecks(cells, checks))
	if len(counts) == 0 {
		return
	}
	b.WriteString("Not every run-time check was evaluated on every cell; a seed of a cell computed before a check counts as unflagged by it " +
		"without having been checked, so on a rerun its method's \"flagged\" may rise and \"silently off\" fall (\"close\" stands: the checks change no number):\n\n")
	writeChecks(b, counts)
	b.WriteString("\n")
}
