package posteriordb

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
)

// DefaultMedianDraws is the number of reference draws, spread over every
// chain, whose pairwise distances set the median-heuristic bandwidth.
const DefaultMedianDraws = 1000

// CompareSettings configure a Comparison. The zero value reads every
// reference draw in the MMD² and sets the bandwidth by the median
// heuristic on DefaultMedianDraws draws.
type CompareSettings struct {
	// MMDDraws bounds the reference draws the MMD² and its floor read:
	// ⌊MMDDraws/C⌋ from each of the C chains at an even stride. Zero (or
	// at least the number of draws) reads all of them.
	MMDDraws int
	// MedianDraws bounds the draws of the median heuristic, spread over
	// every chain likewise. Zero means DefaultMedianDraws.
	MedianDraws int
	// Bandwidth fixes the RBF bandwidth h of the standardised draws; zero
	// means the median heuristic.
	Bandwidth float64
}

// Comparison is a reference summarised once, ready to score many sets of
// constrained draws or weighted particles (see the package documentation
// for the formulas). It is safe for concurrent use.
type Comparison struct {
	// Names are the reference's parameter names, the columns a scored
	// set must have in this order.
	Names []string
	// Mean, SD and MCSE are the reference's mean, sample standard
	// deviation and Monte Carlo standard error of the mean (Stan's
	// mcse_mean from the raw split chains; NaN with fewer than 4 draws per
	// chain) per parameter.
	Mean, SD, MCSE []float64
	// Bandwidth is the RBF bandwidth h in standardised units.
	Bandwidth float64
	// Draws is the number of reference draws the MMD² reads.
	Draws int
	// Floor holds the values of the second half of the reference's chains
	// scored against the first (the package documentation).
	Floor Summary

	mmd *metric.MMD
}

// Summary is a set's scores against the reference, reduced over the
// parameters: the MMD², the largest mean error and mean z, and the
// smallest and largest sd ratio.
type Summary struct {
	MMD2       float64
	MaxMeanErr float64
	MaxMeanZ   float64
	MinSDRatio float64
	MaxSDRatio float64
}

// Errors are a set's per-parameter moments and errors against the
// reference, in the order of Comparison.Names.
type Errors struct {
	// Mean and SD are the set's weighted mean and standard deviation.
	Mean, SD []float64
	// MeanErr is |Δ mean| / reference sd, MeanZ is |Δ mean| / combined
	// MCSE, SDRatio is sd / reference sd.
	MeanErr, MeanZ, SDRatio []float64
}

// Own is what a method says of its own Monte Carlo error, per parameter:
// its MCSE of the mean, or its ESS (MCSE = σ̂/√ESS); with neither (the zero
// value: a deterministic set, or a method that does not know) only the
// reference's MCSE enters the mean z.
type Own struct {
	MCSE []float64
	ESS  []float64
}

