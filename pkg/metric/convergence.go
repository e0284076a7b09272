// Package metric measures how good a particle approximation or a set of
// Markov chains is: discrepancies to the posterior (MMD², KSD), predictive
// metrics (accuracy, RMSE, log-likelihood) and the convergence diagnostics of
// the HMC reference (split-R̂, effective sample size).
//
// # Convergence diagnostics
//
// The draws of M chains of N draws each are given as M matrices, one per
// chain, whose rows are draws. Every chain is split into its first and last
// halves (the middle draw is dropped when N is odd), giving 2M chains of
// n = ⌊N/2⌋ draws, so that a trend inside a chain shows up as disagreement
// between its halves (Gelman et al. 2013).
//
// With chain means x̄ₘ, chain variances sₘ² and their grand mean x̄,
//
//	B = n/(2M−1) Σₘ (x̄ₘ − x̄)²,   W = 1/(2M) Σₘ sₘ²,
//	R̂ = √( ((n−1)/n · W + B/n) / W ).
//
// ClassicSplitRhat computes this on the raw draws. SplitRhat is the
// rank-normalised version of Vehtari et al. (2021): the draws of all chains
// are replaced by the normal scores Φ⁻¹((r − 3/8)/(S + 1/4)) of their pooled
// ranks r (S draws in all, ties get their average rank), which makes R̂
// defined and robust for heavy tails; the bulk R̂ is computed on these scores,
// the tail R̂ on the scores of the folded draws |x − median(x)|, and SplitRhat
// returns the larger of the two. It detects chains stuck in different places
// (bulk) as well as chains that agree in location but not in scale (tail).
//
// The effective sample size follows Stan (Vehtari et al. 2021, Geyer 1992).
// With the biased autocovariances γₘ(t) of each split chain,
//
//	var⁺ = (n−1)/n · W + B/n,   ρ̂(t) = 1 − (W − mean_m γₘ(t)) / var⁺,
//
// the autocorrelations are summed in pairs Pₖ = ρ̂(2k) + ρ̂(2k+1) up to the
// first negative pair (Geyer's initial positive sequence), the pairs are
// made monotonically non-increasing (initial monotone sequence), and
//
//	τ̂ = −1 + 2 Σ_{t<T} ρ̂(t) + ρ̂(T),   ESS = 2Mn / max(τ̂, 1/log₁₀(2Mn)),
//
// where ρ̂(T), the first autocorrelation after the last pair kept, is added
// when positive to reduce the variance in the antithetic case. ESS computes it
// on the raw draws: it is the ESS that sets the Monte Carlo standard error
// sd/√ESS of a posterior mean. BulkESS computes it on the rank-normalised
// draws, as Stan reports "ess_bulk". TailESS is Stan's "ess_tail", the
// smaller ESS of the indicators of the 5 % and 95 % quantiles, and MCSE the
// standard error sd/√ESS of the posterior mean ("mcse_mean").
package metric

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// SplitRhat writes the rank-normalised split-R̂ of every coordinate into dst
// (allocated when nil) and returns it. Values near 1 mean the chains agree;
// Stan's and this project's threshold for trusting them is R̂ < 1.01.
//
// Every chain must have the same dimensions and at least 4 draws.
func SplitRhat(chains []*mat.Dense, dst []float64) []float64 {
	return perCoord(chains, dst, func(w *workspace, j int) float64 {
		w.fold()
		w.zscale()
		tail := rhatBasic(w.split)
		w.load(chains, j)
		w.zscale()
		bulk := rhatBasic(w.split)
		return math.Max(bulk, tail)
	})
}

// ClassicSplitRhat writes the split-R̂ of Gelman et al. (2013) on the raw
// draws of every coordinate into dst (allocated when nil) and returns it. It
// is kept for comparison with older references; SplitRhat is the one to
// trust.
func ClassicSplitRhat(chains []*mat.Dense, dst []float64) []float64 {
	return perCoord(chains, dst, func(w *workspace, _ int) float64 {
		return rhatBasic(w.split)
	})
}

// BulkESS writes the bulk effective sample size (on rank-normalised split
// chains) of every coordinate into dst (allocated when nil) and returns it.
// It measures how well the centre of the distribution is explored and is
// defined even when the variance is not.
func BulkESS(chains []*mat.Dense, dst []float64) []float64 {
	return perCoord(chains, dst, func(w *workspace, _ int) float64 {
		w.zscale()
		return w.essBasic()
	})
}

// ESS writes the effective sample size of the raw split chains of every
// coordinate into dst (allocated when nil) and returns it. The Monte Carlo
// standard error of the posterior mean of coordinate j is sd_j/√ESS_j.
func ESS(chains []*mat.Dense, dst []float64) []float64 {
	return perCoord(chains, dst, func(w *workspace, _ int) float64 {
		return w.essBasic()
	})
}

// perCoord loads the split chains of each coordinate j into one workspace
// in turn and writes f(w, j) into dst[j] (allocated when nil).
func perCoord(chains []*mat.Dense, dst []float64, f func(w *workspace, j int) float64) []float64 {
	w := newWorkspace(chains)
	dst = w.dst(dst)
	for j := range dst {
		w.load(chains, j)
		dst[j] = f(w, j)
	}
	return dst
}

// workspace holds the split chains of one coordinate and the scratch of the
// rank normalisation, reused across coordinates.
type workspace struct {
	m, n, d int         // chains, draws per chain, dimension
	h       int         // draws per split chain
	all     []float64   // the 2M·h draws of one coordinate, split chain after split chain
	split   [][]float64 // views into all
	idx     []int
	means   []float64
	vars    []float64
}

