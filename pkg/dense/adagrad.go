package dense

import "math"

// AdaGrad applies the momentum AdaGrad step of the SVGD reference code to
// x, given the direction g and the squared-direction history h (all of one
// length):
//
//	h ← g·g (first step) or h ← α·h + ((1−α)·g)·g,
//	x ← x + (ε·g) / (f + √h),
//
// each operation rounded as written, never fused. The AVX2 path does four
// coordinates at a time with the same bits (IEEE sums, products, quotients
// and square roots are correctly rounded).
func AdaGrad(x, g, h []float64, eps, alpha, fudge float64, first bool) {
	n := len(x)
	if len(g) != n || len(h) != n {
		panic("dense: AdaGrad length mismatch")
	}
	oma := 1 - alpha
	n4 := 0
	if useFMA {
		n4 = n &^ 3
		if n4 > 0 {
			f := 0
			if first {
				f = 1
			}
			adagradAVX(&x[0], &g[0], &h[0], n4, eps, alpha, oma, fudge, f)
		}
	}
	for j := n4; j < n; j++ {
		v := g[j]
		if first {
			h[j] = v * v
		} else {
			h[j] = float64(alpha*h[j]) + float64(float64(oma*v)*v)
		}
		x[j] += float64(eps*v) / float64(fudge+math.Sqrt(h[j]))
	}
}
