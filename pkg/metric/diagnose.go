package metric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Rules of the diagnostics of a particle set (DiagnoseSet); docs/DECISIONS.md
// (Diagnostics) gives their reasons.
const (
	// CollapseRatio is the Stein spread ratio below which a set is flagged
	// "collapse": its spread, in the target's own metric, is less than about
	// half the target's.
	CollapseRatio = 0.25
	// DiagFraction bounds the target evaluations of the diagnostics (the
	// scores of a subsample, the probes) by this share of the run's own
	// per-datapoint gradient evaluations (DiagBudget).
	DiagFraction = 0.05
	// MaxProbes is the largest number of probes of the missed-mode test.
	MaxProbes = 256
	// ProbeScale is the width of the probes' law, N(m, diag (ProbeScale·σⱼ)²)
	// around the set's weighted mean m with its weighted sds σⱼ.
	ProbeScale = 3.0
	// CoverFactor and MinCover: a probe is uncovered when the particles
	// within CoverFactor·ρ of it, ρ the set's weighted root-mean-square
	// distance from its mean, carry less than MinCover of the (absolute)
	// weight.
	CoverFactor = 1.5
	MinCover    = 0.05
	// ProbeQuantile: an uncovered probe counts when its log density reaches
	// the set's weighted ProbeQuantile-quantile of log p over its particles.
	ProbeQuantile = 0.1
	// MaxKSDPoints caps the particles of the KSD²: a larger set is thinned
	// to every ⌈n/MaxKSDPoints⌉-th row, its weights renormalised.
	MaxKSDPoints = 1000
	// MinScored and MaxScored bound the subsample whose scores a method
	// evaluates for its diagnostics when it has none cached (SVGD, SGLD):
	// fewer than MinScored within the budget, and none are evaluated.
	MinScored = 20
	MaxScored = 200
)

// DiagBudget returns the number of full-data log-density evaluations that
// the diagnostics of a run may spend: DiagFraction of the run's gradEvals
// per-datapoint gradient evaluations, in units of one full-data evaluation
// (ndata per-datapoint evaluations).
func DiagBudget(gradEvals int64, ndata int) int {
	if ndata < 1 {
		ndata = 1
	}
	return int(DiagFraction * float64(gradEvals) / float64(ndata))
}

// SplitBudget divides a budget of full-data evaluations between the scores
// of a subsample of n particles and the probes, for a method that has no
// cached scores: scored = min(n, MaxScored, budget/2) particles, or none when
// that is below MinScored (then no probes either, since they are compared
// with the particles' log densities), and the rest, at most MaxProbes, for
// the probes.
func SplitBudget(n, budget int) (scored, probes int) {
	scored = min(n, MaxScored, budget/2)
	if scored < MinScored {
		return 0, 0
	}
	return scored, min(MaxProbes, budget-scored)
}

// Thin returns m row indices of n spread evenly, 0 first: ⌊i·n/m⌋.
func Thin(n, m int) []int {
	m = min(m, n)
	rows := make([]int, m)
	for i := range rows {
		rows[i] = i * n / m
	}
	return rows
}

// SetDiagnosis is what DiagnoseSet looks at.
type SetDiagnosis struct {
	// X (n×d) and W are the particles and weights of the set.
	X *mat.Dense
	W []float64
	// Rows lists the rows of X that S and LogP describe; nil means every
	// row, in order.
	Rows []int
	// S holds the full-data scores ∇log p of the rows Rows of X, one per
	// row (nil: none, and no KSD² nor spread ratio); LogP their log
	// densities (nil: none, and no probes).
	S    *mat.Dense
	LogP []float64
	// Target is evaluated at Probes probes (at most MaxProbes; 0 or a nil
	// Target: no missed-mode test).
	Target target.Target
	Probes int
}

