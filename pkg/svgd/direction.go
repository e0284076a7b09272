package svgd

import (
	"math"

	"github.com/mmdfw/mmdfw/pkg/kernel"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Workspace holds the scratch of the SVGD direction of n particles in
// dimension d, so that the iterations allocate nothing.
type Workspace struct {
	n, d int
	// k holds the squared distances, then the Gram matrix in place.
	k      *mat.Dense
	t      *mat.Dense // S − X/h²
	norms  []float64
	rowSum []float64
	median []float64
}

// NewWorkspace returns the scratch for n particles in dimension d: two n×n
// buffers, one n×d and a few of length n.
func NewWorkspace(n, d int) *Workspace {
	if n < 1 || d < 1 {
		panic("svgd: workspace needs n ≥ 1 particles and d ≥ 1")
	}
	return &Workspace{
		n: n, d: d,
		k:      mat.NewDense(n, n, nil),
		t:      mat.NewDense(n, d, nil),
		norms:  make([]float64, n),
		rowSum: make([]float64, n),
		median: make([]float64, n*n),
	}
}

// Direction writes the SVGD direction of every particle into dst (n×d):
//
//	φ(xᵢ) = (1/n) Σⱼ [k(xⱼ, xᵢ) ∇log p(xⱼ) + ∇_{xⱼ} k(xⱼ, xᵢ)],
//
// given the particles X (n×d, one per row) and their scores (n×d, row j is
// ∇log p(xⱼ) or its minibatch estimate). It allocates nothing and costs
// O(n²d): one symmetric rank-k update for the distances, n(n−1)/2
// exponentials, and one matrix product, since with ∇_{xⱼ}k(xⱼ, xᵢ) =
// (xᵢ − xⱼ) K_ij / h² the two sums share the Gram matrix K:
//
//	φ(xᵢ) = (1/n) [Σⱼ K_ij (sⱼ − xⱼ/h²) + (Σⱼ K_ij) xᵢ/h²].
//
// The RBF bandwidth is k.H when it is positive. When k.H is zero it follows
// the reference median heuristic on the current particles,
// h = √(½ med / log(n+1)), with med the median of the squared distances
// over all n² entries when excludeDiag is false (as the reference code
// does) and over the n(n−1)/2 distinct pairs otherwise; a zero median gives
// h = 1. Direction returns the kernel it used.
//
// dst must not share memory with X or scores.
func Direction(dst, X, scores *mat.Dense, k kernel.RBF, excludeDiag bool, ws *Workspace) kernel.RBF {
	n, d := X.Dims()
	if n != ws.n || d != ws.d {
		panic("svgd: workspace size mismatch")
	}
	if r, c := scores.Dims(); r != n || c != d {
		panic("svgd: scores dimension mismatch")
	}
	if r, c := dst.Dims(); r != n || c != d {
		panic("svgd: destination dimension mismatch")
	}
	if !(k.H >= 0) {
		panic("svgd: negative bandwidth")
	}
	kernel.SqDists(ws.k, X, ws.norms)
	if k.H == 0 {
		k.H = kernel.SVGDBandwidth(kernel.MedianSq(ws.k, !excludeDiag, ws.median), n)
	}
	inv2 := 1 / (k.H * k.H)
	symGram(ws.k, ws.rowSum, -inv2/2)

	// T = S − X/h², dst = K T / n, then dst_i += (Σⱼ K_ij) xᵢ / (n h²).
	for i := 0; i < n; i++ {
		t, s, x := ws.t.RawRowView(i), scores.RawRowView(i), X.RawRowView(i)
		for j := range t {
			t[j] = s[j] - inv2*x[j]
		}
	}
	invN := 1 / float64(n)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, invN, ws.k.RawMatrix(), ws.t.RawMatrix(), 0, dst.RawMatrix())
	for i := 0; i < n; i++ {
		c := ws.rowSum[i] * inv2 * invN
		out := dst.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			out[j] += c * v
		}
	}
	return k
}

// symGram turns the symmetric squared distances sq (zero diagonal) into
// K_ij = exp(c r²_ij) in place, evaluating each pair once, and writes the
// row sums of K into rowSum.
func symGram(sq *mat.Dense, rowSum []float64, c float64) {
	raw := sq.RawMatrix()
	n := raw.Rows
	for i := range rowSum {
		rowSum[i] = 1 // the diagonal, exp(0)
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = 1
		for j := i + 1; j < n; j++ {
			v := math.Exp(c * raw.Data[i*raw.Stride+j])
			raw.Data[i*raw.Stride+j] = v
			raw.Data[j*raw.Stride+i] = v
			rowSum[i] += v
			rowSum[j] += v
		}
	}
}
