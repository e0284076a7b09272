package kernel

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/dense"
)

// RBF is the Gaussian kernel k(x, y) = exp(−‖x − y‖² / (2H²)).
type RBF struct {
	// H is the bandwidth h > 0.
	H float64
}

// Eval returns k(x, y).
func (k RBF) Eval(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("kernel: dimension mismatch")
	}
	var s float64
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	return math.Exp(-s / (2 * k.H * k.H))
}

// FromSqDist returns k as a function of the squared distance r².
func (k RBF) FromSqDist(r2 float64) float64 {
	return math.Exp(-r2 / (2 * k.H * k.H))
}

// GradX writes ∇ₓk(x, y) = −(x − y) k(x, y) / h² into dst and returns
// k(x, y).
func (k RBF) GradX(dst, x, y []float64) float64 {
	if len(x) != len(y) || len(dst) != len(x) {
		panic("kernel: dimension mismatch")
	}
	kv := k.Eval(x, y)
	c := -kv / (k.H * k.H)
	for i, v := range x {
		dst[i] = c * (v - y[i])
	}
	return kv
}

// Gram writes K_ij = k(xᵢ, xⱼ) into dst (n×n) from the squared distances
// sq of SqDists. dst may be sq itself.
func (k RBF) Gram(dst, sq *mat.Dense) {
	n, c := sq.Dims()
	if r, cc := dst.Dims(); r != n || cc != c || n != c {
		panic("kernel: dimension mismatch")
	}
	s := -1 / (2 * k.H * k.H)
	for i := 0; i < n; i++ {
		row := sq.RawRowView(i)
		out := dst.RawRowView(i)
		for j, v := range row {
			out[j] = math.Exp(s * v)
		}
	}
}

// Repulsion writes rᵢ = Σⱼ ∇_{xⱼ} k(xⱼ, xᵢ) = Σⱼ (xᵢ − xⱼ) K_ij / h² into
// row i of dst (n×d), given the Gram matrix K (n×n) of the rows of X (n×d).
// It costs one n×n×d matrix product on the calling goroutine and allocates
// nothing.
func (k RBF) Repulsion(dst, K, X *mat.Dense) {
	n, d := X.Dims()
	if r, c := K.Dims(); r != n || c != n {
		panic("kernel: dimension mismatch")
	}
	if r, c := dst.Dims(); r != n || c != d {
		panic("kernel: dimension mismatch")
	}
	// dst = −K X / h², then add (Σⱼ K_ij) xᵢ / h².
	inv := 1 / (k.H * k.H)
	kr, xr, dr := K.RawMatrix(), X.RawMatrix(), dst.RawMatrix()
	dense.MulNN(n, d, n, -inv, kr.Data, kr.Stride, xr.Data, xr.Stride, dr.Data, dr.Stride)
	for i := 0; i < n; i++ {
		var s float64
		for _, v := range K.RawRowView(i) {
			s += v
		}
		s *= inv
		out := dst.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			out[j] += s * v
		}
	}
}

// SqDists writes the squared distances ‖xᵢ − xⱼ‖² between the rows of X
// (n×d) into dst (n×n), through the Gram product X Xᵀ (a symmetric rank-k
// update) and the squared norms. norms is scratch of length n. Round-off
// negatives are clamped to zero and the diagonal is exactly zero.
func SqDists(dst, X *mat.Dense, norms []float64) {
	n, _ := X.Dims()
	if r, c := dst.Dims(); r != n || c != n {
		panic("kernel: dimension mismatch")
	}
	if len(norms) != n {
		panic("kernel: norms length mismatch")
	}
	raw := dst.RawMatrix()
	// Upper triangle of X Xᵀ.
	blas64.Syrk(blas.NoTrans, 1, X.RawMatrix(), 0, blas64.Symmetric{
		Uplo: blas.Upper, N: n, Stride: raw.Stride, Data: raw.Data,
	})
	for i := 0; i < n; i++ {
		norms[i] = raw.Data[i*raw.Stride+i]
	}
	for i := 0; i < n; i++ {
		dst.Set(i, i, 0)
		for j := i + 1; j < n; j++ {
			v := norms[i] + norms[j] - 2*raw.Data[i*raw.Stride+j]
			if v < 0 {
				v = 0
			}
			raw.Data[i*raw.Stride+j] = v
			raw.Data[j*raw.Stride+i] = v
		}
	}
}

// MedianDistance returns the median distance ‖xᵢ − xⱼ‖ over the distinct
// pairs of rows of X, or of maxRows rows of it taken at the even stride
// i·n/maxRows when maxRows > 0 and X has more rows. It returns 0 when fewer
// than two rows are used or all of them coincide. It allocates O(m²) for the
// m rows used: a setup computation, not one for a hot loop.
func MedianDistance(X mat.Matrix, maxRows int) float64 {
	n, d := X.Dims()
	m := n
	if maxRows > 0 && maxRows < n {
		m = maxRows
	}
	if m < 2 {
		return 0
	}
	sub := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		src := i * n / m
		for j := 0; j < d; j++ {
			sub.Set(i, j, X.At(src, j))
		}
	}
	sq := mat.NewDense(m, m, nil)
	SqDists(sq, sub, make([]float64, m))
	return math.Sqrt(MedianSq(sq, false, make([]float64, m*(m-1)/2)))
}

