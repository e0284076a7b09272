package svgd

import (
	"github.com/mmdfw/mmdfw/pkg/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/dense"
)

// Workspace holds the scratch of the SVGD direction of n particles in
// dimension d, so that the iterations allocate nothing.
type Workspace struct {
	n, d int
	// k holds the squared distances, then the Gram matrix in place.
	k      *mat.Dense
	t      *mat.Dense // S − X/h²
	xt     []float64  // Xᵀ, d×n
	norms  []float64
	rowSum []float64
	median []float64
}

// NewWorkspace returns the scratch for n particles in dimension d: two n×n
// buffers, two n×d and a few of length n.
func NewWorkspace(n, d int) *Workspace {
	if n < 1 || d < 1 {
		panic("svgd: workspace needs n ≥ 1 particles and d ≥ 1")
	}
	return &Workspace{
		n: n, d: d,
		k:      mat.NewDense(n, n, nil),
		t:      mat.NewDense(n, d, nil),
		xt:     make([]float64, d*n),
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
// ∇log p(xⱼ) or its minibatch estimate). It allocates nothing, runs on the
// calling goroutine and costs O(n²d): one product X Xᵀ for the distances,
// n(n−1)/2 exponentials, and one product K T, both with internal/gemm's
// kernel (fused multiply-adds in the order of the inner index, the same
// bits on every path), since with ∇_{xⱼ}k(xⱼ, xᵢ) =
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
	sqDists(ws, X)
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
	kr, tr, dr := ws.k.RawMatrix(), ws.t.RawMatrix(), dst.RawMatrix()
	dense.MulNN(n, d, n, invN, kr.Data, kr.Stride, tr.Data, tr.Stride, dr.Data, dr.Stride)
	for i := 0; i < n; i++ {
		c := ws.rowSum[i] * inv2 * invN
		out := dst.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			out[j] += c * v
		}
	}
	return k
}

// sqDists writes the squared distances ‖xᵢ − xⱼ‖² = ‖xᵢ‖² + ‖xⱼ‖² − 2 xᵢ·xⱼ
// of the rows of X into ws.k from the upper triangle of the product G = X Xᵀ
// (each G_ij the fused sum of pkg/dense, whichever of G_ij and G_ji is
// formed), with round-off negatives clamped to zero and an exact zero
// diagonal.
func sqDists(ws *Workspace, X *mat.Dense) {
	n, d := ws.n, ws.d
	xr := X.RawMatrix()
	for i := 0; i < n; i++ {
		for j, v := range xr.Data[i*xr.Stride : i*xr.Stride+d] {
			ws.xt[j*n+i] = v
		}
	}
	raw := ws.k.RawMatrix()
	// Only the blocks on and above the diagonal: strips of four rows from
	// the first column of their 8-column block on.
	for i0 := 0; i0 < n; i0 += 4 {
		rows, j0 := min(4, n-i0), i0&^7
		dense.MulNN(rows, n-j0, d, 1, xr.Data[i0*xr.Stride:], xr.Stride, ws.xt[j0:], n, raw.Data[i0*raw.Stride+j0:], raw.Stride)
	}
	for i := 0; i < n; i++ {
		ws.norms[i] = raw.Data[i*raw.Stride+i]
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = 0
		for j := i + 1; j < n; j++ {
			v := ws.norms[i] + ws.norms[j] - 2*raw.Data[i*raw.Stride+j]
			if v < 0 {
				v = 0
			}
			raw.Data[i*raw.Stride+j] = v
			raw.Data[j*raw.Stride+i] = v
		}
	}
}

// symGram turns the symmetric squared distances sq (zero diagonal) into
// K_ij = exp(c r²_ij) in place, evaluating each pair once (the upper
// triangle's rows with pkg/dense's vectorised exponential, within
// 2 ulps of math.Exp), and writes the row sums of K into rowSum.
func symGram(sq *mat.Dense, rowSum []float64, c float64) {
	raw := sq.RawMatrix()
	n := raw.Rows
	for i := range rowSum {
		rowSum[i] = 1 // the diagonal, exp(0)
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = 1
		row := raw.Data[i*raw.Stride+i+1 : i*raw.Stride+n]
		dense.ExpScaled(row, c)
		for k, v := range row {
			j := i + 1 + k
			raw.Data[j*raw.Stride+i] = v
			rowSum[i] += v
			rowSum[j] += v
		}
	}
}
