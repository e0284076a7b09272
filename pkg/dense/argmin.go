package dense

import "math"

// AddScaledDiffArgmin sets
//
//	g_j ← g_j + γ·(a_j − b_j)
//
// for j < len(g), the difference, the product and the sum each rounded (no
// FMA), and returns the index and value of the first smallest new g_j and
// the index and value of the first largest, compared with < and > (so a NaN
// is never chosen; 0 and +Inf, 0 and −Inf when no entry is below +Inf or
// above −Inf). It has the bits of the serial loop
//
//	imin, gmin, imax, gmax := 0, math.Inf(1), 0, math.Inf(-1)
//	for j := range g {
//		v := g[j] + γ*(a[j]-b[j])
//		g[j] = v
//		if v < gmin { imin, gmin = j, v }
//		if v > gmax { imax, gmax = j, v }
//	}
//
// whose AVX2 path keeps four lanes of minima, maxima and their indices and
// reduces them at the end (lower index first on equal values). It is the
// gradient update of a pairwise Frank-Wolfe step, g ← g + γ(Q_s· − Q_a·),
// with the next step's vertex.
func AddScaledDiffArgmin(g, a, b []float64, gamma float64) (imin int, gmin float64, imax int, gmax float64) {
	n := len(g)
	a, b = a[:n], b[:n]
	imin, gmin, imax, gmax = 0, math.Inf(1), 0, math.Inf(-1)
	n4 := 0
	if useFMA && n >= 4 {
		n4 = n &^ 3
		var lanes [16]float64
		diffArgminAVX(&g[0], &a[0], &b[0], n4, gamma, &lanes)
		for l := range 4 {
			v, j := lanes[l], int(math.Float64bits(lanes[4+l]))
			if v < gmin || (v == gmin && j < imin) {
				imin, gmin = j, v
			}
			v, j = lanes[8+l], int(math.Float64bits(lanes[12+l]))
			if v > gmax || (v == gmax && j < imax) {
				imax, gmax = j, v
			}
		}
	}
	for j := n4; j < n; j++ {
		v := g[j] + float64(gamma*(a[j]-b[j]))
		g[j] = v
		if v < gmin {
			imin, gmin = j, v
		}
		if v > gmax {
			imax, gmax = j, v
		}
	}
	return imin, gmin, imax, gmax
}
