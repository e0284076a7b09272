package metric

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Rules of the mass-balance test of DiagnoseSet (flag "balance"):
// docs/DECISIONS.md, "Flags that mean something".
const (
	// BalanceMaxDim is the largest dimension in which the test runs: the
	// groups' gap is told from the particles' own spacing, which in high
	// dimension is as large as a group's radius.
	BalanceMaxDim = 10
	// BalanceMinGroup is the fewest particles of each of the two groups.
	BalanceMinGroup = 3
	// BalanceSeparation: the set is cut in two at the longest edge of its
	// minimum spanning tree (coordinates standardised by the set's sds),
	// and the two groups are well separated when their means lie at least
	// BalanceSeparation pooled within-group sds apart along the line that
	// joins them (pooled sds standardising the coordinates). A Gaussian
	// cut by a plane through its mean gives about 2.7; two modes this far
	// apart have a trough of density between them.
	BalanceSeparation = 4.0
	// BalanceTrough: the groups are two modes when the target's log
	// density somewhere between their means (at the quarter points of the
	// segment) lies more than BalanceTrough below its value at the lower
	// of the two means (a density e ≈ 2.7 times lower). Along a segment a
	// log-concave target has no trough: the test cannot split it.
	BalanceTrough = 1.0
	// BalanceProposal is the width of each group's importance law,
	// N(mₖ, diag (BalanceProposal·sₖⱼ)²), sₖⱼ the group's weighted sds.
	BalanceProposal = 1.5
	// BalanceMinESS is the fewest effective importance draws (Kish's ESS
	// of p/q) per group for the target's mass estimate to be judged.
	BalanceMinESS = 8
	// BalanceZ and BalanceMinDiff: the set is flagged when the weight it
	// puts on one group differs from the target's mass there by more than
	// BalanceMinDiff and by more than BalanceZ binomial standard errors of
	// as many independent draws as the set's Kish ESS.
	BalanceZ       = 2.5
	BalanceMinDiff = 0.1
	// BalanceCuts is the number of the minimum spanning tree's longest
	// edges tried as the cut between two groups.
	BalanceCuts = 8
	// MaxBalanceProbes is the most target evaluations the test spends.
	MaxBalanceProbes = 128
	// BalanceMaxRows is the most rows the split into two groups reads: a
	// larger set (SGLD keeps thousands of draws) is split on every k-th
	// row, k = ⌈n/BalanceMaxRows⌉, since the minimum spanning tree costs
	// O(n²d); the weights on each side are then those of every row.
	BalanceMaxRows = 400
)

// balanceSplit cuts the set (its rows, a its absolute weights normalised)
// at the longest edge of its minimum spanning tree in coordinates
// standardised by sd, and returns the two groups' weighted means and sds
// when each has at least BalanceMinGroup rows, they are well separated
// (BalanceSeparation) and the target has a trough between them
// (BalanceTrough), with the target evaluations spent.
func balanceSplit(X *mat.Dense, a, m, sd []float64, t target.Target) (mA, mB, sA, sB []float64, evals int, ok bool) {
	n, d := X.Dims()
	if n < 2*BalanceMinGroup {
		return nil, nil, nil, nil, 0, false
	}
	z := func(i, j int) float64 { // standardised coordinate j of row i
		if sd[j] > 0 {
			return (X.At(i, j) - m[j]) / sd[j]
		}
		return 0
	}
	dist2 := func(i, k int) float64 {
		var s float64
		for j := range d {
			u := z(i, j) - z(k, j)
			s += u * u
		}
		return s
	}
	// Prim's minimum spanning tree, O(n²d).
	in := make([]bool, n)
	best := make([]float64, n)
	parent := make([]int, n)
	for i := range best {
		best[i], parent[i] = math.Inf(1), -1
	}
	best[0] = 0
	for range n {
		u := -1
		for i := range n {
			if !in[i] && (u < 0 || best[i] < best[u]) {
				u = i
			}
		}
		in[u] = true
		for i := range n {
			if !in[i] {
				if l := dist2(u, i); l < best[i] {
					best[i], parent[i] = l, u
				}
			}
		}
	}
	// The tree's edges (parent[k], k) by decreasing length: each cut in
	// turn, up to BalanceCuts of them, until one gives two well-separated
	// groups.
	order := make([]int, 0, n-1)
	for k := range n {
		if parent[k] >= 0 {
			order = append(order, k)
		}
	}
	slices.SortFunc(order, func(i, k int) int { return cmp.Compare(best[k], best[i]) })
	inB := make([]bool, n)
	for _, cut := range order[:min(len(order), BalanceCuts)] {
		// The component of cut once its edge is cut: the rows whose path
		// to the root passes through it.
		for i := range n {
			inB[i] = false
			for v := i; v >= 0; v = parent[v] {
				if v == cut {
					inB[i] = true
					break
				}
			}
		}
		if mA, mB, sA, sB, ok := separated(X, a, inB); ok {
			ok, e := trough(t, mA, mB)
			evals += e
			if ok {
				return mA, mB, sA, sB, evals, true
			}
		}
	}
	return nil, nil, nil, nil, evals, false
}