// MedianSq returns the median of the squared distances in sq (n×n,
// symmetric, zero diagonal), over all n² entries when includeDiag is true
// (as the SVGD reference code does) and over the n(n−1)/2 distinct pairs
// otherwise. An even count gives the mean of the two middle values.
// scratch must have length at least n² (includeDiag) or n(n−1)/2.
//
// With the diagonal included, the n² entries are the n zeros of the
// diagonal and every distinct pair twice; when no pair is negative, the
// sorted entries are n zeros followed by the sorted pairs each repeated,
// so entry r ≥ n of that order is pair ⌊(r−n)/2⌋, and the median is taken
// from the n(n−1)/2 pairs alone, with the same value as over all n².
func MedianSq(sq *mat.Dense, includeDiag bool, scratch []float64) float64 {
	n, _ := sq.Dims()
	var m int
	if includeDiag {
		m = n * n
	} else {
		m = n * (n - 1) / 2
	}
	if m == 0 {
		return 0
	}
	if len(scratch) < m {
		panic("kernel: scratch too short")
	}
	// The order statistics through a sampled bracket: the same values as
	// quickselect's below (an order statistic is unique), when it holds.
	kHi, kLo := m/2, m/2-1
	if includeDiag {
		kHi, kLo = diagRank(m/2, n), diagRank(m/2-1, n)
	}
	if v, ok := medianBracketed(sq, scratch, kHi, kLo, m%2 == 0); ok {
		return v
	}
	s := scratch[:0]
	neg := false
	for i := 0; i < n; i++ {
		for _, v := range sq.RawRowView(i)[i+1:] {
			neg = neg || v < 0
			s = append(s, v)
		}
	}
	if includeDiag && !neg {
		return medianWithDiagonal(s, n)
	}
	if includeDiag {
		s = scratch[:0]
		for i := 0; i < n; i++ {
			s = append(s, sq.RawRowView(i)...)
		}
	}
	hi := selectK(s, m/2)
	if m%2 == 1 {
		return hi
	}
	// The lower middle is the largest value left of position m/2.
	lo := s[0]
	for _, v := range s[1 : m/2] {
		if v > lo {
			lo = v
		}
	}
	return (lo + hi) / 2
}

// diagRank maps position r of the sorted n² entries (n zeros of the
// diagonal, every pair twice) to the position of the sorted pairs, −1 for
// the zeros (see MedianSq).
func diagRank(r, n int) int {
	if r < n {
		return -1
	}
	return (r - n) / 2
}

// bracketSample is the number of evenly spaced values medianBracketed
// sorts to bracket the order statistic it selects, and bracketHalf the
// sample positions on each side of the expected one that the bracket
// spans: the rank of the k-th value among the sample has a standard
// deviation of at most √(128/4) ≈ 5.7, so the bracket misses rarely.
const (
	bracketSample = 128
	bracketHalf   = 16
)