// DiagnoseSet records in d the diagnostics of a weighted particle set and
// raises its flags:
//
//   - kish_ess, Kish's effective sample size (Σw)²/Σw² of the weights;
//   - ksd2, the kernel Stein discrepancy Σᵢⱼ w̃ᵢw̃ⱼ k₀(xᵢ, xⱼ) with the IMQ
//     kernel c = 1, β = −½ (KSD2 with a nil kernel) over the rows with
//     scores (thinned to MaxKSDPoints), weights renormalised to sum to one;
//   - ksd_ratio, that KSD² over its diagonal part Σᵢ w̃ᵢ² k₀(xᵢ, xᵢ), which
//     is its expectation for independent draws of the target (the
//     off-diagonal terms have mean zero): about 1 for such draws, below 1
//     for a set more regular than they are (Stein sets, quadratures), and
//     n/R is the number of independent draws whose expected KSD² equals the
//     set's. It raises no flag (docs/DECISIONS.md: a set of SVGD on a
//     two-mode mixture that is right in every moment has a ratio of 5);
//   - stein_spread, the Stein spread ratio
//     v = −(1/d) Σⱼ Σᵢ w̃ᵢ (xᵢⱼ − mⱼ) ∂ⱼlog p(xᵢ),
//     with w̃ᵢ = wᵢ/Σw, the set's own weights normalised (the quadrature
//     Σᵢ w̃ᵢ f(xᵢ) that the set offers for every expectation, signed for
//     Bayesian-quadrature weights), and m the w̃-weighted mean. For the target
//     itself v = 1 exactly (integration by parts: E_p[(xⱼ − mⱼ)∂ⱼlog p] =
//     −1 when p vanishes at its boundary), and for a set of covariance C on
//     a Gaussian target of covariance Σ it is tr(CΣ⁻¹)/d, whatever the
//     set's location: the set's spread relative to the target's. (With
//     |w| in place of signed weights, a Bayesian-quadrature set whose
//     large weights of both signs sit on close particles would read as
//     collapsed while its quadrature spreads as the target does.) A set
//     with |v| < CollapseRatio is flagged "collapse", one with
//     v > 1/CollapseRatio "spread" (over-dispersed), and one with
//     v < −CollapseRatio, which no set close to the target gives (the
//     particles sit where the score points away from their mean, as in
//     the gap of a bimodal target), "stein";
//   - probes and uncovered, the missed-mode test: Probes points drawn
//     from N(m, diag (ProbeScale·σⱼ)²), σⱼ the w̃-weighted sds (none when
//     signed weights make a variance negative), from a fixed
//     stream (the diagnostics neither consume nor depend on the run's
//     randomness); a probe is uncovered when the particles within
//     CoverFactor·ρ of it (ρ² = Σⱼ σⱼ²) carry less than MinCover of the
//     absolute weight |w|/Σ|w| while its log density reaches the
//     |w|-weighted ProbeQuantile-quantile of the particles' log densities.
//     Any uncovered probe flags the set "mode": a region at least as
//     probable as the set's own tenth percentile that the set does not
//     reach, a missed mode in low dimension. In high dimension the probes'
//     log densities fall far below a good set's (by about 4d on a
//     Gaussian), and only a set whose own log densities are poor can be
//     flagged. Non-finite log densities at probes are ignored (the probes
//     are not points of the method).
//   - balance_weight and balance_mass, the mass-balance test, in
//     dimension at most BalanceMaxDim, with up to half as many target
//     evaluations again as the probes (the missed-mode test keeps all of
//     its own), spent only on a set that falls into two well-separated
//     groups with a trough of the target between them (balanceSplit: a
//     cut of its minimum spanning tree, BalanceSeparation, BalanceTrough;
//     a few evaluations per candidate cut): the set's weight on the side of
//     the first group (space split by the nearer group mean) and the
//     target's mass there, estimated by importance sampling from each
//     group's Gaussian law widened by BalanceProposal. They differ by
//     more than BalanceMinDiff and BalanceZ binomial standard errors of
//     Kish-ESS independent draws: flag "balance", mass split between the
//     modes other than the target splits it.
//
// A check that cannot run on the set is listed in d.Unchecked with the
// reason, never passed over in silence: "stein" when S is nil (SVGD and
// SGLD score no subsample below MinScored particles, SplitBudget) or the
// weights sum to zero, "mode" without log densities, probes or a law to
// draw them from, "balance" when the importance estimate is too poor
// (BalanceMinESS). An unflagged set with an unchecked check is not a
// clean one.
//
// The set's rows must be finite; S and LogP finite (methods check them
// before). DiagnoseSet never modifies its inputs.
func DiagnoseSet(d *particle.Diagnostics, in SetDiagnosis) {
	n, dim := in.X.Dims()
	if n == 0 || len(in.W) != n {
		return
	}
	d.Set("kish_ess", particle.Set{W: in.W}.ESS())
	var tot float64
	for _, w := range in.W {
		tot += math.Abs(w)
	}
	if !(tot > 0) {
		d.Skip("stein", "the set's weights are all zero")
		d.Skip("mode", "the set's weights are all zero")
		return
	}
	a := make([]float64, n) // |w|/Σ|w|
	for i, w := range in.W {
		a[i] = math.Abs(w) / tot
	}
	rows := in.Rows
	if rows == nil {
		rows = Thin(n, n)
	}
	noScores := fmt.Sprintf("no full-data scores of the set: its %d particles are fewer than the %d (metric.MinScored) a spread ratio needs", n, MinScored)
	if n >= MinScored {
		noScores = fmt.Sprintf("no full-data scores of the set: the diagnostics' budget (metric.DiagBudget) pays for fewer than %d (metric.MinScored)", MinScored)
	}
	if in.S != nil {
		steinDiagnostics(d, in.X, in.W, rows, in.S)
	} else {
		d.Skip("stein", "%s", noScores)
	}
	switch {
	case in.LogP == nil || in.Target == nil:
		d.Skip("mode", "%s", noScores)
	case in.Probes <= 0:
		d.Skip("mode", "no probe within the diagnostics' budget (metric.DiagBudget)")
	default:
		probes := min(in.Probes, MaxProbes)
		balanceDiagnostics(d, in.X, in.W, a, in.Target, min(probes/2, MaxBalanceProbes))
		probeDiagnostics(d, in.X, in.W, a, rows, in.LogP, in.Target, probes, dim)
	}
}