// trough reports whether the target's log density falls, somewhere on the
// segment between mA and mB (at its quarter points), more than
// BalanceTrough below its lower end: two modes, not one cut in two. It
// returns the evaluations spent.
func trough(t target.Target, mA, mB []float64) (bool, int) {
	d := len(mA)
	g := make([]float64, d)
	y := make([]float64, d)
	at := func(s float64) float64 {
		for j := range y {
			y[j] = mA[j] + s*(mB[j]-mA[j])
		}
		return t.LogProbGrad(y, g)
	}
	ends := math.Min(at(0), at(1))
	low := math.Inf(1)
	for _, s := range []float64{0.25, 0.5, 0.75} {
		low = math.Min(low, at(s)) // NaN stays out
	}
	return low < ends-BalanceTrough, 5
}

// separated returns the weighted means and sds of the rows of X outside
// and inside inB (a their absolute weights) when each group has at least
// BalanceMinGroup rows and they are well separated (BalanceSeparation).
func separated(X *mat.Dense, a []float64, inB []bool) (mA, mB, sA, sB []float64, ok bool) {
	n, d := X.Dims()
	group := func(b bool) (mean, sds []float64, tw float64, rows int) {
		mean, sds = make([]float64, d), make([]float64, d)
		for i := range n {
			if inB[i] == b {
				rows++
				tw += a[i]
				for j := range d {
					mean[j] += a[i] * X.At(i, j)
				}
			}
		}
		if !(tw > 0) {
			return nil, nil, 0, 0
		}
		for j := range d {
			mean[j] /= tw
		}
		for i := range n {
			if inB[i] == b {
				for j := range d {
					u := X.At(i, j) - mean[j]
					sds[j] += a[i] / tw * u * u
				}
			}
		}
		for j := range sds {
			sds[j] = math.Sqrt(sds[j])
		}
		return mean, sds, tw, rows
	}
	mA, sA, tA, nA := group(false)
	mB, sB, tB, nB := group(true)
	if nA < BalanceMinGroup || nB < BalanceMinGroup || mA == nil || mB == nil {
		return nil, nil, nil, nil, false
	}
	// The separation along the line of the groups' means, in coordinates
	// standardised by the pooled within-group sds: the distance of the
	// means over the pooled within-group sd along that line.
	ps := make([]float64, d) // pooled within-group sds
	e := make([]float64, d)  // the line of the means, standardised
	var dist2m float64
	for j := range d {
		ps[j] = math.Sqrt((tA*sA[j]*sA[j] + tB*sB[j]*sB[j]) / (tA + tB))
		if ps[j] > 0 {
			e[j] = (mB[j] - mA[j]) / ps[j]
			dist2m += e[j] * e[j]
		}
	}
	if !(dist2m > 0) {
		return nil, nil, nil, nil, false
	}
	for j := range e {
		e[j] /= math.Sqrt(dist2m)
	}
	var v float64
	for i := range n {
		mk := mA
		if inB[i] {
			mk = mB
		}
		var p float64
		for j := range d {
			if ps[j] > 0 {
				p += e[j] * (X.At(i, j) - mk[j]) / ps[j]
			}
		}
		v += a[i] * p * p
	}
	if !(math.Sqrt(dist2m) >= BalanceSeparation*math.Sqrt(v)) {
		return nil, nil, nil, nil, false
	}
	return mA, mB, sA, sB, true
}

