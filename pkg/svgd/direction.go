package svgd

import (
	"github.com/mmdfw/mmdfw/pkg/kernel"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Workspace holds the scratch of one SVGD direction for n particles, so
// that the iterations allocate nothing.
type Workspace struct {
	n int
	// k holds the squared distances, then the Gram matrix in place.
	k      *mat.Dense
	norms  []float64
	median []float64
}

// NewWorkspace returns the scratch for n particles: two n×n buffers and
// two of length n.
func NewWorkspace(n int) *Workspace {
	if n < 1 {
		panic("svgd: workspace needs at least one particle")
	}
	return &Workspace{
		n:      n,
		k:      mat.NewDense(n, n, nil),
		norms:  make([]float64, n),
		median: make([]float64, n*n),
	}
}

// Direction writes the SVGD direction of every particle into dst (n×d):
//
//	φ(xᵢ) = (1/n) Σⱼ [k(xⱼ, xᵢ) ∇log p(xⱼ) + ∇_{xⱼ} k(xⱼ, xᵢ)],
//
// given the particles X (n×d, one per row) and their scores (n×d, row j is
// ∇log p(xⱼ) or its minibatch estimate). It costs O(n²d) through one
// symmetric rank-k update and two matrix products, and allocates nothing.
//
// The RBF bandwidth is k.H when it is positive. When k.H is zero the
// bandwidth follows the reference median heuristic on the current
// particles, h = √(½ med / log(n+1)) with med the median of the squared
// distances, over all n² pairs when excludeDiag is false (as the reference
// code does) and over the n(n−1)/2 distinct pairs otherwise. Direction
// returns the kernel it used.
//
// dst must not share memory with X or scores.
func Direction(dst, X, scores *mat.Dense, k kernel.RBF, excludeDiag bool, ws *Workspace) kernel.RBF {
	n, d := X.Dims()
	if n != ws.n {
		panic("svgd: workspace size mismatch")
	}
	if r, c := scores.Dims(); r != n || c != d {
		panic("svgd: scores dimension mismatch")
	}
	if r, c := dst.Dims(); r != n || c != d {
		panic("svgd: destination dimension mismatch")
	}
	if k.H < 0 {
		panic("svgd: negative bandwidth")
	}
	kernel.SqDists(ws.k, X, ws.norms)
	if k.H == 0 {
		k.H = kernel.SVGDBandwidth(kernel.MedianSq(ws.k, !excludeDiag, ws.median), n)
	}
	k.Gram(ws.k, ws.k)
	// dst = Σⱼ ∇_{xⱼ}k(xⱼ, xᵢ), then dst = (K·S + dst)/n.
	k.Repulsion(dst, ws.k, X)
	inv := 1 / float64(n)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, inv, ws.k.RawMatrix(), scores.RawMatrix(), inv, dst.RawMatrix())
	return k
}