// NewComparison summarises the reference ref: its moments and MCSEs, the
// bandwidth, the reference term of the MMD² and the floors. A parameter
// whose draws are all equal cannot be standardised and is an error, as is
// a non-finite draw.
func NewComparison(ref *Reference, s CompareSettings) (*Comparison, error) {
	if ref == nil || ref.Draws == nil || ref.Len() == 0 {
		return nil, errors.New("posteriordb: no reference draws to compare with")
	}
	if s.MMDDraws < 0 || s.MedianDraws < 0 || s.Bandwidth < 0 || math.IsNaN(s.Bandwidth) || math.IsInf(s.Bandwidth, 0) {
		return nil, fmt.Errorf("posteriordb: compare settings %+v: negative or non-finite", s)
	}
	Y := ref.Draws
	S, d := Y.Dims()
	C := ref.Chains()
	c := &Comparison{Names: ref.Names, Mean: make([]float64, d), SD: make([]float64, d)}
	for j := 0; j < d; j++ {
		var m float64
		for i := 0; i < S; i++ {
			v := Y.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("posteriordb: reference draw %d of %s is %v", i+1, ref.Names[j], v)
			}
			m += v
		}
		m /= float64(S)
		var ss float64
		for i := 0; i < S; i++ {
			r := Y.At(i, j) - m
			ss += r * r
		}
		c.Mean[j] = m
		if S > 1 {
			c.SD[j] = math.Sqrt(ss / float64(S-1))
		}
		if !(c.SD[j] > 0) {
			return nil, fmt.Errorf("posteriordb: the reference draws of %s do not vary: cannot standardise", ref.Names[j])
		}
	}
	c.MCSE = mcse(ref.ChainViews(0, C), d)

	U := mat.NewDense(S, d, nil)
	c.standardise(U, Y)
	h := s.Bandwidth
	if h == 0 {
		m := s.MedianDraws
		if m == 0 {
			m = DefaultMedianDraws
		}
		h = kernel.MedianDistance(rowsOf(U, spread(ref.Bounds, m)), 0)
		if !(h > 0) {
			h = 1
		}
	}
	c.Bandwidth = h
	k := kernel.RBF{H: h}

	rows := spread(ref.Bounds, s.MMDDraws)
	c.Draws = len(rows)
	c.mmd = metric.NewMMD(k, rowsOf(U, rows))
	c.Floor = c.floor(ref, U, rows, k)
	return c, nil
}

// mcse is metric.MCSE of the chains, NaN when a chain has fewer than 4
// draws.
func mcse(chains []*mat.Dense, d int) []float64 {
	for _, ch := range chains {
		if r, _ := ch.Dims(); r < 4 {
			out := make([]float64, d)
			for j := range out {
				out[j] = math.NaN()
			}
			return out
		}
	}
	return metric.MCSE(chains, nil)
}

// halves returns the chain ranges of the floor's two halves: chains
// [0, ⌊C/2⌋) and [⌊C/2⌋, C), or with one chain its first ⌊n/2⌋ draws and
// the rest, as row bounds (lo, mid, hi) of the chains of each half.
func halves(bounds []int) (a, b []int) {
	C := len(bounds) - 1
	if C >= 2 {
		return bounds[:C/2+1], bounds[C/2:]
	}
	n := bounds[1]
	return []int{0, n / 2}, []int{n / 2, n}
}

// floor scores the second half of the reference against the first.
func (c *Comparison) floor(ref *Reference, U *mat.Dense, rows []int, k kernel.RBF) Summary {
	_, d := U.Dims()
	nan := Summary{MMD2: math.NaN(), MaxMeanErr: math.NaN(), MaxMeanZ: math.NaN(), MinSDRatio: math.NaN(), MaxSDRatio: math.NaN()}
	ba, bb := halves(ref.Bounds)
	if ba[len(ba)-1]-ba[0] < 2 || bb[len(bb)-1]-bb[0] < 2 {
		return nan
	}
	view := func(b []int) []*mat.Dense {
		out := make([]*mat.Dense, 0, len(b)-1)
		for i := 0; i+1 < len(b); i++ {
			out = append(out, ref.Draws.Slice(b[i], b[i+1], 0, d).(*mat.Dense))
		}
		return out
	}
	ca, cb := view(ba), view(bb)
	ma, sa := moments(stack(ca), nil)
	mb, sb := moments(stack(cb), nil)
	ea, eb := mcse(ca, d), mcse(cb, d)
	f := Summary{MaxMeanErr: math.Inf(-1), MaxMeanZ: math.Inf(-1), MinSDRatio: math.Inf(1), MaxSDRatio: math.Inf(-1)}
	for j := 0; j < d; j++ {
		diff := math.Abs(mb[j] - ma[j])
		f.MaxMeanErr = math.Max(f.MaxMeanErr, diff/c.SD[j])
		f.MaxMeanZ = nanMax(f.MaxMeanZ, diff/math.Hypot(ea[j], eb[j]))
		r := sb[j] / sa[j]
		f.MinSDRatio, f.MaxSDRatio = math.Min(f.MinSDRatio, r), math.Max(f.MaxSDRatio, r)
	}
	var ra, rb []int
	for _, r := range rows {
		if r < ba[len(ba)-1] {
			ra = append(ra, r)
		} else {
			rb = append(rb, r)
		}
	}
	f.MMD2 = math.NaN()
	if len(ra) > 0 && len(rb) > 0 {
		f.MMD2 = metric.NewMMD(k, rowsOf(U, ra)).MMD2(rowsOf(U, rb), nil)
	}
	return f
}