// balanceDiagnostics runs the mass-balance test on a set in dim ≤
// BalanceMaxDim with probes target evaluations: when the set falls into
// two well-separated groups (balanceSplit), it splits the space between
// them by the nearer group mean (standardised by the set's sds),
// estimates the target's mass on each side by importance sampling from
// the group's law N(mₖ, diag (BalanceProposal·sₖⱼ)²) (draws on the other
// side count zero), and compares it with the set's absolute weight on
// that side. It records balance_weight and balance_mass (the first
// group's shares) and raises "balance" when they differ by more than
// BalanceMinDiff and BalanceZ standard errors of Kish-ESS independent
// draws; it records "balance" as unchecked when the importance estimate
// has fewer than BalanceMinESS effective draws on a side. It returns the
// evaluations spent (0 when the set is not split).
func balanceDiagnostics(d *particle.Diagnostics, X *mat.Dense, w, a []float64, t target.Target, probes int) int {
	n, dim := X.Dims()
	if dim > BalanceMaxDim || probes < 2*BalanceMinESS {
		return 0
	}
	// The set's |w|-weighted means and sds.
	m, sd := make([]float64, dim), make([]float64, dim)
	for i := range n {
		for j, v := range X.RawRowView(i) {
			m[j] += a[i] * v
		}
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			sd[j] += a[i] * (v - m[j]) * (v - m[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j])
	}
	Xs, as := X, a
	if n > BalanceMaxRows {
		k := (n + BalanceMaxRows - 1) / BalanceMaxRows
		rows := (n + k - 1) / k
		Xs, as = mat.NewDense(rows, dim, nil), make([]float64, rows)
		var tot float64
		for r := range rows {
			Xs.SetRow(r, X.RawRowView(r*k))
			as[r] = a[r*k]
			tot += as[r]
		}
		if !(tot > 0) {
			return 0
		}
		for r := range as {
			as[r] /= tot
		}
	}
	mA, mB, sA, sB, spent, ok := balanceSplit(Xs, as, m, sd, t)
	if !ok {
		return spent
	}
	sideA := func(x []float64) bool {
		var dA, dB float64
		for j, v := range x {
			if sd[j] > 0 {
				u, v2 := (v-mA[j])/sd[j], (v-mB[j])/sd[j]
				dA += u * u
				dB += v2 * v2
			}
		}
		return dA <= dB
	}
	var wA float64
	for i := range n {
		if sideA(X.RawRowView(i)) {
			wA += a[i]
		}
	}
	// Importance estimates of the mass on each side, in logs.
	rng := rand.New(rand.NewPCG(0x6d6d6466772d6261, 0x6c616e6365000000))
	per := probes / 2
	y := make([]float64, dim)
	g := make([]float64, dim)
	logZ := func(mk, sk []float64, onA bool) (lz, ess float64) {
		s := make([]float64, dim)
		for j := range s {
			s[j] = BalanceProposal * math.Max(sk[j], 0.05*sd[j])
		}
		var lw []float64
		for range per {
			var lq float64
			for j := range y {
				e := rng.NormFloat64()
				y[j] = mk[j] + s[j]*e
				lq += -0.5*e*e - math.Log(s[j])
			}
			lp := t.LogProbGrad(y, g)
			if sideA(y) != onA || math.IsNaN(lp) || math.IsInf(lp, 0) {
				continue
			}
			lw = append(lw, lp-lq)
		}
		if len(lw) == 0 {
			return math.Inf(-1), 0
		}
		top := slices.Max(lw)
		var s1, s2 float64
		for _, v := range lw {
			e := math.Exp(v - top)
			s1 += e
			s2 += e * e
		}
		return top + math.Log(s1/float64(per)), s1 * s1 / s2
	}
	lzA, essA := logZ(mA, sA, true)
	lzB, essB := logZ(mB, sB, false)
	spent += 2 * per
	if !(essA >= BalanceMinESS && essB >= BalanceMinESS) {
		d.Skip("balance", "the set falls into two separated groups, but the importance estimate of the target's mass has %.3g and %.3g effective draws (fewer than %d)",
			essA, essB, BalanceMinESS)
		return spent
	}
	piA := 1 / (1 + math.Exp(lzB-lzA))
	ess := particle.Set{W: w}.ESS()
	se := math.Sqrt(piA * (1 - piA) / ess)
	d.Set("balance_weight", wA)
	d.Set("balance_mass", piA)
	if diff := math.Abs(wA - piA); diff > BalanceMinDiff && diff > BalanceZ*se {
		d.Raise("balance", "the set falls into two separated groups with %.3g and %.3g of its weight where the target has about %.3g and %.3g of its mass "+
			"(importance estimate, %d draws): off by %.3g, %.3g standard errors of %.3g independent draws",
			wA, 1-wA, piA, 1-piA, 2*per, diff, diff/se, ess)
	}
	return spent
}
