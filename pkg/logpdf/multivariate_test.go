package logpdf

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// randomChol returns an n×n lower-triangular factor with diagonal in
// (0.5, 2) and off-diagonal entries N(0, 0.5²): well conditioned.
func randomChol(r *rand.Rand, n int) *mat.TriDense {
	L := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			L.SetTri(i, j, 0.5*r.NormFloat64())
		}
		L.SetTri(i, i, unif(r, 0.5, 2))
	}
	return L
}

func randomVec(r *rand.Rand, n int, sd float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = sd * r.NormFloat64()
	}
	return v
}

// MultiNormalCholesky agrees with gonum's distmv.Normal of covariance LLᵀ
// at 300 random (x, μ, L), n = 1 … 6, to a relative 1e-11: distmv factors
// LLᵀ again, so the two differ by the rounding of that factorisation,
// amplified by the condition number (below 100 here).
func TestMultiNormalCholeskyMatchesDistmv(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 300; i++ {
		n := 1 + i%6
		L := randomChol(r, n)
		mu, x := randomVec(r, n, 2), randomVec(r, n, 3)
		var S mat.SymDense
		S.SymOuterK(1, L)
		ref, ok := distmv.NewNormal(mu, &S, nil)
		if !ok {
			t.Fatalf("distmv refused the covariance %v", mat.Formatted(&S))
		}
		got := MultiNormalCholesky(nil, nil, nil, x, mu, L, nil)
		want := ref.LogProb(x)
		if d := math.Abs(got - want); !(d <= 1e-11*math.Max(1, math.Abs(want))) {
			t.Fatalf("n = %d: log p = %v, distmv says %v (difference %.3g)", n, got, want, d)
		}
	}
}

// The gradients with respect to x, μ and the entries of L on and below the
// diagonal agree with central finite differences, step 10⁻⁶ (|x|, |μ| of
// order 1, Lᵢᵢ ≥ 0.5 so L ± h stays a factor): truncation h²|f‴|/6 and
// rounding ε|f|/h are both below 10⁻⁹ at these scales, so a tolerance of
// 10⁻⁶·(1 + |g| + |f|) has three orders of margin.
func TestMultiNormalCholeskyGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const h = 1e-6
	for i := 0; i < 60; i++ {
		n := 1 + i%5
		L := randomChol(r, n)
		mu, x := randomVec(r, n, 1), randomVec(r, n, 2)
		dx, dmu := make([]float64, n), make([]float64, n)
		var dL mat.TriDense
		lp := MultiNormalCholesky(dx, dmu, &dL, x, mu, L, make([]float64, 2*n))
		check := func(what string, g float64, perturb func(float64)) {
			t.Helper()
			perturb(h)
			fp := MultiNormalCholesky(nil, nil, nil, x, mu, L, nil)
			perturb(-2 * h)
			fm := MultiNormalCholesky(nil, nil, nil, x, mu, L, nil)
			perturb(h)
			fd := (fp - fm) / (2 * h)
			if d := math.Abs(fd - g); !(d <= 1e-6*(1+math.Abs(g)+math.Abs(lp))) {
				t.Fatalf("n = %d: %s = %v, finite difference %v", n, what, g, fd)
			}
		}
		for k := 0; k < n; k++ {
			check("∂/∂x", dx[k], func(e float64) { x[k] += e })
			check("∂/∂μ", dmu[k], func(e float64) { mu[k] += e })
			for j := 0; j <= k; j++ {
				check("∂/∂L", dL.At(k, j), func(e float64) { L.SetTri(k, j, L.At(k, j)+e) })
			}
		}
	}
}

// Given its scratch, MultiNormalCholesky allocates nothing.
func TestMultiNormalCholeskyAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	n := 5
	L := randomChol(r, n)
	mu, x := randomVec(r, n, 1), randomVec(r, n, 1)
	dx, dmu, work := make([]float64, n), make([]float64, n), make([]float64, 2*n)
	dL := mat.NewTriDense(n, mat.Lower, nil)
	if a := testing.AllocsPerRun(100, func() { MultiNormalCholesky(dx, dmu, dL, x, mu, L, work) }); a != 0 {
		t.Errorf("%v allocations per call, want 0", a)
	}
}

