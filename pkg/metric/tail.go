package metric

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// TailESS writes the tail effective sample size of every coordinate into dst
// (allocated when nil) and returns it: Stan's "ess_tail", the smaller of the
// effective sample sizes of the indicators I(x ≤ q₀.₀₅) and I(x ≤ q₀.₉₅) on
// the split chains, where q_p is the p-quantile of the pooled draws. It
// measures how well the 5 % and 95 % quantiles are estimated; a value well
// below BulkESS means the chains visit the tails rarely. It is NaN when an
// indicator is constant.
//
// Every chain must have the same dimensions and at least 4 draws.
func TailESS(chains []*mat.Dense, dst []float64) []float64 {
	w := newWorkspace(chains)
	dst = w.dst(dst)
	sorted := make([]float64, len(w.all))
	for j := range dst {
		w.load(chains, j)
		copy(sorted, w.all)
		sort.Float64s(sorted)
		ess := math.Inf(1)
		for _, p := range [...]float64{0.05, 0.95} {
			q := quantileSorted(sorted, p)
			w.load(chains, j)
			for i, v := range w.all {
				if v <= q {
					w.all[i] = 1
				} else {
					w.all[i] = 0
				}
			}
			e := w.essBasic()
			if math.IsNaN(e) {
				ess = e
				break
			}
			ess = math.Min(ess, e)
		}
		dst[j] = ess
	}
	return dst
}

// MCSE writes the Monte Carlo standard error of the posterior mean of every
// coordinate into dst (allocated when nil) and returns it:
//
//	MCSE_j = sd_j / √ESS_j,
//
// with sd_j the standard deviation of all draws of coordinate j and ESS_j
// the effective sample size of the raw split chains (ESS), Stan's
// "mcse_mean".
//
// Every chain must have the same dimensions and at least 4 draws.
func MCSE(chains []*mat.Dense, dst []float64) []float64 {
	ess := ESS(chains, nil)
	n, d := chains[0].Dims()
	if dst == nil {
		dst = make([]float64, d)
	}
	col := make([]float64, 0, n*len(chains))
	for j := range dst {
		col = col[:0]
		for _, c := range chains {
			for i := 0; i < n; i++ {
				col = append(col, c.At(i, j))
			}
		}
		_, v := meanVar(col)
		dst[j] = math.Sqrt(v / ess[j])
	}
	return dst
}

// Quantile returns the p-quantile of the sorted values x, interpolating
// linearly between order statistics (x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])
// with h = (len(x) − 1)·p, R's type 7).
func Quantile(x []float64, p float64) float64 {
	if len(x) == 0 || p < 0 || p > 1 || math.IsNaN(p) {
		panic("metric: Quantile of no values or p outside [0, 1]")
	}
	return quantileSorted(x, p)
}

func quantileSorted(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}
