package logpdf

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// univariate is one density of this package seen through slices, so that
// one test body checks them all: f returns the log density and its
// derivatives (with respect to x, then the parameters in order), ref
// gonum's LogProb of the same distribution, draw a point (x, parameters)
// inside the support and the parameters' domain, and step the scale of a
// finite-difference step in each coordinate at that point (the distance to
// the nearest boundary, or 1 for an unbounded coordinate).
type univariate struct {
	name string
	f    func(x float64, p []float64) (float64, []float64)
	ref  func(x float64, p []float64) float64
	draw func(r *rand.Rand) (float64, []float64)
}

func unif(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

var univariates = []univariate{
	{
		name: "Normal",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c := Normal(x, p[0], p[1])
			return lp, []float64{a, b, c}
		},
		ref: func(x float64, p []float64) float64 { return distuv.Normal{Mu: p[0], Sigma: p[1]}.LogProb(x) },
		draw: func(r *rand.Rand) (float64, []float64) {
			mu, sigma := unif(r, -3, 3), unif(r, 0.2, 5)
			return mu + 2*sigma*r.NormFloat64(), []float64{mu, sigma}
		},
	},
	{
		name: "StudentT",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c, d := StudentT(x, p[0], p[1], p[2])
			return lp, []float64{a, b, c, d}
		},
		ref: func(x float64, p []float64) float64 {
			return distuv.StudentsT{Nu: p[0], Mu: p[1], Sigma: p[2]}.LogProb(x)
		},
		draw: func(r *rand.Rand) (float64, []float64) {
			nu, mu, sigma := unif(r, 0.5, 30), unif(r, -3, 3), unif(r, 0.2, 5)
			return mu + 3*sigma*r.NormFloat64(), []float64{nu, mu, sigma}
		},
	},
	{
		name: "Cauchy",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c := Cauchy(x, p[0], p[1])
			return lp, []float64{a, b, c}
		},
		ref: func(x float64, p []float64) float64 {
			return distuv.StudentsT{Nu: 1, Mu: p[0], Sigma: p[1]}.LogProb(x)
		},
		draw: func(r *rand.Rand) (float64, []float64) {
			mu, sigma := unif(r, -3, 3), unif(r, 0.2, 5)
			return mu + 3*sigma*r.NormFloat64(), []float64{mu, sigma}
		},
	},
	{
		name: "Gamma",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c := Gamma(x, p[0], p[1])
			return lp, []float64{a, b, c}
		},
		ref: func(x float64, p []float64) float64 { return distuv.Gamma{Alpha: p[0], Beta: p[1]}.LogProb(x) },
		draw: func(r *rand.Rand) (float64, []float64) {
			alpha, beta := unif(r, 0.3, 10), unif(r, 0.2, 5)
			return math.Exp(unif(r, -3, 3)) / beta, []float64{alpha, beta}
		},
	},
	{
		name: "InverseGamma",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c := InverseGamma(x, p[0], p[1])
			return lp, []float64{a, b, c}
		},
		ref: func(x float64, p []float64) float64 {
			return distuv.InverseGamma{Alpha: p[0], Beta: p[1]}.LogProb(x)
		},
		draw: func(r *rand.Rand) (float64, []float64) {
			alpha, beta := unif(r, 0.3, 10), unif(r, 0.2, 5)
			return beta * math.Exp(unif(r, -3, 3)), []float64{alpha, beta}
		},
	},
	{
		name: "Exponential",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b := Exponential(x, p[0])
			return lp, []float64{a, b}
		},
		ref: func(x float64, p []float64) float64 { return distuv.Exponential{Rate: p[0]}.LogProb(x) },
		draw: func(r *rand.Rand) (float64, []float64) {
			lambda := unif(r, 0.1, 10)
			return unif(r, 0.01, 5) / lambda, []float64{lambda}
		},
	},
	{
		name: "Beta",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c := Beta(x, p[0], p[1])
			return lp, []float64{a, b, c}
		},
		ref: func(x float64, p []float64) float64 { return distuv.Beta{Alpha: p[0], Beta: p[1]}.LogProb(x) },
		draw: func(r *rand.Rand) (float64, []float64) {
			return unif(r, 0.01, 0.99), []float64{unif(r, 0.3, 10), unif(r, 0.3, 10)}
		},
	},
	{
		name: "LogNormal",
		f: func(x float64, p []float64) (float64, []float64) {
			lp, a, b, c := LogNormal(x, p[0], p[1])
			return lp, []float64{a, b, c}
		},
		ref: func(x float64, p []float64) float64 { return distuv.LogNormal{Mu: p[0], Sigma: p[1]}.LogProb(x) },
		draw: func(r *rand.Rand) (float64, []float64) {
			mu, sigma := unif(r, -2, 2), unif(r, 0.2, 2)
			return math.Exp(mu + 2*sigma*r.NormFloat64()), []float64{mu, sigma}
		},
	},
}