// nanMax is the larger of a and b, NaN when b is (a set's z is NaN when
// an MCSE is).
func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

// stack returns the rows of the matrices one after the other.
func stack(ms []*mat.Dense) *mat.Dense {
	n := 0
	_, d := ms[0].Dims()
	for _, m := range ms {
		r, _ := m.Dims()
		n += r
	}
	out := mat.NewDense(n, d, nil)
	i := 0
	for _, m := range ms {
		r, _ := m.Dims()
		out.Slice(i, i+r, 0, d).(*mat.Dense).Copy(m)
		i += r
	}
	return out
}

// spread returns the indices of at most m rows of the chains with the
// given bounds, ⌊m/C⌋ (at least 1) from each of the C chains at the even
// stride k·n_c/per over each chain's n_c draws; all rows when m ≤ 0 or m
// is at least their number.
func spread(bounds []int, m int) []int {
	C := len(bounds) - 1
	n := bounds[C]
	if m <= 0 || m >= n {
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		return rows
	}
	per := max(1, m/C)
	var rows []int
	for c := 0; c < C; c++ {
		nc := bounds[c+1] - bounds[c]
		for k := 0; k < min(per, nc); k++ {
			rows = append(rows, bounds[c]+k*nc/min(per, nc))
		}
	}
	return rows
}

// rowsOf returns the listed rows of X as a new matrix.
func rowsOf(X *mat.Dense, rows []int) *mat.Dense {
	_, d := X.Dims()
	out := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		copy(out.RawRowView(i), X.RawRowView(r))
	}
	return out
}

// standardise writes (X − Mean)/SD, column by column, into dst.
func (c *Comparison) standardise(dst, X *mat.Dense) {
	n, d := X.Dims()
	for i := 0; i < n; i++ {
		x, u := X.RawRowView(i), dst.RawRowView(i)
		for j := 0; j < d; j++ {
			u[j] = (x[j] - c.Mean[j]) / c.SD[j]
		}
	}
}

// check panics when X does not have a column per name or w a weight per
// row.
func (c *Comparison) check(X *mat.Dense, w []float64) int {
	n, d := X.Dims()
	if d != len(c.Names) {
		panic(fmt.Sprintf("posteriordb: %d columns, want %d (one per reference name)", d, len(c.Names)))
	}
	if w != nil && len(w) != n {
		panic(fmt.Sprintf("posteriordb: %d weights for %d rows", len(w), n))
	}
	if n == 0 {
		panic("posteriordb: no draws to compare")
	}
	return n
}

// MMD2 returns the squared MMD between the weighted set (rows of X in the
// constrained space, in the order of Names; weights w, nil for 1/n) and
// the reference draws, both standardised by the reference's moments.
func (c *Comparison) MMD2(X *mat.Dense, w []float64) float64 {
	n := c.check(X, w)
	U := mat.NewDense(n, len(c.Names), nil)
	c.standardise(U, X)
	return c.mmd.MMD2(U, w)
}

// moments returns the weighted mean and standard deviation of the columns
// of X (w nil: equal weights), dividing by W = Σwᵢ; NaN where W ≤ 0 or the
// weighted variance is negative (weights of both signs).
func moments(X *mat.Dense, w []float64) (mean, sd []float64) {
	_, d := X.Dims()
	mean, sd = make([]float64, d), make([]float64, d)
	momentsTo(mean, sd, X, w)
	return mean, sd
}