// steinDiagnostics records ksd2 and stein_spread and raises "collapse".
func steinDiagnostics(d *particle.Diagnostics, X *mat.Dense, w []float64, rows []int, S *mat.Dense) {
	_, dim := X.Dims()
	// KSD² over at most MaxKSDPoints of the rows, with the set's own
	// (signed) weights renormalised.
	sub := Thin(len(rows), MaxKSDPoints)
	xs := mat.NewDense(len(sub), dim, nil)
	ss := mat.NewDense(len(sub), dim, nil)
	ws := make([]float64, len(sub))
	var sw float64
	for k, r := range sub {
		xs.SetRow(k, X.RawRowView(rows[r]))
		ss.SetRow(k, S.RawRowView(r))
		ws[k] = w[rows[r]]
		sw += ws[k]
	}
	if sw > 0 {
		for k := range ws {
			ws[k] /= sw
		}
		sum, diag := ksd2Diag(kernel.IMQ{}, xs, ss, ws)
		d.Set("ksd2", sum)
		if diag > 0 {
			d.Set("ksd_ratio", sum/diag)
		}
	}

	// The spread ratios over every row with a score, with the set's own
	// weights normalised over those rows, c = w/Σw: the quadrature the set
	// offers for every expectation. For non-negative weights c = |w|/Σ|w|.
	var cw float64
	for _, r := range rows {
		cw += w[r]
	}
	if !(cw > 0) {
		// No quadrature: weights summing to zero or less.
		d.Skip("stein", "the set's weights sum to %.3g: no quadrature to take the spread ratio of", cw)
		return
	}
	m := make([]float64, dim)
	for _, r := range rows {
		for j, v := range X.RawRowView(r) {
			m[j] += w[r] / cw * v
		}
	}
	var v float64
	for k, r := range rows {
		s := S.RawRowView(k)
		for j, x := range X.RawRowView(r) {
			v -= w[r] / cw * (x - m[j]) * s[j]
		}
	}
	v /= float64(dim)
	d.Set("stein_spread", v)
	switch {
	case v < -CollapseRatio:
		d.Raise("stein", "the Stein spread ratio −E[(x−m)·∇log p]/d is %.3g < −%g (1 for the target): "+
			"the particles lie where the score points away from their mean (between modes, or far from converged)", v, CollapseRatio)
	case v > 1/CollapseRatio:
		d.Raise("spread", "the set's spread is %.3g times the target's by the Stein identity "+
			"(−E[(x−m)·∇log p]/d, 1 for the target; above %g)", v, 1/CollapseRatio)
	case v < CollapseRatio:
		d.Raise("collapse", "the set's spread is %.3g of the target's by the Stein identity "+
			"(−E[(x−m)·∇log p]/d, 1 for the target; below %g)", v, CollapseRatio)
	}
}

