package constrain

import (
	"fmt"
	"math"
)

// sigmoid returns σ(u) = 1/(1 + e⁻ᵘ) without overflow.
func sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// logSigmoidPair returns log σ(u) + log(1 − σ(u)) = −|u| − 2 log(1 + e^{−|u|}).
func logSigmoidPair(u float64) float64 {
	a := math.Abs(u)
	return -a - 2*math.Log1p(math.Exp(-a))
}

// interval returns lo + (hi − lo) σ(u), computed from the nearer end so that
// values close to either bound keep their precision.
func interval(lo, hi, u float64) float64 {
	if u > 0 {
		return hi - (hi-lo)*sigmoid(-u)
	}
	return lo + (hi-lo)*sigmoid(u)
}

// constrain writes the block's constrained values into x (reading earlier
// parameters' values for dependent bounds) and returns its log-Jacobian.
func (b *block) constrain(x, u []float64) float64 {
	xs := x[b.xo : b.xo+b.n]
	us := u[b.uo : b.uo+b.m]
	var lj float64
	switch b.kind {
	case kReal:
		copy(xs, us)
	case kLower:
		lo := b.lo.at(x)
		for i, v := range us {
			xs[i] = lo + math.Exp(v)
			lj += v
		}
	case kUpper:
		hi := b.hi.at(x)
		for i, v := range us {
			xs[i] = hi - math.Exp(v)
			lj += v
		}
	case kInterval:
		lo, hi := b.lo.at(x), b.hi.at(x)
		lw := math.Log(hi - lo)
		for i, v := range us {
			xs[i] = interval(lo, hi, v)
			lj += lw + logSigmoidPair(v)
		}
	case kOrdered, kPositiveOrdered:
		if b.kind == kOrdered {
			xs[0] = us[0]
		} else {
			xs[0] = math.Exp(us[0])
			lj += us[0]
		}
		for i := 1; i < b.n; i++ {
			xs[i] = xs[i-1] + math.Exp(us[i])
			lj += us[i]
		}
	case kSimplex:
		stick := 1.0
		for k, v := range us {
			a := v - math.Log(float64(b.m-k))
			z := sigmoid(a)
			xs[k] = stick * z
			lj += math.Log(stick) + logSigmoidPair(a)
			stick -= xs[k]
		}
		xs[b.m] = stick
	}
	return lj
}

// adjoint writes the block's part of the gradient into grad, given the
// adjoint gx of x, and adds the adjoints of its bounds into gx (earlier
// parameters, whose adjoint is then complete when their turn comes).
func (b *block) adjoint(grad, u, x, gx []float64) {
	xs := x[b.xo : b.xo+b.n]
	gs := gx[b.xo : b.xo+b.n]
	us := u[b.uo : b.uo+b.m]
	gu := grad[b.uo : b.uo+b.m]
	switch b.kind {
	case kReal:
		copy(gu, gs)
	case kLower:
		var glo float64
		for i, v := range us {
			gu[i] = gs[i]*math.Exp(v) + 1
			glo += gs[i]
		}
		if b.lo.grad != nil {
			b.lo.grad(x, glo, gx)
		}
	case kUpper:
		var ghi float64
		for i, v := range us {
			gu[i] = -gs[i]*math.Exp(v) + 1
			ghi += gs[i]
		}
		if b.hi.grad != nil {
			b.hi.grad(x, ghi, gx)
		}
	case kInterval:
		lo, hi := b.lo.at(x), b.hi.at(x)
		w := hi - lo
		var glo, ghi float64
		for i, v := range us {
			s, c := sigmoid(v), sigmoid(-v)
			gu[i] = gs[i]*w*s*c + c - s
			glo += gs[i]*c - 1/w
			ghi += gs[i]*s + 1/w
		}
		if b.lo.grad != nil {
			b.lo.grad(x, glo, gx)
		}
		if b.hi.grad != nil {
			b.hi.grad(x, ghi, gx)
		}
	case kOrdered, kPositiveOrdered:
		var acc float64
		for i := b.n - 1; i >= 1; i-- {
			acc += gs[i]
			gu[i] = acc*math.Exp(us[i]) + 1
		}
		acc += gs[0]
		if b.kind == kOrdered {
			gu[0] = acc
		} else {
			gu[0] = acc*math.Exp(us[0]) + 1
		}
	case kSimplex:
		gstick := gs[b.m] // adjoint of the stick left after step k
		stick := xs[b.m]
		for k := b.m - 1; k >= 0; k-- {
			sk := stick + xs[k] // the stick before step k
			a := us[k] - math.Log(float64(b.m-k))
			z, c := sigmoid(a), sigmoid(-a)
			gz := (gs[k] - gstick) * sk
			gu[k] = gz*z*c + c - z
			gstick = gs[k]*z + gstick*c + 1/sk
			stick = sk
		}
	}
}

// free writes the unconstrained coordinates of the block's values in x
// into us; names are the names of its elements, for errors.
func (b *block) free(us, x []float64, names []string) error {
	xs := x[b.xo : b.xo+b.n]
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("constrain: %s = %g is not finite", names[i], v)
		}
	}
	outside := func(i int, lo, hi string) error {
		return fmt.Errorf("constrain: %s = %g is outside its support (%s, %s)", names[i], xs[i], lo, hi)
	}
	switch b.kind {
	case kReal:
		copy(us, xs)
	case kLower:
		lo := b.lo.at(x)
		for i, v := range xs {
			if !(v > lo) {
				return outside(i, b.lo.show(lo), "∞")
			}
			us[i] = math.Log(v - lo)
		}
	case kUpper:
		hi := b.hi.at(x)
		for i, v := range xs {
			if !(v < hi) {
				return outside(i, "−∞", b.hi.show(hi))
			}
			us[i] = math.Log(hi - v)
		}
	case kInterval:
		lo, hi := b.lo.at(x), b.hi.at(x)
		for i, v := range xs {
			if !(v > lo && v < hi) {
				return outside(i, b.lo.show(lo), b.hi.show(hi))
			}
			us[i] = math.Log(v-lo) - math.Log(hi-v)
		}
	case kOrdered, kPositiveOrdered:
		if b.kind == kOrdered {
			us[0] = xs[0]
		} else {
			if !(xs[0] > 0) {
				return outside(0, "0", "∞")
			}
			us[0] = math.Log(xs[0])
		}
		for i := 1; i < b.n; i++ {
			if !(xs[i] > xs[i-1]) {
				return fmt.Errorf("constrain: %s = %g is not above %s = %g (%s is %s)", names[i], xs[i], names[i-1], xs[i-1], b.name, b.kind)
			}
			us[i] = math.Log(xs[i] - xs[i-1])
		}
	case kSimplex:
		var sum float64
		for i, v := range xs {
			if !(v > 0) {
				return fmt.Errorf("constrain: %s = %g: a simplex's values must be positive to have unconstrained coordinates", names[i], v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-8 {
			return fmt.Errorf("constrain: simplex %s sums to %.17g, not 1 (within 1e-8)", b.name, sum)
		}
		stick := xs[b.m]
		for k := b.m - 1; k >= 0; k-- {
			us[k] = math.Log(xs[k]) - math.Log(stick) + math.Log(float64(b.m-k))
			stick += xs[k]
		}
	}
	return nil
}

// show describes a bound at its current value.
func (b Bound) show(v float64) string {
	if b.f == nil {
		return b.desc
	}
	return fmt.Sprintf("%s = %.10g", b.desc, v)
}
