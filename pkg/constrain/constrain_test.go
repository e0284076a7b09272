package constrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
)

// every builds a space with each transform: scalars and arrays, constant
// and dependent bounds, a matrix, ordered vectors and simplexes.
func every() (*Space, []Param) {
	var s Space
	ps := []Param{
		s.Real("a"),
		s.Real("m", 2, 3),
		s.Lower("sd", 0.5),
		s.Lower("sds", -1, 3),
		s.Upper("up", 2, 2),
		s.Interval("p", 0, 1),
		s.Interval("ab", -3, 4, 2),
	}
	alpha := ps[5]
	ps = append(ps,
		s.Bounded("beta", Const(0), Affine(1, -1, alpha)),            // garch11's β₁ < 1 − α₁
		s.Bounded("low", Affine(0.5, 2, ps[0]), Bound{}, 2),          // lower bound 0.5 + 2a
		s.Bounded("hig", Bound{}, Affine(-1, 3, alpha)),              // upper bound −1 + 3α
		s.Bounded("mix", Affine(-10, 1, ps[0]), Affine(3, 1, ps[2])), // (a − 10, 3 + sd)
		s.Bounded("sq", BoundFunc(
			func(x []float64) float64 { return x[0] * x[0] },
			func(x []float64, w float64, gx []float64) { gx[0] += 2 * x[0] * w },
		), Bound{}),
		s.Ordered("o", 3),
		s.PositiveOrdered("po", 3),
		s.Simplex("w", 4),
		s.Simplex("w2", 2),
	)
	return &s, ps
}

// freeIndex lists the positions in x of the values that are free
// functions of u: all but the last element of each simplex.
func freeIndex(s *Space) []int {
	var idx []int
	for _, b := range s.blocks {
		n := b.n
		if b.kind == kSimplex {
			n--
		}
		for i := 0; i < n; i++ {
			idx = append(idx, b.xo+i)
		}
	}
	return idx
}

func randU(rng *rand.Rand, d int, scale float64) []float64 {
	u := make([]float64, d)
	for i := range u {
		u[i] = scale * (2*rng.Float64() - 1)
	}
	return u
}

// fdGrad is the central difference of f at u with step h in each
// coordinate, five-point: (−f(u+2h) + 8f(u+h) − 8f(u−h) + f(u−2h))/(12h).
func fdGrad(f func([]float64) float64, u []float64, h float64) []float64 {
	g := make([]float64, len(u))
	v := append([]float64(nil), u...)
	for j := range u {
		at := func(t float64) float64 { v[j] = u[j] + t; r := f(v); v[j] = u[j]; return r }
		g[j] = (-at(2*h) + 8*at(h) - 8*at(-h) + at(-2*h)) / (12 * h)
	}
	return g
}

// maxRelErr is maxⱼ |got − want| / max(1, |want|).
func maxRelErr(got, want []float64) float64 {
	var m float64
	for j := range got {
		m = math.Max(m, math.Abs(got[j]-want[j])/math.Max(1, math.Abs(want[j])))
	}
	return m
}

