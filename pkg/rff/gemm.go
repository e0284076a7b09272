package rff

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// The two products of this package, written so that they allocate nothing
// and give the bits of gonum's blas64.Gemm with α = 1 and β = 0 (which
// hands products of four or more 64×64 blocks of C to goroutines, and so
// allocates). gonum sums C's elements in this order:
//
//   - Aᵀ·B adds aₗᵢ·b_l row by row for l = 0, 1, … in order, skipping
//     aₗᵢ = 0, whatever the blocks;
//   - A·Bᵀ adds the dot product of each 64-column block of k in turn when
//     the product has four or more blocks of C, else one dot product over
//     all of k.
//
// floats.Dot and floats.AddScaled are the same assembly kernels gonum's
// Dgemm calls. TestGemmBits checks the bits against blas64.Gemm.

const (
	gemmBlock    = 64 // gonum's blockSize
	gemmParBlock = 4  // gonum's minParBlock
)

func gemmBlocks(n int) int { return (n + gemmBlock - 1) / gemmBlock }

// gemmNT sets c (m×n) to a·bᵀ for a m×k and b n×k.
func gemmNT(a, b, c blas64.General) {
	m, k, n := a.Rows, a.Cols, b.Rows
	if b.Cols != k || c.Rows != m || c.Cols != n {
		panic("rff: dimension mismatch")
	}
	zeroRows(c)
	step := k
	if gemmBlocks(m)*gemmBlocks(n) >= gemmParBlock {
		step = gemmBlock
	}
	for l := 0; l < k; l += step {
		hi := min(l+step, k)
		for i := 0; i < m; i++ {
			ai := a.Data[i*a.Stride+l : i*a.Stride+hi]
			ci := c.Data[i*c.Stride : i*c.Stride+n]
			for j := range ci {
				ci[j] += floats.Dot(ai, b.Data[j*b.Stride+l:j*b.Stride+hi])
			}
		}
	}
}

// gemmTN sets c (m×n) to aᵀ·b for a k×m and b k×n.
func gemmTN(a, b, c blas64.General) {
	k, m, n := a.Rows, a.Cols, b.Cols
	if b.Rows != k || c.Rows != m || c.Cols != n {
		panic("rff: dimension mismatch")
	}
	zeroRows(c)
	for l := 0; l < k; l++ {
		bl := b.Data[l*b.Stride : l*b.Stride+n]
		for i, v := range a.Data[l*a.Stride : l*a.Stride+m] {
			if v != 0 {
				floats.AddScaled(c.Data[i*c.Stride:i*c.Stride+n], v, bl)
			}
		}
	}
}

// zeroRows sets the c.Rows×c.Cols elements of c to 0 (β = 0).
func zeroRows(c blas64.General) {
	for i := 0; i < c.Rows; i++ {
		ci := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		for j := range ci {
			ci[j] = 0
		}
	}
}
