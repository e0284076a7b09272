package kernel

import "math"

// IMQ is the inverse multiquadric kernel k(x, y) = (c² + ‖x − y‖²)^β of
// Stein Points (Chen et al. 2018). Its heavy tails keep the kernel Stein
// discrepancy able to detect non-convergence, which the RBF kernel cannot.
//
// The zero value is the usual choice c = 1, β = −1/2: a zero C means 1 and a
// zero Beta means −1/2.
type IMQ struct {
	// C is the scale c > 0 (0 means 1).
	C float64
	// Beta is the exponent β ∈ (−1, 0) (0 means −1/2).
	Beta float64
}

// params returns c² and β with the zero-value defaults applied.
func (k IMQ) params() (c2, beta float64) {
	c, beta := k.C, k.Beta
	if c == 0 {
		c = 1
	}
	if beta == 0 {
		beta = -0.5
	}
	return c * c, beta
}

// Eval returns k(x, y).
func (k IMQ) Eval(x, y []float64) float64 {
	return k.FromSqDist(sqDist(x, y))
}

// FromSqDist returns k as a function of the squared distance r².
func (k IMQ) FromSqDist(r2 float64) float64 {
	c2, beta := k.params()
	return imqPow(c2+r2, beta)
}

// Profile returns f(r²) = (c² + r²)^β and its first two derivatives with
// respect to r²: f′ = β(c² + r²)^(β−1), f″ = β(β−1)(c² + r²)^(β−2).
func (k IMQ) Profile(r2 float64) (f, df, d2f float64) {
	c2, beta := k.params()
	q := c2 + r2
	f = imqPow(q, beta)
	df = beta * f / q
	d2f = (beta - 1) * df / q
	return f, df, d2f
}

// GradX writes ∇ₓk(x, y) = 2β(c² + ‖x − y‖²)^(β−1) (x − y) into dst and
// returns k(x, y).
func (k IMQ) GradX(dst, x, y []float64) float64 {
	if len(x) != len(y) || len(dst) != len(x) {
		panic("kernel: dimension mismatch")
	}
	f, df, _ := k.Profile(sqDist(x, y))
	c := 2 * df
	for i, v := range x {
		dst[i] = c * (v - y[i])
	}
	return f
}

// imqPow is q^β with a fast path for the default β = −1/2.
func imqPow(q, beta float64) float64 {
	if beta == -0.5 {
		return 1 / math.Sqrt(q)
	}
	return math.Pow(q, beta)
}

// sqDist returns ‖x − y‖².
func sqDist(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("kernel: dimension mismatch")
	}
	var s float64
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	return s
}