// An upper factor, a non-positive diagonal entry and mismatched lengths
// panic with the package's prefix.
func TestMultiNormalCholeskyPanics(t *testing.T) {
	L := mat.NewTriDense(2, mat.Lower, []float64{1, 0, 0.5, 1})
	bad := mat.NewTriDense(2, mat.Lower, []float64{1, 0, 0.5, 0})
	up := mat.NewTriDense(2, mat.Upper, []float64{1, 0.5, 0, 1})
	x := []float64{0, 0}
	for name, f := range map[string]func(){
		"upper":      func() { MultiNormalCholesky(nil, nil, nil, x, x, up, nil) },
		"zero diag":  func() { MultiNormalCholesky(nil, nil, nil, x, x, bad, nil) },
		"short x":    func() { MultiNormalCholesky(nil, nil, nil, x[:1], x, L, nil) },
		"short dx":   func() { MultiNormalCholesky(x[:1], nil, nil, x, x, L, nil) },
		"short work": func() { MultiNormalCholesky(nil, nil, nil, x, x, L, make([]float64, 3)) },
		"dL upper":   func() { MultiNormalCholesky(nil, nil, mat.NewTriDense(2, mat.Upper, nil), x, x, L, nil) },
	} {
		if msg := panicMessage(f); !strings.HasPrefix(msg, "logpdf: MultiNormalCholesky: ") {
			t.Errorf("%s: panic %q", name, msg)
		}
	}
}

func randomPoints(r *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			x.Set(i, k, unif(r, -2, 2))
		}
	}
	return x
}

// SqExpCov's derivative matrices agree entry by entry with central finite
// differences of K, step 10⁻⁶ relative to each hyperparameter (all of
// order 1): entries of K are at most α² + σ² ≈ 10, so truncation and
// rounding stay below 10⁻⁹, against a tolerance of 10⁻⁷.
func TestSqExpCovDerivatives(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for trial := 0; trial < 20; trial++ {
		n, d := 2+trial%5, 1+trial%3
		x := randomPoints(r, n, d)
		th := []float64{unif(r, 0.5, 3), unif(r, 0.3, 3), unif(r, 0.05, 1)}
		var K, dA, dR, dS mat.SymDense
		SqExpCov(&K, &dA, &dR, &dS, x, th[0], th[1], th[2])
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var d2 float64
				for k := 0; k < d; k++ {
					v := x.At(i, k) - x.At(j, k)
					d2 += v * v
				}
				want := th[0] * th[0] * math.Exp(-d2/(2*th[1]*th[1]))
				if i == j {
					want += th[2] * th[2]
				}
				if math.Abs(K.At(i, j)-want) > 1e-14*want {
					t.Fatalf("K[%d,%d] = %v, want %v", i, j, K.At(i, j), want)
				}
			}
		}
		for p, D := range []*mat.SymDense{&dA, &dR, &dS} {
			h := 1e-6 * th[p]
			q := append([]float64(nil), th...)
			var Kp, Km mat.SymDense
			q[p] = th[p] + h
			SqExpCov(&Kp, nil, nil, nil, x, q[0], q[1], q[2])
			q[p] = th[p] - h
			SqExpCov(&Km, nil, nil, nil, x, q[0], q[1], q[2])
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					fd := (Kp.At(i, j) - Km.At(i, j)) / (2 * h)
					if math.Abs(fd-D.At(i, j)) > 1e-7*(1+math.Abs(fd)) {
						t.Fatalf("∂K[%d,%d]/∂θ%d = %v, finite difference %v", i, j, p, D.At(i, j), fd)
					}
				}
			}
		}
	}
}