func momentsTo(mean, sd []float64, X *mat.Dense, w []float64) {
	n, d := X.Dims()
	wt := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	var W float64
	for i := 0; i < n; i++ {
		W += wt(i)
	}
	for j := 0; j < d; j++ {
		mean[j], sd[j] = 0, 0
	}
	if !(W > 0) {
		for j := 0; j < d; j++ {
			mean[j], sd[j] = math.NaN(), math.NaN()
		}
		return
	}
	for i := 0; i < n; i++ {
		x, wi := X.RawRowView(i), wt(i)
		for j := 0; j < d; j++ {
			mean[j] += wi * x[j]
		}
	}
	for j := 0; j < d; j++ {
		mean[j] /= W
	}
	for i := 0; i < n; i++ {
		x, wi := X.RawRowView(i), wt(i)
		for j := 0; j < d; j++ {
			r := x[j] - mean[j]
			sd[j] += wi * r * r
		}
	}
	for j := 0; j < d; j++ {
		v := sd[j] / W
		if v < 0 {
			sd[j] = math.NaN()
		} else {
			sd[j] = math.Sqrt(v)
		}
	}
}

// Errors writes the set's per-parameter moments and errors into dst
// (allocated when nil; its slices are reused when long enough) and
// returns it. X holds the set's constrained draws in the order of Names,
// w its weights (nil for 1/n); own is the method's Monte Carlo error, if
// it has one. It allocates nothing when dst's slices are long enough.
func (c *Comparison) Errors(dst *Errors, X *mat.Dense, w []float64, own Own) *Errors {
	c.check(X, w)
	d := len(c.Names)
	if dst == nil {
		dst = &Errors{}
	}
	grow := func(s []float64) []float64 {
		if cap(s) >= d {
			return s[:d]
		}
		return make([]float64, d)
	}
	dst.Mean, dst.SD = grow(dst.Mean), grow(dst.SD)
	dst.MeanErr, dst.MeanZ, dst.SDRatio = grow(dst.MeanErr), grow(dst.MeanZ), grow(dst.SDRatio)
	if own.MCSE != nil && len(own.MCSE) != d || own.ESS != nil && len(own.ESS) != d {
		panic(fmt.Sprintf("posteriordb: own MCSE or ESS of length %d, %d; want %d", len(own.MCSE), len(own.ESS), d))
	}
	momentsTo(dst.Mean, dst.SD, X, w)
	for j := 0; j < d; j++ {
		diff := math.Abs(dst.Mean[j] - c.Mean[j])
		var e float64
		switch {
		case own.MCSE != nil:
			e = own.MCSE[j]
		case own.ESS != nil:
			e = dst.SD[j] / math.Sqrt(own.ESS[j])
		}
		dst.MeanErr[j] = diff / c.SD[j]
		dst.MeanZ[j] = diff / math.Hypot(c.MCSE[j], e)
		dst.SDRatio[j] = dst.SD[j] / c.SD[j]
	}
	return dst
}

// Summary reduces e over the parameters (MMD2 left 0): the largest mean
// error and mean z and the smallest and largest sd ratio, NaN when any
// value is.
func (e *Errors) Summary() Summary {
	s := Summary{MaxMeanErr: math.Inf(-1), MaxMeanZ: math.Inf(-1), MinSDRatio: math.Inf(1), MaxSDRatio: math.Inf(-1)}
	for j := range e.MeanErr {
		s.MaxMeanErr = nanMax(s.MaxMeanErr, e.MeanErr[j])
		s.MaxMeanZ = nanMax(s.MaxMeanZ, e.MeanZ[j])
		s.MaxSDRatio = nanMax(s.MaxSDRatio, e.SDRatio[j])
		if math.IsNaN(e.SDRatio[j]) || math.IsNaN(s.MinSDRatio) {
			s.MinSDRatio = math.NaN()
		} else {
			s.MinSDRatio = math.Min(s.MinSDRatio, e.SDRatio[j])
		}
	}
	return s
}

// Score returns every score of the set: its Errors reduced, and its MMD².
func (c *Comparison) Score(X *mat.Dense, w []float64, own Own) Summary {
	s := c.Errors(nil, X, w, own).Summary()
	s.MMD2 = c.MMD2(X, w)
	return s
}
