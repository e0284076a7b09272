package model

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// DefaultMetricsCacheFloats bounds the outputs a MetricsCache keeps when
// its MaxFloats is zero: 2²⁴ float64 values, 128 MiB.
const DefaultMetricsCacheFloats = 1 << 24

// MetricsCache computes BNN.Metrics on fixed rows for a sequence of
// particle sets that grow by appending rows, as a greedy method's frozen
// particles do: the outputs fₖ(xₜ) of a particle at the rows are computed
// when it first appears and kept, so a set of n particles of which k are
// new costs O(k·rows·h·p) for the outputs and O(n·rows) for the sums,
// instead of O(n·rows·h·p). The particles found unchanged are the longest
// leading run of rows equal bit for bit to those of the previous call;
// the rest are recomputed, so any sequence of sets is evaluated correctly
// (particles that all move, as SVGD's do, are recomputed every call). The
// results are those of BNN.Metrics bit for bit: every output is the same
// sum in the same order whichever particles it is computed with, and the
// sums over rows take the same blocks.
//
// A MetricsCache is not safe for concurrent use.
type MetricsCache struct {
	// MaxFloats bounds the kept outputs (rows × particles); above it
	// Metrics calls BNN.Metrics directly. Zero means
	// DefaultMetricsCacheFloats.
	MaxFloats int

	m            *BNN
	x            *mat.Dense
	y            []float64
	yMean, ySD   float64
	seen         []float64 // the particles of the last call, n×d
	n, capacity  int
	out          []float64 // rows × capacity outputs, row-major
	scratch      *mat.Dense
	sses, lls, l []float64
}

// NewMetricsCache returns a cache of the metrics of m at the standardised
// features X with responses yTest on the original scale of y (see
// BNN.Metrics). It keeps references to X and yTest.
func (m *BNN) NewMetricsCache(X *mat.Dense, yTest []float64, yMean, ySD float64) *MetricsCache {
	if nt, p := X.Dims(); p != m.p || len(yTest) != nt {
		panic("model: metrics rows do not match the network or y")
	}
	return &MetricsCache{m: m, x: X, y: yTest, yMean: yMean, ySD: ySD}
}

// Metrics returns BNN.Metrics of the particles and weights at the cache's
// rows.
func (c *MetricsCache) Metrics(particles *mat.Dense, weights []float64) (rmse, logLik float64) {
	nt, _ := c.x.Dims()
	n, d := particles.Dims()
	if d != c.m.Dim() {
		panic("model: dimension mismatch")
	}
	if len(weights) != n {
		panic("model: weights length does not match the particles")
	}
	maxF := c.MaxFloats
	if maxF == 0 {
		maxF = DefaultMetricsCacheFloats
	}
	if nt == 0 || n == 0 || n*nt > maxF {
		return c.m.Metrics(c.x, c.y, particles, weights, c.yMean, c.ySD)
	}
	// Keep the leading particles that are unchanged since the last call.
	keep := 0
	for keep < min(n, c.n) && equalBits(particles.RawRowView(keep), c.seen[keep*d:keep*d+d]) {
		keep++
	}
	c.grow(n, d, nt, maxF)
	if keep < n {
		k := n - keep
		if rows := c.scratchRows(); rows < k {
			c.scratch = mat.NewDense(min(n, max(k, 2*rows)), nt, nil)
		}
		F := c.scratch.Slice(0, k, 0, nt).(*mat.Dense)
		c.m.Outputs(F, c.x, particles.Slice(keep, n, 0, d).(*mat.Dense))
		for j := 0; j < k; j++ {
			for t, f := range F.RawRowView(j) {
				c.out[t*c.capacity+keep+j] = f
			}
			copy(c.seen[(keep+j)*d:(keep+j+1)*d], particles.RawRowView(keep+j))
		}
	}
	c.n = n
	inv2v, lc := metricConstants(particles, c.ySD)
	B := bnnBlockRows(n*c.m.h, nt)
	nb := (nt + B - 1) / B
	c.sses, c.lls, c.l = resize(c.sses, nb), resize(c.lls, nb), resize(c.l, n)
	for b := 0; b < nb; b++ {
		lo, hi := b*B, min((b+1)*B, nt)
		F := blas64.General{Rows: hi - lo, Cols: n, Stride: c.capacity, Data: c.out[lo*c.capacity:]}
		c.sses[b], c.lls[b] = metricsBlock(F, c.y[lo:hi], weights, lc, inv2v, c.l, c.yMean, c.ySD)
	}
	return metricsTotal(c.sses, c.lls, nt)
}

// scratchRows returns the rows of the scratch outputs (0 before the first).
func (c *MetricsCache) scratchRows() int {
	if c.scratch == nil {
		return 0
	}
	r, _ := c.scratch.Dims()
	return r
}

// grow makes room for n particles of dimension d, keeping the outputs and
// particles held so far; capacity doubles, up to maxF outputs.
func (c *MetricsCache) grow(n, d, nt, maxF int) {
	if n <= c.capacity {
		return
	}
	capacity := min(max(n, 2*c.capacity, 16), max(n, maxF/nt))
	out := make([]float64, nt*capacity)
	for t := 0; t < nt; t++ {
		copy(out[t*capacity:t*capacity+c.n], c.out[t*c.capacity:t*c.capacity+c.n])
	}
	seen := make([]float64, capacity*d)
	copy(seen, c.seen[:c.n*d])
	c.out, c.seen, c.capacity = out, seen, capacity
}

// equalBits reports whether a and b hold the same float64 bits.
func equalBits(a, b []float64) bool {
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// resize returns s with length n, reallocated when its capacity is short.
func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