func newWorkspace(chains []*mat.Dense) *workspace {
	if len(chains) == 0 {
		panic("metric: no chains")
	}
	n, d := chains[0].Dims()
	for _, c := range chains[1:] {
		if r, cd := c.Dims(); r != n || cd != d {
			panic("metric: chains of different dimensions")
		}
	}
	if n < 4 {
		panic("metric: fewer than 4 draws per chain")
	}
	m := len(chains)
	h := n / 2
	w := &workspace{
		m: m, n: n, d: d, h: h,
		all:   make([]float64, 2*m*h),
		split: make([][]float64, 2*m),
		idx:   make([]int, 2*m*h),
		means: make([]float64, 2*m),
		vars:  make([]float64, 2*m),
	}
	for k := range w.split {
		w.split[k] = w.all[k*h : (k+1)*h]
	}
	return w
}

func (w *workspace) dst(dst []float64) []float64 {
	if dst == nil {
		return make([]float64, w.d)
	}
	if len(dst) != w.d {
		panic("metric: destination length mismatch")
	}
	return dst
}

// load copies coordinate j of every chain into the split chains.
func (w *workspace) load(chains []*mat.Dense, j int) {
	for c, ch := range chains {
		first, second := w.split[2*c], w.split[2*c+1]
		for i := 0; i < w.h; i++ {
			first[i] = ch.At(i, j)
			second[i] = ch.At(w.n-w.h+i, j)
		}
	}
}

// fold replaces the draws by their absolute deviation from the pooled median.
func (w *workspace) fold() {
	for i := range w.idx {
		w.idx[i] = i
	}
	sort.Slice(w.idx, func(a, b int) bool { return w.all[w.idx[a]] < w.all[w.idx[b]] })
	s := len(w.idx)
	var med float64
	if s%2 == 1 {
		med = w.all[w.idx[s/2]]
	} else {
		med = 0.5 * (w.all[w.idx[s/2-1]] + w.all[w.idx[s/2]])
	}
	for i, v := range w.all {
		w.all[i] = math.Abs(v - med)
	}
}

// zscale replaces the draws by the normal scores of their pooled ranks, ties
// getting their average rank.
func (w *workspace) zscale() {
	for i := range w.idx {
		w.idx[i] = i
	}
	sort.Slice(w.idx, func(a, b int) bool { return w.all[w.idx[a]] < w.all[w.idx[b]] })
	s := len(w.idx)
	den := float64(s) + 0.25
	for lo := 0; lo < s; {
		hi := lo + 1
		for hi < s && w.all[w.idx[hi]] == w.all[w.idx[lo]] {
			hi++
		}
		// Ranks lo+1 … hi share their average.
		r := 0.5 * float64(lo+1+hi)
		z := distuv.UnitNormal.Quantile((r - 0.375) / den)
		for k := lo; k < hi; k++ {
			w.all[w.idx[k]] = z
		}
		lo = hi
	}
}

// meanVar returns the mean and the unbiased variance of x.
func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}

// rhatBasic is the split-R̂ of already split chains.
func rhatBasic(split [][]float64) float64 {
	m := len(split)
	n := float64(len(split[0]))
	var grand, w float64
	means := make([]float64, m)
	for k, s := range split {
		mu, v := meanVar(s)
		means[k] = mu
		grand += mu
		w += v
	}
	grand /= float64(m)
	w /= float64(m)
	var b float64
	for _, mu := range means {
		b += (mu - grand) * (mu - grand)
	}
	b *= n / float64(m-1)
	return math.Sqrt(((n-1)/n*w + b/n) / w)
}

// acov returns the mean over split chains of the biased autocovariance at
// lag t.
func (w *workspace) acov(t int) float64 {
	var sum float64
	for k, s := range w.split {
		mu := w.means[k]
		var a float64
		for i := 0; i+t < len(s); i++ {
			a += (s[i] - mu) * (s[i+t] - mu)
		}
		sum += a / float64(len(s))
	}
	return sum / float64(len(w.split))
}

// essBasic is Stan's effective sample size of the split chains in w.
func (w *workspace) essBasic() float64 {
	m := len(w.split)
	n := w.h
	var grand, wbar float64
	for k, s := range w.split {
		mu, v := meanVar(s)
		w.means[k] = mu
		w.vars[k] = v
		grand += mu
		wbar += v
	}
	grand /= float64(m)
	wbar /= float64(m)
	varPlus := wbar * float64(n-1) / float64(n)
	if m > 1 {
		var b float64
		for _, mu := range w.means {
			b += (mu - grand) * (mu - grand)
		}
		varPlus += b / float64(m-1)
	}
	if !(varPlus > 0) {
		return math.NaN()
	}
	rho := func(t int) float64 { return 1 - (wbar-w.acov(t))/varPlus }

	// Geyer's initial positive sequence over pairs (ρ̂(t), ρ̂(t+1)), t even.
	r := make([]float64, 2, 64)
	r[0] = 1
	r[1] = rho(1)
	even, odd := r[0], r[1]
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = rho(t)
		odd = rho(t + 1)
		if even+odd >= 0 {
			r = append(r, even, odd)
		}
	}
	maxT := t
	// r may be shorter than maxT+1 when the last pair was negative.
	for len(r) < maxT+2 {
		r = append(r, 0)
	}
	if even > 0 {
		r[maxT] = even
	}
	// Geyer's initial monotone sequence.
	for t := 2; t <= maxT-2; t += 2 {
		if r[t]+r[t+1] > r[t-2]+r[t-1] {
			r[t] = 0.5 * (r[t-2] + r[t-1])
			r[t+1] = r[t]
		}
	}
	total := float64(m * n)
	tau := -1.0
	for _, v := range r[:maxT] {
		tau += 2 * v
	}
	tau += r[maxT]
	tau = math.Max(tau, 1/math.Log10(total))
	return total / tau
}