// Every density agrees with gonum's distuv LogProb at 2000 random points,
// to a relative 1e-12 of max(1, |log p|): the two evaluate the same
// formula with the same math.Lgamma, differing only in the order of the
// sums and log1p against log, a few ulps of the largest term.
func TestUnivariateMatchesDistuv(t *testing.T) {
	for _, u := range univariates {
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 2000; i++ {
			x, p := u.draw(r)
			got, _ := u.f(x, p)
			want := u.ref(x, p)
			if d := math.Abs(got - want); !(d <= 1e-12*math.Max(1, math.Abs(want))) {
				t.Fatalf("%s(%v, %v) = %v, distuv says %v (difference %.3g)", u.name, x, p, got, want, d)
			}
		}
	}
}

// Every partial derivative agrees with a central finite difference at 500
// random points. The step in a coordinate v is h = 10⁻⁵·s, s = |v| for a
// positive coordinate (x of a positive support, a scale, shape or rate, so
// that v ± h stays inside; min(x, 1 − x) for the beta's x) and max(1, |v|)
// otherwise. The difference's error is the truncation h²|f‴|/6 plus the
// rounding ε|f|/h: with s the scale on which f varies, both are near
// 10⁻¹⁰ relative to |f′| + |f|/s, so the tolerance 10⁻⁶·(1 + |f′| + |f|/s)
// leaves four orders of margin and still fails any wrong term.
func TestUnivariateGradient(t *testing.T) {
	for _, u := range univariates {
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 500; i++ {
			x, p := u.draw(r)
			lp, g := u.f(x, p)
			pt := append([]float64{x}, p...)
			eval := func(pt []float64) float64 { v, _ := u.f(pt[0], pt[1:]); return v }
			for k := range pt {
				s := math.Max(1, math.Abs(pt[k]))
				if pt[k] > 0 && positiveCoord(u.name, k) {
					s = pt[k]
					if u.name == "Beta" && k == 0 {
						s = math.Min(x, 1-x)
					}
				}
				h := 1e-5 * s
				q := append([]float64(nil), pt...)
				q[k] = pt[k] + h
				fp := eval(q)
				q[k] = pt[k] - h
				fm := eval(q)
				fd := (fp - fm) / (2 * h)
				if d := math.Abs(fd - g[k]); !(d <= 1e-6*(1+math.Abs(g[k])+math.Abs(lp)/s)) {
					t.Fatalf("%s at %v: derivative %d = %v, finite difference %v (difference %.3g)", u.name, pt, k, g[k], fd, d)
				}
			}
		}
	}
}

// positiveCoord reports whether coordinate k (0 the variate, then the
// parameters) of the density name must stay positive.
func positiveCoord(name string, k int) bool {
	switch name {
	case "Normal", "Cauchy", "LogNormal":
		return k == 2 || (name == "LogNormal" && k == 0)
	case "StudentT":
		return k == 1 || k == 3
	}
	return true // Gamma, InverseGamma, Exponential, Beta: all positive
}

// StudentT with one degree of freedom is Cauchy, derivatives included.
func TestStudentTOneIsCauchy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		x, mu, sigma := 10*r.NormFloat64(), r.NormFloat64(), unif(r, 0.1, 10)
		lp, dx, _, dmu, ds := StudentT(x, 1, mu, sigma)
		clp, cdx, cdmu, cds := Cauchy(x, mu, sigma)
		for _, c := range [][2]float64{{lp, clp}, {dx, cdx}, {dmu, cdmu}, {ds, cds}} {
			if math.Abs(c[0]-c[1]) > 1e-13*math.Max(1, math.Abs(c[1])) {
				t.Fatalf("StudentT(%v, 1, %v, %v) = %v, Cauchy %v", x, mu, sigma, c[0], c[1])
			}
		}
	}
}

