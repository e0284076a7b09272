package dense

import "math"

const errAwayRange = "dense: AwayScan index out of range"

// AwayScan is the pass over the support of a pairwise Frank-Wolfe step on
// the simplex for the quadratic F(w) = wᵀQw + 2bᵀw + c, whose gradient is
// 2g with g = Qw + b, so that F = wᵀg + bᵀw + c; s is the Frank-Wolfe
// vertex (g_s = gmin), qs Q's row Q_s· and qss = Q_ss. Over the entries
// i = sup[0], sup[1], … in that order it returns the sums
//
//	wg = Σ w_i g_i,   wb = −Σ w_i b_i   (F = wg − wb + c)
//
// (each product and each sum rounded, in the order of sup) and the first
// i of largest decrease of F, γ(2dg − γk), when weight γ = min(w_i, dg/k)
// moves from i to s (the exact line search), among those with g_i > gmin,
//
//	dg = g_i − gmin,  k = Q_ii + Q_ss − 2Q_si,
//	dec = dg²/k                        if k > 0 and dg < w_i·k,
//	dec = 2w_i·dg − w_i²·k             if k > 0 otherwise,
//	dec = 2w_i·dg                      if not k > 0,
//
// with its decrease best, or ai = −1 and best = 0 when no decrease is
// above 0. It has the bits of the serial loop
//
//	ai, best := -1, 0.0
//	for _, i := range sup {
//		wi, gi := w[i], g[i]
//		wg += wi * gi
//		wb -= wi * b[i]
//		if !(gi > gmin) { continue }
//		dg := gi - gmin
//		k := diag[i] + qss - 2*qs[i]
//		dec := 2 * wi * dg
//		if k > 0 {
//			if dg < wi*k { dec = dg * dg / k } else { dec -= wi * wi * k }
//		}
//		if dec > best { ai, best = i, dec }
//	}
//
// whose AVX2 path loads four entries at a time, adds the sums' terms in
// the order of sup, and keeps four lanes of first maxima with their places
// in sup, reduced at the end (the earlier place first on equal values).
// Every index in sup must be below the length of w, g, b, diag and qs; it
// panics ("dense: ...") otherwise.
func AwayScan(sup []int, w, g, b, diag, qs []float64, gmin, qss float64) (wg, wb float64, ai int, best float64) {
	m := min(len(w), len(g), len(b), len(diag), len(qs))
	if m == 0 && len(sup) > 0 {
		panic(errAwayRange)
	}
	ai = -1
	n4 := 0
	if useFMA && len(sup) >= 4 {
		n4 = len(sup) &^ 3
		var out [10]float64
		if !awayScanAVX(&sup[0], n4, m, &w[0], &g[0], &b[0], &diag[0], &qs[0], gmin, qss, &out) {
			panic(errAwayRange)
		}
		wg, wb = out[0], out[1]
		bk := -1
		for l := range 4 {
			v, k := out[2+l], int(math.Float64bits(out[6+l]))
			if k >= 0 && (v > best || (v == best && k < bk)) {
				bk, best = k, v
			}
		}
		if bk >= 0 {
			ai = sup[bk]
		}
	}
	for _, i := range sup[n4:] {
		if uint(i) >= uint(m) {
			panic(errAwayRange)
		}
		wi, gi := w[i], g[i]
		wg += float64(wi * gi)
		wb -= float64(wi * b[i])
		if !(gi > gmin) {
			continue
		}
		dg := gi - gmin
		k := diag[i] + qss - float64(2*qs[i])
		dec := float64(2*wi) * dg
		if k > 0 {
			if dg < float64(wi*k) {
				dec = float64(dg*dg) / k
			} else {
				dec -= float64(float64(wi*wi) * k)
			}
		}
		if dec > best {
			ai, best = i, dec
		}
	}
	return wg, wb, ai, best
}
