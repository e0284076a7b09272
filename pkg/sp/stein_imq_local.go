package sp

import "math"

// imqStein is the Stein kernel of the inverse multiquadric base kernel
// k(x, y) = (c² + ‖x − y‖²)^β, kept here until package kernel provides it.
// With u = x − y, q = c² + ‖u‖² and f′ = β q^(β−1), f″ = β(β−1) q^(β−2)
// (derivatives in r² = ‖u‖²),
//
//	k₀(x, y) = −4f″r² − 2d f′ + 2f′ u·(s(y) − s(x)) + q^β s(x)·s(y).
type imqStein struct {
	c2, beta float64
}

// stein returns k₀(x, y) given the scores sx = s(x) and sy = s(y).
func (k imqStein) stein(x, y, sx, sy []float64) float64 {
	var r2, us, ss float64
	for i, xi := range x {
		u := xi - y[i]
		r2 += u * u
		us += u * (sy[i] - sx[i])
		ss += sx[i] * sy[i]
	}
	q := k.c2 + r2
	var f float64
	if k.beta == -0.5 {
		f = 1 / math.Sqrt(q)
	} else {
		f = math.Pow(q, k.beta)
	}
	df := k.beta * f / q
	d2f := (k.beta - 1) * df / q
	return -4*d2f*r2 - 2*float64(len(x))*df + 2*df*us + f*ss
}