// The log-Jacobian is log |det ∂x_free/∂u| of the finite-difference
// Jacobian, and its gradient matches finite differences, at random points.
func TestLogJacobianFiniteDifference(t *testing.T) {
	s, _ := every()
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	d := post.Dim()
	free := freeIndex(s)
	if len(free) != d {
		t.Fatalf("%d free values for %d coordinates", len(free), d)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const h = 1e-5
	var worstDet, worstGrad float64
	for trial := 0; trial < 20; trial++ {
		u := randU(rng, d, 2)
		grad := make([]float64, d)
		lj := post.LogProbGrad(u, grad)

		jac := mat.NewDense(d, d, nil)
		v := append([]float64(nil), u...)
		for j := 0; j < d; j++ {
			at := func(t float64) []float64 { v[j] = u[j] + t; x := post.ConstrainParams(nil, v); v[j] = u[j]; return x }
			xp2, xp, xm, xm2 := at(2*h), at(h), at(-h), at(-2*h)
			for i, k := range free {
				jac.Set(i, j, (-xp2[k]+8*xp[k]-8*xm[k]+xm2[k])/(12*h))
			}
		}
		var lu mat.LU
		lu.Factorize(jac)
		logDet, sign := lu.LogDet()
		if sign == 0 {
			t.Fatalf("u = %v: singular Jacobian", u)
		}
		worstDet = math.Max(worstDet, math.Abs(logDet-lj)/math.Max(1, math.Abs(lj)))

		f := func(w []float64) float64 { return post.LogProbGrad(w, make([]float64, d)) }
		worstGrad = math.Max(worstGrad, maxRelErr(grad, fdGrad(f, u, h)))
	}
	t.Logf("log-Jacobian against log|det| of the difference Jacobian: max relative error %.2g; its gradient: %.2g (h = %g, 20 points)", worstDet, worstGrad, h)
	if worstDet > 1e-7 {
		t.Errorf("log-Jacobian off by a relative %.2g", worstDet)
	}
	if worstGrad > 1e-8 {
		t.Errorf("gradient of the log-Jacobian off by a relative %.2g", worstGrad)
	}
}

// The chain rule: a log density with gradient in the constrained space
// becomes the right gradient in u, dependent bounds included.
func TestChainRuleFiniteDifference(t *testing.T) {
	s, _ := every()
	rng := rand.New(rand.NewPCG(3, 4))
	c := randU(rng, s.nx, 1)
	// f(x) = Σ cᵢ xᵢ + ½ Σ xᵢ² sin(i): every coordinate of x matters.
	post := s.Posterior(func(x, grad []float64) float64 {
		var f float64
		for i, v := range x {
			w := math.Sin(float64(i))
			f += c[i]*v + 0.5*w*v*v
			grad[i] = c[i] + w*v
		}
		return f
	})
	var worst float64
	for trial := 0; trial < 20; trial++ {
		u := randU(rng, post.Dim(), 2)
		grad := make([]float64, post.Dim())
		post.LogProbGrad(u, grad)
		f := func(w []float64) float64 { return post.LogProbGrad(w, make([]float64, post.Dim())) }
		worst = math.Max(worst, maxRelErr(grad, fdGrad(f, u, 1e-5)))
	}
	t.Logf("gradient against five-point central differences (h = 1e-5, 20 points): max relative error %.2g", worst)
	if worst > 1e-8 {
		t.Errorf("max relative error %.2g", worst)
	}
}

// Each transform alone, for the table of the package documentation.
func TestEachTransformFiniteDifference(t *testing.T) {
	alpha := func(s *Space) Param { return s.Interval("alpha", 0, 1) }
	for _, tc := range []struct {
		name    string
		declare func(s *Space)
	}{
		{"lower", func(s *Space) { s.Lower("x", 2, 3) }},
		{"upper", func(s *Space) { s.Upper("x", -1, 3) }},
		{"interval", func(s *Space) { s.Interval("x", -2, 5, 3) }},
		{"dependent upper", func(s *Space) { s.Bounded("x", Const(0), Affine(1, -1, alpha(s))) }},
		{"ordered", func(s *Space) { s.Ordered("x", 4) }},
		{"positive ordered", func(s *Space) { s.PositiveOrdered("x", 4) }},
		{"simplex", func(s *Space) { s.Simplex("x", 5) }},
	} {
		var s Space
		tc.declare(&s)
		// log p = Σ xᵢ³/3 − xᵢ: a gradient x² − 1 that differs in every element.
		post := s.Posterior(func(x, grad []float64) float64 {
			var f float64
			for i, v := range x {
				f += v*v*v/3 - v
				grad[i] = v*v - 1
			}
			return f
		})
		rng := rand.New(rand.NewPCG(5, 6))
		var worst float64
		for trial := 0; trial < 10; trial++ {
			u := randU(rng, post.Dim(), 2)
			grad := make([]float64, post.Dim())
			post.LogProbGrad(u, grad)
			f := func(w []float64) float64 { return post.LogProbGrad(w, make([]float64, post.Dim())) }
			worst = math.Max(worst, maxRelErr(grad, fdGrad(f, u, 1e-4)))
		}
		t.Logf("%-16s max relative error %.2g", tc.name, worst)
		if worst > 1e-8 {
			t.Errorf("%s: max relative error %.2g", tc.name, worst)
		}
	}
}

// constrain∘unconstrain and unconstrain∘constrain are identities.
func TestRoundTrip(t *testing.T) {
	s, _ := every()
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	rng := rand.New(rand.NewPCG(7, 8))
	var worstU, worstX float64
	for trial := 0; trial < 100; trial++ {
		u := randU(rng, post.Dim(), 5)
		x := post.ConstrainParams(nil, u)
		back, err := post.UnconstrainParams(nil, x)
		if err != nil {
			t.Fatalf("u = %v: %v", u, err)
		}
		for i := range u {
			worstU = math.Max(worstU, math.Abs(back[i]-u[i])/math.Max(1, math.Abs(u[i])))
		}
		x2 := post.ConstrainParams(nil, back)
		for i := range x {
			worstX = math.Max(worstX, math.Abs(x2[i]-x[i])/math.Max(1, math.Abs(x[i])))
		}
		// Every simplex sums to 1 and every ordered vector increases.
		for _, b := range s.blocks {
			xs := x[b.xo : b.xo+b.n]
			switch b.kind {
			case kSimplex:
				var sum float64
				for _, v := range xs {
					sum += v
				}
				if math.Abs(sum-1) > 1e-14 {
					t.Errorf("simplex %s sums to %v", b.name, sum)
				}
			case kOrdered, kPositiveOrdered:
				if !slices.IsSorted(xs) {
					t.Errorf("%s = %v is not increasing", b.name, xs)
				}
			}
		}
	}
	t.Logf("u → x → u: max relative error %.2g; x → u → x: %.2g (100 points, u uniform on (−5, 5))", worstU, worstX)
	if worstU > 1e-9 || worstX > 1e-12 {
		t.Errorf("round trip errors %.2g (u) and %.2g (x)", worstU, worstX)
	}
}

// Stan's simplex transform sends u = 0 to the centre of the simplex.
func TestSimplexCentre(t *testing.T) {
	var s Space
	s.Simplex("w", 5)
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	x := post.ConstrainParams(nil, make([]float64, 4))
	for i, v := range x {
		if math.Abs(v-0.2) > 1e-15 {
			t.Errorf("w[%d] = %v at u = 0, want 1/5", i+1, v)
		}
	}
}

func TestNamesColumnMajor(t *testing.T) {
	var s Space
	s.Real("a")
	b := s.Real("b", 2, 3)
	s.Simplex("w", 3)
	s.Real("c", 2, 1, 2)
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	want := "a b[1,1] b[2,1] b[1,2] b[2,2] b[1,3] b[2,3] w[1] w[2] w[3] c[1,1,1] c[2,1,1] c[1,1,2] c[2,1,2]"
	if got := strings.Join(post.Names(), " "); got != want {
		t.Errorf("names\n %s\nwant\n %s", got, want)
	}
	wantU := "a b[1,1] b[2,1] b[1,2] b[2,2] b[1,3] b[2,3] w[1] w[2] c[1,1,1] c[2,1,1] c[1,1,2] c[2,1,2]"
	if got := strings.Join(post.UnconstrainedNames(), " "); got != wantU {
		t.Errorf("unconstrained names\n %s\nwant\n %s", got, wantU)
	}
	names := post.ParamNames()
	if got := names[b.Index(1, 2)]; got != "b[2,3]" {
		t.Errorf("Index(1, 2) of b names %s, want b[2,3]", got)
	}
	if got := names[b.Index(0, 1)]; got != "b[1,2]" {
		t.Errorf("Index(0, 1) of b names %s, want b[1,2]", got)
	}
}

// A derived quantity is reported in place of the parameter it stands for,
// and Unconstrain recovers the parameter through its inverse.
func TestDerivedAndReport(t *testing.T) {
	var s Space
	raw := s.Real("theta_raw", 3)
	mu := s.Real("mu")
	tau := s.Lower("tau", 0)
	s.Derived("theta", func(dst, x []float64) {
		for i, v := range raw.Slice(x) {
			dst[i] = mu.Value(x) + tau.Value(x)*v
		}
	}, func(x, v []float64) {
		for i, th := range v {
			raw.Slice(x)[i] = (th - mu.Value(x)) / tau.Value(x)
		}
	}, 3)
	s.Report("theta", "mu", "tau")
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	if got, want := strings.Join(post.Names(), " "), "theta[1] theta[2] theta[3] mu tau"; got != want {
		t.Fatalf("names %s, want %s", got, want)
	}
	u := []float64{0.5, -1, 2, 3, math.Log(2)}
	v := post.Constrain(nil, u)
	want := []float64{4, 1, 7, 3, 2}
	for i := range want {
		if math.Abs(v[i]-want[i]) > 1e-14 {
			t.Errorf("%s = %v, want %v", post.Names()[i], v[i], want[i])
		}
	}
	back, err := post.Unconstrain(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	for i := range u {
		if math.Abs(back[i]-u[i]) > 1e-14 {
			t.Errorf("Unconstrain: u[%d] = %v, want %v", i, back[i], u[i])
		}
	}

	// Without the inverse the raw parameter cannot be recovered.
	var s2 Space
	s2.Real("r")
	s2.Derived("twice", func(dst, x []float64) { dst[0] = 2 * x[0] }, nil)
	s2.Report("twice")
	p2 := s2.Posterior(func(x, grad []float64) float64 { return 0 })
	if _, err := p2.Unconstrain(nil, []float64{1}); err == nil || !strings.Contains(err.Error(), "r is neither reported nor recovered") {
		t.Errorf("Unconstrain without an inverse: error %v", err)
	}
}

func TestUnconstrainErrors(t *testing.T) {
	var s Space
	s.Lower("sigma", 0)
	a := s.Interval("alpha", 0, 1)
	s.Bounded("beta", Const(0), Affine(1, -1, a))
	s.Ordered("o", 2)
	s.Simplex("w", 3)
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	for _, tc := range []struct {
		x    []float64
		want string
	}{
		{[]float64{-1, 0.5, 0.2, 0, 1, 0.2, 0.3, 0.5}, "sigma = -1 is outside its support (0, ∞)"},
		{[]float64{1, 1, 0.2, 0, 1, 0.2, 0.3, 0.5}, "alpha = 1 is outside its support (0, 1)"},
		{[]float64{1, 0.7, 0.4, 0, 1, 0.2, 0.3, 0.5}, "beta = 0.4 is outside its support (0, 1 − alpha = 0.3)"},
		{[]float64{1, 0.5, 0.2, 1, 1, 0.2, 0.3, 0.5}, "o[2] = 1 is not above o[1] = 1"},
		{[]float64{1, 0.5, 0.2, 0, 1, 0.2, 0.3, 0.4}, "simplex w sums to 0.9"},
		{[]float64{1, 0.5, 0.2, 0, 1, 0, 0.5, 0.5}, "w[1] = 0: a simplex's values must be positive"},
		{[]float64{math.NaN(), 0.5, 0.2, 0, 1, 0.2, 0.3, 0.5}, "sigma = NaN is not finite"},
	} {
		_, err := post.UnconstrainParams(nil, tc.x)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("x = %v: error %v, want one containing %q", tc.x, err, tc.want)
		}
	}
}

func panicOf(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

func TestDeclarationPanics(t *testing.T) {
	for _, tc := range []struct {
		f    func()
		want string
	}{
		{func() { var s Space; s.Real("a"); s.Lower("a", 0) }, "constrain: a declared twice"},
		{func() { var s Space; s.Real("a", 0) }, "constrain: a has dimension 0"},
		{func() { var s Space; s.Interval("p", 1, 1) }, "constrain: p has lower bound 1 not below upper bound 1"},
		{func() { var s Space; s.Simplex("w", 1) }, "constrain: simplex w of 1 values"},
		{func() { var s Space; v := s.Real("v", 2); s.Bounded("b", Affine(0, 1, v), Bound{}) }, "constrain: Affine bound on v, which is not a scalar"},
		{func() { var s Space; s.Real("a"); s.Report("b") }, "constrain: Report of b, which is not declared"},
		{func() { var s Space; s.Real("a"); s.Report("a", "a") }, "constrain: Report of a twice"},
		{func() { var s Space; s.Real("b[1]") }, `constrain: invalid name "b[1]"`},
		{func() { var s Space; s.Posterior(func(x, g []float64) float64 { return 0 }) }, "constrain: a posterior needs at least one parameter"},
	} {
		if got := panicOf(tc.f); !strings.HasPrefix(got, tc.want) {
			t.Errorf("panic %q, want %q", got, tc.want)
		}
	}
}

func TestNoAllocation(t *testing.T) {
	s, _ := every()
	post := s.Posterior(func(x, grad []float64) float64 {
		for i, v := range x {
			grad[i] = -v
		}
		return 0
	})
	u := randU(rand.New(rand.NewPCG(9, 10)), post.Dim(), 1)
	grad := make([]float64, post.Dim())
	out := make([]float64, len(post.Names()))
	post.LogProbGrad(u, grad)
	if n := race.AllocsPerRun(t, 100, func() { post.LogProbGrad(u, grad) }); n != 0 {
		t.Errorf("LogProbGrad allocates %v times per call", n)
	}
	if n := race.AllocsPerRun(t, 100, func() { post.Constrain(out, u) }); n != 0 {
		t.Errorf("Constrain allocates %v times per call", n)
	}
}

func TestInitRange(t *testing.T) {
	s, _ := every()
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })
	rng := rand.New(rand.NewPCG(11, 12))
	u := make([]float64, post.Dim())
	lo, hi := 0.0, 0.0
	for i := 0; i < 200; i++ {
		post.Init(rng, u)
		lo = math.Min(lo, slices.Min(u))
		hi = math.Max(hi, slices.Max(u))
	}
	// 200·d draws uniform on (−2, 2): the extremes lie within 0.01 of the
	// ends with probability 1 − 2(1 − 0.0025)^(200·d), over 1 − 10⁻¹⁰.
	if lo < -2 || hi > 2 || lo > -1.99 || hi < 1.99 {
		t.Errorf("Init range [%v, %v], want (−2, 2) filled", lo, hi)
	}
}