// Outside the support the log density is −Inf and every derivative 0; at
// the exponential's closed boundary it is finite; a NaN variate gives NaN.
func TestUnivariateOutsideSupport(t *testing.T) {
	cases := []struct {
		name string
		x    float64
		p    []float64
		want float64
	}{
		{"Gamma", 0, []float64{2, 1}, math.Inf(-1)},
		{"Gamma", 0, []float64{0.5, 1}, math.Inf(-1)},
		{"Gamma", -1, []float64{2, 1}, math.Inf(-1)},
		{"Gamma", math.Inf(-1), []float64{2, 1}, math.Inf(-1)},
		{"InverseGamma", 0, []float64{2, 1}, math.Inf(-1)},
		{"InverseGamma", -3, []float64{2, 1}, math.Inf(-1)},
		{"Exponential", -1e-300, []float64{2}, math.Inf(-1)},
		{"Beta", 0, []float64{2, 3}, math.Inf(-1)},
		{"Beta", 1, []float64{2, 3}, math.Inf(-1)},
		{"Beta", 1.5, []float64{2, 3}, math.Inf(-1)},
		{"Beta", -0.5, []float64{0.5, 0.5}, math.Inf(-1)},
		{"LogNormal", 0, []float64{0, 1}, math.Inf(-1)},
		{"LogNormal", -2, []float64{0, 1}, math.Inf(-1)},
		{"Exponential", 0, []float64{2}, math.Log(2)},
	}
	byName := map[string]univariate{}
	for _, u := range univariates {
		byName[u.name] = u
	}
	for _, c := range cases {
		lp, g := byName[c.name].f(c.x, c.p)
		if lp != c.want {
			t.Errorf("%s(%v, %v) = %v, want %v", c.name, c.x, c.p, lp, c.want)
		}
		if math.IsInf(c.want, -1) {
			for k, v := range g {
				if v != 0 {
					t.Errorf("%s(%v, %v): derivative %d = %v outside the support, want 0", c.name, c.x, c.p, k, v)
				}
			}
		}
	}
	for _, u := range univariates {
		_, p := u.draw(rand.New(rand.NewPCG(7, 8)))
		if lp, _ := u.f(math.NaN(), p); !math.IsNaN(lp) {
			t.Errorf("%s(NaN, %v) = %v, want NaN", u.name, p, lp)
		}
	}
}

// A scale, shape, rate or degrees of freedom that is zero, negative, NaN
// or +Inf panics with a message naming the function, the parameter and its
// value, whatever the variate.
func TestUnivariateBadParameterPanics(t *testing.T) {
	names := map[string][]string{
		"Normal": {"", "", "sigma"}, "StudentT": {"", "nu", "", "sigma"}, "Cauchy": {"", "", "sigma"},
		"Gamma": {"", "alpha", "beta"}, "InverseGamma": {"", "alpha", "beta"}, "Exponential": {"", "lambda"},
		"Beta": {"", "alpha", "beta"}, "LogNormal": {"", "", "sigma"},
	}
	for _, u := range univariates {
		x, p := u.draw(rand.New(rand.NewPCG(9, 10)))
		for k, name := range names[u.name] {
			if name == "" {
				continue
			}
			for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
				for _, xv := range []float64{x, -1} { // inside and (for most) outside the support
					q := append([]float64(nil), p...)
					q[k-1] = bad
					msg := panicMessage(func() { u.f(xv, q) })
					want := "logpdf: " + u.name + ": " + name + " = "
					if !strings.HasPrefix(msg, want) {
						t.Errorf("%s(%v, %v): panic %q, want one starting %q", u.name, xv, q, msg, want)
					}
				}
			}
		}
	}
}

func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg, _ = r.(string)
			if msg == "" {
				msg = "non-string panic"
			}
		}
	}()
	f()
	return ""
}

// The univariate densities allocate nothing.
func TestUnivariateAllocations(t *testing.T) {
	var sink float64
	n := testing.AllocsPerRun(100, func() {
		a, _, _, _ := Normal(0.3, 0, 1)
		b, _, _, _, _ := StudentT(0.3, 3, 0, 1)
		c, _, _, _ := Cauchy(0.3, 0, 1)
		d, _, _, _ := Gamma(0.3, 2, 1)
		e, _, _, _ := InverseGamma(0.3, 2, 1)
		f, _, _ := Exponential(0.3, 2)
		g, _, _, _ := Beta(0.3, 2, 3)
		h, _, _, _ := LogNormal(0.3, 0, 1)
		sink += a + b + c + d + e + f + g + h
	})
	if n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
	_ = sink
}