// probeDiagnostics runs the missed-mode test and raises "mode".
func probeDiagnostics(d *particle.Diagnostics, X *mat.Dense, w, a []float64, rows []int, lp []float64,
	t target.Target, probes, dim int) {
	n, _ := X.Dims()
	// The probes' law and reach: the mean and sds of the set's own
	// quadrature, c = w/Σw (|w|/Σ|w| for non-negative weights).
	var cw float64
	for _, v := range w {
		cw += v
	}
	if !(cw > 0) {
		d.Skip("mode", "the set's weights sum to %.3g: no law to draw the probes from", cw)
		return
	}
	m := make([]float64, dim)
	sd := make([]float64, dim)
	for i := 0; i < n; i++ {
		for j, v := range X.RawRowView(i) {
			m[j] += w[i] / cw * v
		}
	}
	var rho2 float64
	for i := 0; i < n; i++ {
		for j, v := range X.RawRowView(i) {
			sd[j] += w[i] / cw * (v - m[j]) * (v - m[j])
		}
	}
	for j := range sd {
		if sd[j] < 0 {
			// Signed weights whose quadrature gives a negative
			// variance: no law to draw the probes from.
			d.Skip("mode", "the set's signed weights give coordinate %d a negative variance: no law to draw the probes from", j)
			return
		}
		rho2 += sd[j]
		sd[j] = math.Sqrt(sd[j])
	}
	// The weighted quantile of the particles' log densities.
	type pair struct{ lp, a float64 }
	ps := make([]pair, len(rows))
	var at float64
	for k, r := range rows {
		ps[k] = pair{lp[k], a[r]}
		at += a[r]
	}
	if !(at > 0) {
		d.Skip("mode", "the particles with log densities carry no weight")
		return
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].lp < ps[j].lp })
	level := ps[len(ps)-1].lp
	var c float64
	for _, p := range ps {
		c += p.a / at
		if c >= ProbeQuantile {
			level = p.lp
			break
		}
	}
	reach := CoverFactor * math.Sqrt(rho2)
	reach2 := reach * reach

	rng := rand.New(rand.NewPCG(0x6d6d6466772d6469, 0x61672d70726f6265))
	y := make([]float64, dim)
	g := make([]float64, dim)
	uncovered := 0
	bestLP := math.Inf(-1)
	var best []float64
	for range probes {
		for j := range y {
			y[j] = m[j] + ProbeScale*sd[j]*rng.NormFloat64()
		}
		v := t.LogProbGrad(y, g)
		if !(v >= level) || math.IsInf(v, 1) { // NaN and −∞ included
			continue
		}
		var near float64 // weight within reach
		for i := 0; i < n && near < MinCover; i++ {
			var s float64
			for j, x := range X.RawRowView(i) {
				s += (x - y[j]) * (x - y[j])
			}
			if s <= reach2 {
				near += a[i]
			}
		}
		if near < MinCover {
			uncovered++
			if v > bestLP {
				bestLP = v
				best = append(best[:0], y...)
			}
		}
	}
	d.Set("probes", float64(probes))
	d.Set("uncovered", float64(uncovered))
	if uncovered > 0 {
		at := ""
		if dim <= 4 {
			parts := make([]string, dim)
			for j, v := range best {
				parts[j] = fmt.Sprintf("%.3g", v)
			}
			at = " at (" + strings.Join(parts, ", ") + ")"
		}
		d.Raise("mode", "%d of %d probes reach the set's %g%% log-density quantile %.4g with less than %g%% of its weight "+
			"within %.3g (%g × its spread); the most probable%s has log density %.4g: "+
			"the set misses probable mass (a mode, or a part it does not cover)",
			uncovered, probes, 100*ProbeQuantile, level, 100*MinCover, reach, CoverFactor, at, bestLP)
	}
}