// medianBracketed returns the median of the pairs above the diagonal of sq
// (n×n) from their order statistics kHi and kLo (0 based; a position of −1
// is a zero of the diagonal): the value at kHi, or with even the mean of
// the values at kLo and kHi, as MedianSq computes them. It takes an evenly
// spaced sample of the pairs and selects the two sample values around the
// expected position of kHi (the sample is not sorted: two selections), keeps
// the pairs between them in one branch-free pass over sq that compacts them
// into scratch (of length at least n(n−1)/2) and counts those below, and
// selects among those few. It reports false when the bracket does not hold
// both order statistics, when there are fewer than 8·bracketSample pairs,
// when a pair is negative or NaN, or when a selected value is zero (a
// zero's sign is then quickselect's, which the caller reproduces). It
// allocates nothing.
func medianBracketed(sq *mat.Dense, scratch []float64, kHi, kLo int, even bool) (float64, bool) {
	n, _ := sq.Dims()
	m := n * (n - 1) / 2
	if m < 8*bracketSample || kHi < 0 || (even && kLo < 0) {
		return 0, false
	}
	var smp [bracketSample]float64
	row, first := 0, 0 // pairs before row's first: first
	for t := range smp {
		p := (2*t + 1) * m / (2 * bracketSample)
		for p >= first+n-1-row {
			first += n - 1 - row
			row++
		}
		smp[t] = sq.RawRowView(row)[row+1+p-first]
	}
	// The sample's order statistics a and b: after the first selection
	// every value from a on is at least smp[a], so the b-th is the
	// (b−a)-th of those. A NaN in the sample gives some bracket, and the
	// pass below then reports the NaN.
	q := kHi * bracketSample / m
	a, b := q-bracketHalf, q+bracketHalf
	lo, hi := math.Inf(-1), math.Inf(1)
	from := 0
	if a > 0 {
		lo = selectK(smp[:], a)
		from = a
	}
	if b < bracketSample-1 {
		hi = selectK(smp[from:], b-from)
	}
	s := scratch[:m]
	below, c, good := 0, 0, 0
	if use512 {
		for i := 0; i < n-1; i++ {
			row := sq.RawRowView(i)[i+1:]
			kept, ge, nn := bracket512(&s[c], &row[0], len(row), lo, hi)
			c += kept
			below += len(row) - ge
			good += nn
		}
	}
	for i := 0; i < n && !use512; i++ {
		for _, v := range sq.RawRowView(i)[i+1:] {
			s[c] = v
			// Flags, not branches: the comparisons are unpredictable.
			var ge, le, nn int
			if v >= lo {
				ge = 1
			}
			if v <= hi {
				le = 1
			}
			if v >= 0 {
				nn = 1
			}
			c += ge & le
			below += 1 - ge
			good += nn
		}
	}
	if good != m {
		return 0, false // a negative pair or a NaN
	}
	mid := s[:c]
	k := kHi - below
	if k < 0 || k >= c || (even && kLo < below) {
		return 0, false
	}
	vHi := selectK(mid, k)
	if !even {
		return vHi, vHi != 0
	}
	vLo := vHi
	if kLo != kHi {
		// kLo = kHi − 1 ≥ below: the largest value left of k.
		vLo = mid[0]
		for _, v := range mid[1:k] {
			if v > vLo {
				vLo = v
			}
		}
	}
	if vLo == 0 || vHi == 0 {
		return 0, false
	}
	return (vLo + vHi) / 2, true
}

// medianWithDiagonal returns the median of the n² entries made of n zeros
// and each of the nonnegative values of pairs (n(n−1)/2 of them) twice.
func medianWithDiagonal(pairs []float64, n int) float64 {
	m := n * n
	// rank maps a position of the n² sorted entries to a position in the
	// sorted pairs, −1 for the zeros of the diagonal.
	rank := func(r int) int {
		if r < n {
			return -1
		}
		return (r - n) / 2
	}
	hiIdx := rank(m / 2)
	var hi float64
	if hiIdx >= 0 {
		hi = selectK(pairs, hiIdx)
	}
	if m%2 == 1 {
		return hi
	}
	var lo float64
	switch loIdx := rank(m/2 - 1); {
	case loIdx < 0:
		lo = 0
	case loIdx == hiIdx:
		lo = hi
	default:
		// loIdx = hiIdx − 1: the largest value left of hiIdx.
		lo = pairs[0]
		for _, v := range pairs[1:hiIdx] {
			if v > lo {
				lo = v
			}
		}
	}
	return (lo + hi) / 2
}

// SVGDBandwidth returns the bandwidth h of the SVGD reference code's
// median heuristic, h² = medSq / (2 log(n+1)), for n particles. A zero
// median (all particles equal) gives h = 1.
func SVGDBandwidth(medSq float64, n int) float64 {
	if medSq <= 0 {
		return 1
	}
	return math.Sqrt(0.5 * medSq / math.Log(float64(n)+1))
}

// selectK partially orders s so that s[k] is the k-th smallest value (0
// based), every value left of k is ≤ s[k] and every value right is ≥ s[k],
// and returns s[k]. Quickselect with the median of three values as pivot
// and a three-way split in two branch-free Lomuto passes (values below the
// pivot, then values equal to it): the comparisons of distances are
// unpredictable, and a mispredicted branch per comparison cost more than the
// passes themselves. Ties cost nothing extra; a NaN pivot is returned.
func selectK(s []float64, k int) float64 {
	lo, hi := 0, len(s) // the range [lo, hi) holds position k
	for hi-lo > 1 {
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi-1]
		p := max(min(a, b), min(max(a, b), c))
		i := partitionBelow(s[lo:hi], p) + lo
		if k < i {
			hi = i
			continue
		}
		i2 := partitionAtMost(s[i:hi], p) + i
		if i2 == i {
			return p // no value equals the pivot: it is NaN
		}
		if k < i2 {
			return s[k] // = p
		}
		lo = i2
	}
	return s[k]
}

// partitionBelow moves the values of s below p to its front, keeping the
// others behind them, and returns their count.
func partitionBelow(s []float64, p float64) int {
	i := 0
	for j, v := range s {
		s[j] = s[i]
		s[i] = v
		var inc int
		if v < p {
			inc = 1
		}
		i += inc
	}
	return i
}

// partitionAtMost moves the values of s at most p to its front and returns
// their count.
func partitionAtMost(s []float64, p float64) int {
	i := 0
	for j, v := range s {
		s[j] = s[i]
		s[i] = v
		var inc int
		if v <= p {
			inc = 1
		}
		i += inc
	}
	return i
}
