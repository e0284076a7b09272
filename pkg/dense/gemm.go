// Package dense holds the small dense kernels of the particle methods'
// inner loops, on the calling goroutine and allocating nothing: the product
// C = α·A·B of row-major matrices (MulNN) and the exponential of a scaled
// vector (ExpScaled), as the SVGD direction and the RBF repulsion need them.
//
// Every path gives the same bits: the AVX-512 and AVX2/FMA kernels on
// amd64 processors that have them, and portable Go loops elsewhere or with
// the noasm build tag, which perform the same IEEE operations in the same
// order (fused multiply-adds through math.FMA). Results therefore do not
// depend on the processor or the build. The products served are too small for gonum's
// Dgemm to pay for its goroutines and allocations (100×100×56 in one SVGD
// iteration).
package dense

import "math"

// MulNN sets C = α·A·B, where A is m×k with row stride lda, B is k×n with
// row stride ldb and C is m×n with row stride ldc, all row-major. C must not
// overlap A or B. Every element is accumulated in the order of the inner
// index with fused multiply-adds,
//
//	s ← 0;  s ← fma(A_il, B_lj, s) for l = 0, …, k−1;  C_ij = α·s,
//
// in 4×8, 4×4 and masked 4×r register blocks of C on the AVX2/FMA path
// and in masked 8×16 and 4×16 blocks on the AVX-512 path. It panics ("dense: ...") when a stride is smaller than its
// row length or a slice is too short.
func MulNN(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic("dense: negative dimension")
	}
	if lda < max(k, 1) || ldb < max(n, 1) || ldc < max(n, 1) {
		panic("dense: stride smaller than a row")
	}
	if m == 0 || n == 0 {
		return
	}
	if len(c) < (m-1)*ldc+n {
		panic("dense: C too short")
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	if len(a) < (m-1)*lda+k || len(b) < (k-1)*ldb+n {
		panic("dense: A or B too short")
	}
	m4, n8 := 0, 0
	if useFMA && use512 {
		m4, n8 = m&^3, n
		m8 := m &^ 7
		for i := 0; i < m8; i += 8 {
			for j := 0; j < n; j += 16 {
				mask := 1<<min(16, n-j) - 1
				mul8x16(k, alpha, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc, mask)
			}
		}
		for i := m8; i < m4; i += 4 {
			for j := 0; j < n; j += 16 {
				mask := 1<<min(16, n-j) - 1
				mul4x16(k, alpha, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc, mask)
			}
		}
	} else if useFMA {
		m4, n8 = m&^3, n&^7
		n4 := n &^ 3
		for i := 0; i < m4; i += 4 {
			for j := 0; j < n8; j += 8 {
				mul4x8(k, alpha, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc)
			}
			if n4 > n8 {
				mul4x4(k, alpha, &a[i*lda], lda, &b[n8], ldb, &c[i*ldc+n8], ldc)
			}
			if n > n4 {
				mul4xr(k, alpha, &a[i*lda], lda, &b[n4], ldb, &c[i*ldc+n4], ldc, n-n4)
			}
		}
		if m4 > 0 {
			n8 = n
		}
	}
	// The columns right of the micro-kernel's blocks, then the rows below.
	if n8 < n {
		mulRows(0, m4, n8, n, k, alpha, a, lda, b, ldb, c, ldc)
	}
	mulRows(m4, m, 0, n, k, alpha, a, lda, b, ldb, c, ldc)
}

// mulRows is the portable product on rows [i0, i1) and columns [j0, j1) of
// C: row by row, C's row is the accumulator and B is read row-wise.
func mulRows(i0, i1, j0, j1, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := i0; i < i1; i++ {
		cr := c[i*ldc+j0 : i*ldc+j1]
		clear(cr)
		ar := a[i*lda : i*lda+k]
		for l, ail := range ar {
			br := b[l*ldb+j0 : l*ldb+j1]
			for j, v := range br {
				cr[j] = math.FMA(ail, v, cr[j])
			}
		}
		for j := range cr {
			cr[j] *= alpha
		}
	}
}
