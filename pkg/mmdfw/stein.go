package mmdfw

import "math"

// steinRBF returns the Stein kernel of the RBF kernel with bandwidth h,
//
//	k₀(x, y) = k(x, y) [d/h² − ‖r‖²/h⁴ + rᵀ(s(x) − s(y))/h² + s(x)ᵀs(y)],
//
// r = x − y, for the Stein weight rule.
func steinRBF(x, sx, y, sy []float64, h float64) float64 {
	inv := 1 / (h * h)
	var r2, rs, ss float64
	for j, xv := range x {
		r := xv - y[j]
		r2 += r * r
		rs += r * (sx[j] - sy[j])
		ss += sx[j] * sy[j]
	}
	k := math.Exp(-0.5 * r2 * inv)
	return k * (float64(len(x))*inv - r2*inv*inv + rs*inv + ss)
}