// GPLogMarginal and SqExpGP agree with distmv.Normal of mean 0 and
// covariance K (relative 1e-10: both factor K, whose condition number here
// stays below 10⁴), and with each other; their gradients with respect to
// (α, ρ, σ) agree with central finite differences, step 10⁻⁶ relative to
// each hyperparameter (of order 1), tolerance 10⁻⁵·(1 + |g| + |f|): the
// rounding ε·cond(K)|f|/h reaches 10⁻⁶ here.
func TestGPLogMarginal(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for trial := 0; trial < 40; trial++ {
		n, d := 1+trial%7, 1+trial%2
		x := randomPoints(r, n, d)
		y := randomVec(r, n, 1.5)
		th := []float64{unif(r, 0.5, 2), unif(r, 0.3, 2), unif(r, 0.2, 1)}
		var K, dA, dR, dS mat.SymDense
		SqExpCov(&K, &dA, &dR, &dS, x, th[0], th[1], th[2])
		g := make([]float64, 3)
		lp := GPLogMarginal(g, y, &K, &dA, &dR, &dS)
		ref, ok := distmv.NewNormal(make([]float64, n), &K, nil)
		if !ok {
			t.Fatal("distmv refused K")
		}
		if want := ref.LogProb(y); math.Abs(lp-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Fatalf("GPLogMarginal = %v, distmv says %v", lp, want)
		}
		gp := NewSqExpGP(x)
		lp2, ga, gr, gs := gp.LogMarginal(y, th[0], th[1], th[2])
		for k, c := range [][2]float64{{lp2, lp}, {ga, g[0]}, {gr, g[1]}, {gs, g[2]}} {
			if math.Abs(c[0]-c[1]) > 1e-10*math.Max(1, math.Abs(c[1])) {
				t.Fatalf("SqExpGP value %d = %v, GPLogMarginal %v", k, c[0], c[1])
			}
		}
		for p := range th {
			h := 1e-6 * th[p]
			q := append([]float64(nil), th...)
			q[p] = th[p] + h
			fp, _, _, _ := gp.LogMarginal(y, q[0], q[1], q[2])
			q[p] = th[p] - h
			fm, _, _, _ := gp.LogMarginal(y, q[0], q[1], q[2])
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[p]) > 1e-5*(1+math.Abs(g[p])+math.Abs(lp)) {
				t.Fatalf("n = %d: ∂/∂θ%d = %v, finite difference %v", n, p, g[p], fd)
			}
		}
	}
}

// A covariance that is not positive definite gives −Inf and a zero
// gradient: an indefinite K given directly, and three identical inputs
// without noise (K = α²·11ᵀ, exactly singular).
func TestGPLogMarginalNotPositiveDefinite(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	g := []float64{7}
	if lp := GPLogMarginal(g, []float64{0.1, 0.2}, K, K); !math.IsInf(lp, -1) || g[0] != 0 {
		t.Errorf("indefinite K: log p = %v, gradient %v, want −Inf and 0", lp, g)
	}
	gp := NewSqExpGP(mat.NewDense(3, 1, []float64{0.5, 0.5, 0.5}))
	if lp, a, b, c := gp.LogMarginal([]float64{1, 2, 3}, 1, 1, 0); !math.IsInf(lp, -1) || a != 0 || b != 0 || c != 0 {
		t.Errorf("singular K: %v %v %v %v, want −Inf and zeros", lp, a, b, c)
	}
}

// After its first call, SqExpGP.LogMarginal allocates nothing.
func TestSqExpGPAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	gp := NewSqExpGP(randomPoints(r, 10, 1))
	y := randomVec(r, 10, 1)
	gp.LogMarginal(y, 1, 1, 0.3)
	if a := testing.AllocsPerRun(50, func() { gp.LogMarginal(y, 1.1, 0.9, 0.3) }); a != 0 {
		t.Errorf("%v allocations per call, want 0", a)
	}
}

// Hyperparameters out of their domain panic with the package's prefix.
func TestGPPanics(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{0, 1})
	gp := NewSqExpGP(x)
	for name, f := range map[string]func(){
		"alpha 0":   func() { SqExpCov(nil, nil, nil, nil, x, 0, 1, 0) },
		"rho NaN":   func() { SqExpCov(nil, nil, nil, nil, x, 1, math.NaN(), 0) },
		"sigma < 0": func() { gp.LogMarginal([]float64{0, 0}, 1, 1, -1) },
		"short y":   func() { gp.LogMarginal([]float64{0}, 1, 1, 1) },
		"wrong dst": func() { SqExpCov(mat.NewSymDense(3, nil), nil, nil, nil, x, 1, 1, 0) },
		"dst vs dK": func() {
			GPLogMarginal(nil, []float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 1}), mat.NewSymDense(2, nil))
		},
		"y vs K":     func() { GPLogMarginal(nil, []float64{0}, mat.NewSymDense(2, []float64{1, 0, 0, 1})) },
		"rho +Inf":   func() { gp.LogMarginal([]float64{0, 0}, 1, math.Inf(1), 1) },
		"alpha -Inf": func() { gp.LogMarginal([]float64{0, 0}, math.Inf(-1), 1, 1) },
	} {
		if msg := panicMessage(f); !strings.HasPrefix(msg, "logpdf: ") {
			t.Errorf("%s: panic %q", name, msg)
		}
	}
}
