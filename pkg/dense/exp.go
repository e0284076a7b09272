package dense

import "math"

// Constants of the exponential: 1/ln 2, the rounding shift 1.5·2⁵², ln 2
// split in a head with 32 significant bits and a tail, the cut-off, and the
// Taylor coefficients 1/j!, j = 13 down to 0.
const (
	expLog2e = 0x1.71547652b82fep+00
	expShift = 0x1.8p+52
	expLn2Hi = 0x1.62e42feep-01
	expLn2Lo = 0x1.a39ef35793c76p-33
	expMax   = 708
)

var expPoly = [14]float64{
	0x1.6124613a86d09p-33, 0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26, 0x1.27e4fb7789f5cp-22,
	0x1.71de3a556c734p-19, 0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10,
	0x1.1111111111111p-07, 0x1.5555555555555p-05, 0x1.5555555555555p-03, 0x1p-01, 0x1p+00, 0x1p+00,
}

// ExpScaled sets x[i] = exp(c·x[i]) for c·x[i] ≤ 0, as the Gram matrix of the
// RBF kernel needs with c = −1/(2h²) and x the squared distances. The
// exponential is 2^(−k)·exp(r) with k = round(a/ln 2), a = −c·x[i],
// r = k·ln 2 − a ∈ [−ln 2/2, ln 2/2] and the Taylor polynomial of degree 13
// (truncation below 5·10⁻¹⁸), evaluated with fused multiply-adds: within
// 2 ulps of math.Exp. Values with a > 708 (below 3·10⁻³⁰⁸) give 0. The
// AVX2/FMA path does four at a time and the AVX-512 path eight (its
// last few through a lane mask), with the same bits as the portable loop. Inputs with c·x[i] > 0 or NaN are not supported.
func ExpScaled(x []float64, c float64) {
	nc := -c
	if useFMA && use512 {
		if len(x) > 0 {
			expNeg512(&x[0], len(x), nc)
		}
		return
	}
	n4 := 0
	if useFMA {
		n4 = len(x) &^ 3
		if n4 > 0 {
			expNegFMA(&x[0], n4, nc)
		}
	}
	for i := n4; i < len(x); i++ {
		x[i] = expNeg(nc * x[i])
	}
}

// expNeg returns exp(−a) for a ≥ 0 as ExpScaled computes it.
func expNeg(a0 float64) float64 {
	a := a0
	if a > expMax {
		a = expMax
	}
	t := math.FMA(a, expLog2e, expShift)
	k := math.Float64bits(t) - math.Float64bits(expShift)
	kf := t - expShift
	r := math.FMA(kf, expLn2Hi, -a)
	r = math.FMA(kf, expLn2Lo, r)
	p := expPoly[0]
	for _, cj := range expPoly[1:] {
		p = math.FMA(p, r, cj)
	}
	v := math.Float64frombits(math.Float64bits(p) - k<<52)
	if a0 > expMax {
		return 0
	}
	return v
}
