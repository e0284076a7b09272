package model

import (
	"strconv"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func itoa(i int) string { return strconv.Itoa(i) }

// gemmChunkRows and gemmChunkCols bound the sub-blocks of gemmSerial: gonum
// runs a product serially, without goroutines or allocation, when its result
// spans fewer than 4 of its 64×64 blocks.
const (
	gemmChunkRows = 64
	gemmChunkCols = 192
)

// gemmSerial computes C = α op(A) op(B) + β C on the calling goroutine, as
// gonum's Gemm on result blocks of at most 64×192. Each element of C sees
// the same operations in the same order as in one Gemm call; the split only
// keeps gonum from starting goroutines, which allocate, for products that are
// already part of a parallel job.
func gemmSerial(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	for i0 := 0; i0 < c.Rows; i0 += gemmChunkRows {
		i1 := min(i0+gemmChunkRows, c.Rows)
		var as blas64.General
		if tA == blas.NoTrans {
			as = subGeneral(a, i0, i1, 0, a.Cols)
		} else {
			as = subGeneral(a, 0, a.Rows, i0, i1)
		}
		for j0 := 0; j0 < c.Cols; j0 += gemmChunkCols {
			j1 := min(j0+gemmChunkCols, c.Cols)
			var bs blas64.General
			if tB == blas.NoTrans {
				bs = subGeneral(b, 0, b.Rows, j0, j1)
			} else {
				bs = subGeneral(b, j0, j1, 0, b.Cols)
			}
			blas64.Gemm(tA, tB, alpha, as, bs, beta, subGeneral(c, i0, i1, j0, j1))
		}
	}
}

// subGeneral returns the view of rows [r0, r1) and columns [c0, c1) of a.
func subGeneral(a blas64.General, r0, r1, c0, c1 int) blas64.General {
	if r1 == r0 || c1 == c0 {
		return blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: a.Stride}
	}
	return blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: a.Stride, Data: a.Data[r0*a.Stride+c0:]}
}

// gatherRows copies the rows of x (n×p) and the responses of y named by
// batch into xb (|B| rows of stride ldx ≥ p) and yb, so that a minibatch is
// read from contiguous memory by the batched gradients.
func gatherRows(xb []float64, ldx int, yb []float64, raw blas64.General, y []float64, batch []int) {
	p := raw.Cols
	for r, i := range batch {
		copy(xb[r*ldx:r*ldx+p], raw.Data[i*raw.Stride:i*raw.Stride+p])
		yb[r] = y[i]
	}
}

// transposeRows writes rows lo ≤ r < hi of xb (row stride ldx, p columns)
// into columns r of xbt (p rows of stride ldt).
func transposeRows(xbt []float64, ldt int, xb []float64, ldx, p, lo, hi int) {
	for r := lo; r < hi; r++ {
		for j, v := range xb[r*ldx : r*ldx+p] {
			xbt[j*ldt+r] = v
		}
	}
}

// prefetchBatch asks the processor to bring the rows of raw named by batch
// into its caches, ahead of a minibatch pass that will gather them; rows
// outside raw are ignored. It changes no result.
func prefetchBatch(raw blas64.General, batch []int) {
	if raw.Rows == 0 || raw.Cols == 0 {
		return
	}
	for _, i := range batch {
		if i < 0 || i >= raw.Rows {
			return
		}
	}
	if len(batch) > 0 {
		prefetchRows(&raw.Data[0], raw.Stride, &batch[0], len(batch), raw.Cols*8)
	}
}

// batchRows is a minibatch's gathered rows (|B|×p, row-major), their
// transpose (p×|B|) and their responses, as the batched gradients of both
// models hold them. The row strides are rounded up to whole cache lines (8
// values) and the buffers start on one, so that the products' vector loads
// of their rows never straddle two lines.
type batchRows struct {
	xb  []float64 // |B|×p gathered rows, row stride ldx
	xbt []float64 // their transpose, p×|B|, row stride ldt
	yb  []float64
	ldx int
	ldt int
}

// size makes room for nb rows of p features, keeping the buffers when they
// are large enough, and slices them to that size.
func (b *batchRows) size(nb, p int) {
	b.ldx, b.ldt = (p+7)&^7, (nb+7)&^7
	if cap(b.xb) < nb*b.ldx {
		b.xb = aligned64(nb * b.ldx)
	}
	if cap(b.xbt) < p*b.ldt {
		b.xbt = aligned64(p * b.ldt)
	}
	if cap(b.yb) < nb {
		b.yb = make([]float64, nb)
	}
	b.xb, b.xbt, b.yb = b.xb[:nb*b.ldx], b.xbt[:p*b.ldt], b.yb[:nb]
}

// aligned64 returns a zeroed slice of length n whose first element is at an
// address that is a multiple of 64 bytes (a cache line).
func aligned64(n int) []float64 {
	s := make([]float64, n+7)
	off := int(uintptr(unsafe.Pointer(&s[0]))%64) / 8
	if off != 0 {
		off = 8 - off
	}
	return s[off : off+n : off+n]
}
