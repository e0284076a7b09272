package dense

import "math"

// ReLURows applies a bias and the ReLU to rows of a hidden layer and adds
// the output layer's products to f: for every row r < rows and unit
// k < h of a (row stride lda),
//
//	a_rk ← ReLU(a_rk + b1_k),   f_r ← f_r + w2_k·a_rk   (k = 0, …, h−1 in order),
//
// each product rounded before its sum (never fused), so f_r is the serial
// sum a scalar loop gives from its starting value f_r. The ReLU sets every
// value whose sign bit is set to +0 (a mask, no branch). The AVX2 path takes
// four rows at a time (lanes are rows, the chain over k kept per lane) and
// gives the same bits as the portable loop. It panics ("dense: ...") when a
// slice is too short or lda < h.
func ReLURows(a []float64, lda, rows, h int, b1, w2, f []float64) {
	if rows <= 0 || h <= 0 {
		return
	}
	if lda < h {
		panic("dense: stride smaller than a row")
	}
	if len(a) < (rows-1)*lda+h || len(b1) < h || len(w2) < h || len(f) < rows {
		panic("dense: ReLURows slice too short")
	}
	r, h4 := 0, 0
	if useFMA && h >= 4 {
		h4 = h &^ 3
		for ; r+4 <= rows; r += 4 {
			reluRows4AVX(&a[r*lda], lda, &b1[0], &w2[0], h4, &f[r])
			for l := r; l < r+4; l++ {
				f[l] = reluDotRow(a[l*lda+h4:l*lda+h], b1[h4:h], w2[h4:h], f[l])
			}
		}
	}
	for ; r < rows; r++ {
		f[r] = reluDotRow(a[r*lda:r*lda+h], b1[:h], w2[:h], f[r])
	}
}

// reluDotRow is one row of ReLURows.
func reluDotRow(a, b1, w2 []float64, f float64) float64 {
	b1, w2 = b1[:len(a)], w2[:len(a)]
	for k, v := range a {
		b := math.Float64bits(v + b1[k])
		b &^= uint64(int64(b) >> 63) // +0 where the sign bit is set
		v = math.Float64frombits(b)
		a[k] = v
		f += float64(w2[k] * v)
	}
	return f
}

// ReLUBackRows is the backward pass of ReLURows' layer: for every row
// r < rows in order and unit k < h of a (row stride lda), given the
// activations a_rk and the residuals res_r,
//
//	gw2_k ← gw2_k + res_r·a_rk,
//	a_rk  ← res_r·w2_k where the bits of a_rk are not all zero, else +0,
//	gb1_k ← gb1_k + a_rk (the new value),
//
// each product rounded before its sum. The mask replaces a branch on the
// unit's activity. The AVX2 path takes four units at a time with the same
// bits as the portable loop, in panels of 12 units whose sums stay in
// registers across the rows. It panics ("dense: ...") when a slice is too
// short or lda < h.
func ReLUBackRows(a []float64, lda, rows, h int, res, w2, gw2, gb1 []float64) {
	if rows <= 0 || h <= 0 {
		return
	}
	if lda < h {
		panic("dense: stride smaller than a row")
	}
	if len(a) < (rows-1)*lda+h || len(res) < rows || len(w2) < h || len(gw2) < h || len(gb1) < h {
		panic("dense: ReLUBackRows slice too short")
	}
	h4 := 0
	if useFMA && h >= 4 {
		h4 = h &^ 3
		k := 0
		for ; k+12 <= h4; k += 12 {
			reluBack12AVX(&a[k], lda, rows, &res[0], &w2[k], &gw2[k], &gb1[k])
		}
		if k < h4 {
			reluBackAVX(&a[k], lda, rows, &res[0], &w2[k], &gw2[k], &gb1[k], h4-k)
		}
		if h4 == h {
			return
		}
	}
	w2, gw2, gb1 = w2[h4:h], gw2[h4:h], gb1[h4:h]
	for r := 0; r < rows; r++ {
		rr := res[r]
		ar := a[r*lda+h4 : r*lda+h]
		for k, v := range ar {
			gw2[k] += float64(rr * v)
			b := math.Float64bits(v)
			mask := -((b | -b) >> 63) // all ones where b ≠ 0
			d := math.Float64frombits(math.Float64bits(rr*w2[k]) & mask)
			ar[k] = d
			gb1[k] += d
		}
	}
}
