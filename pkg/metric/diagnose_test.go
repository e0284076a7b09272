package metric

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// normal2 is N(0, diag(1, 4)).
var normal2 = target.Func{D: 2, F: func(x, g []float64) float64 {
	g[0], g[1] = -x[0], -x[1]/4
	return -x[0]*x[0]/2 - x[1]*x[1]/8
}}

// mix is 0.3·N(−2, 0.5²) + 0.7·N(3, 1).
var mix = target.Func{D: 1, F: func(x, g []float64) float64 {
	a := math.Log(0.3/0.5) - 2*(x[0]+2)*(x[0]+2)
	b := math.Log(0.7) - 0.5*(x[0]-3)*(x[0]-3)
	m := math.Max(a, b)
	lp := m + math.Log(math.Exp(a-m)+math.Exp(b-m))
	g[0] = -4*math.Exp(a-lp)*(x[0]+2) - math.Exp(b-lp)*(x[0]-3)
	return lp
}}

// scored evaluates t at every row of X.
func scored(t target.Target, X *mat.Dense) (*mat.Dense, []float64) {
	n, d := X.Dims()
	S := mat.NewDense(n, d, nil)
	lp := make([]float64, n)
	for i := range lp {
		lp[i] = t.LogProbGrad(X.RawRowView(i), S.RawRowView(i))
	}
	return S, lp
}

func flags(d particle.Diagnostics) string {
	c := make([]string, len(d.Flags))
	for i, f := range d.Flags {
		c[i] = f.Code
	}
	return strings.Join(c, ",")
}

// The Stein spread ratio of n draws of N(δ, k²Σ) on the target N(0, Σ) is
// k² whatever δ, within its Monte Carlo error √(2/(nd))·k² (for z², var 2);
// below 1/4 it flags "collapse", above 4 "spread". The KSD² is that of
// KSD2 on the thinned rows.
func TestSteinSpread(t *testing.T) {
	const n = 2000
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		k    float64
		flag string
	}{{1, ""}, {0.4, "collapse"}, {0.7, ""}, {2.5, "spread"}} {
		X := mat.NewDense(n, 2, nil)
		for i := 0; i < n; i++ {
			X.Set(i, 0, 0.3+c.k*rng.NormFloat64())
			X.Set(i, 1, -1+2*c.k*rng.NormFloat64())
		}
		S, lp := scored(normal2, X)
		var d particle.Diagnostics
		w := particle.Equal(n)
		DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: normal2, Probes: 64})
		v, want := d.Values["stein_spread"], c.k*c.k
		if tol := 4 * math.Sqrt(2.0/(2*n)) * want; math.Abs(v-want) > tol {
			t.Errorf("k = %v: spread ratio %v, want %v ± %v", c.k, v, want, tol)
		}
		// The flags of the ratio; a shifted or narrow set also misses mass
		// on one side, and "mode" may join them.
		var got string
		for _, f := range d.Flags {
			if f.Code != "mode" {
				got += f.Code
			}
		}
		if got != c.flag {
			t.Errorf("k = %v: flags %q (%s), want %q", c.k, flags(d), d.Reason(), c.flag)
		}
		if math.Abs(d.Values["kish_ess"]-n) > 1e-9*n {
			t.Errorf("kish_ess %v, want %d", d.Values["kish_ess"], n)
		}
		// The KSD² over at most MaxKSDPoints evenly thinned rows.
		rows := Thin(n, MaxKSDPoints)
		xs, ss := mat.NewDense(len(rows), 2, nil), mat.NewDense(len(rows), 2, nil)
		for k, r := range rows {
			xs.SetRow(k, X.RawRowView(r))
			ss.SetRow(k, S.RawRowView(r))
		}
		if got, want := d.Values["ksd2"], KSD2(nil, xs, ss, nil); math.Abs(got-want) > 1e-12*want {
			t.Errorf("k = %v: ksd2 %v, want %v", c.k, got, want)
		}
		// ksd_ratio: the KSD² over its diagonal part, each k₀(x, x) the
		// KSD² of the point alone; about 1 for the exact draws.
		var diag float64
		for k := range rows {
			one := len(rows)
			diag += KSD2(nil, xs.Slice(k, k+1, 0, 2).(*mat.Dense), ss.Slice(k, k+1, 0, 2).(*mat.Dense), []float64{1}) / float64(one*one)
		}
		r := d.Values["ksd_ratio"]
		if want := d.Values["ksd2"] / diag; math.Abs(r-want) > 1e-9*want {
			t.Errorf("k = %v: ksd_ratio %v, want %v", c.k, r, want)
		}
		if c.k == 1 && !(r > 5) {
			t.Errorf("draws shifted by (0.3, −1): ksd_ratio %v, want well above 1", r)
		}
	}
}

// Independent draws of the target have ksd_ratio about 1 (its
// expectation; 0.76–1.32 over sources 1–5 at n = 500).
func TestKSDRatioOfDraws(t *testing.T) {
	const n = 500
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		X := mat.NewDense(n, 2, nil)
		for i := 0; i < n; i++ {
			X.Set(i, 0, rng.NormFloat64())
			X.Set(i, 1, 2*rng.NormFloat64())
		}
		S, lp := scored(normal2, X)
		var d particle.Diagnostics
		DiagnoseSet(&d, SetDiagnosis{X: X, W: particle.Equal(n), S: S, LogP: lp})
		r := d.Values["ksd_ratio"]
		t.Logf("source %d: ksd_ratio %.3f", seed, r)
		if !(r > 0.5 && r < 2) {
			t.Errorf("source %d: ksd_ratio %v, want about 1", seed, r)
		}
	}
}

// Particles spread over the gap of a bimodal target, where the score points
// away from their mean, give a negative spread ratio: flag "stein".
func TestSteinGap(t *testing.T) {
	const n = 200
	X := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, -1.2+3.5*float64(i)/(n-1)) // uniform on [−1.2, 2.3]
	}
	S, lp := scored(mix, X)
	var d particle.Diagnostics
	DiagnoseSet(&d, SetDiagnosis{X: X, W: particle.Equal(n), S: S, LogP: lp})
	if v := d.Values["stein_spread"]; !(v < -CollapseRatio) || flags(d) != "stein" {
		t.Errorf("spread ratio %v, flags %q, want below %v and \"stein\"", v, flags(d), -CollapseRatio)
	}
}

// The missed-mode test flags draws of one component of the mixture, and
// draws of both components in which the left carries almost no weight; it
// does not flag draws of the mixture itself, nor a set whose log densities
// are known only at a subsample (Rows).
func TestMissedMode(t *testing.T) {
	const n = 500
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		right := mat.NewDense(n, 1, nil)
		both := mat.NewDense(n, 1, nil)
		left := make([]bool, n)
		for i := 0; i < n; i++ {
			right.Set(i, 0, 3+rng.NormFloat64())
			if left[i] = rng.Float64() < 0.3; left[i] {
				both.Set(i, 0, -2+0.5*rng.NormFloat64())
			} else {
				both.Set(i, 0, 3+rng.NormFloat64())
			}
		}
		unequal := make([]float64, n)
		for i := range unequal {
			unequal[i] = 1
			if left[i] {
				unequal[i] = 1e-3
			}
		}
		for _, c := range []struct {
			name string
			X    *mat.Dense
			w    []float64
			rows []int
			flag bool
		}{
			{"right component", right, particle.Equal(n), nil, true},
			{"mixture", both, particle.Equal(n), nil, false},
			{"mixture, subsample", both, particle.Equal(n), Thin(n, 60), false},
			{"mixture, left weights 10⁻³", both, unequal, nil, true},
		} {
			rows := c.rows
			if rows == nil {
				rows = Thin(n, n)
			}
			sub := mat.NewDense(len(rows), 1, nil)
			for k, r := range rows {
				sub.SetRow(k, c.X.RawRowView(r))
			}
			S, lp := scored(mix, sub)
			var d particle.Diagnostics
			DiagnoseSet(&d, SetDiagnosis{X: c.X, W: c.w, Rows: c.rows, S: S, LogP: lp, Target: mix, Probes: MaxProbes})
			if got := strings.Contains(flags(d), "mode"); got != c.flag {
				t.Errorf("seed %d, %s: flags %q (%s), want mode %v", seed, c.name, flags(d), d.Reason(), c.flag)
			}
			if d.Values["probes"] != MaxProbes {
				t.Errorf("%s: %v probes, want %d", c.name, d.Values["probes"], MaxProbes)
			}
		}
	}
}

func TestBudget(t *testing.T) {
	if b := DiagBudget(1_000_000, 100); b != 500 {
		t.Errorf("DiagBudget = %d, want 500", b)
	}
	for _, c := range []struct{ n, budget, scored, probes int }{
		{100, 1000, 100, 256}, {1000, 1000, 200, 256}, {1000, 300, 150, 150}, {1000, 39, 0, 0}, {10, 1000, 0, 0},
	} {
		if s, p := SplitBudget(c.n, c.budget); s != c.scored || p != c.probes {
			t.Errorf("SplitBudget(%d, %d) = %d, %d, want %d, %d", c.n, c.budget, s, p, c.scored, c.probes)
		}
	}
	if got := Thin(10, 4); len(got) != 4 || got[0] != 0 || got[1] != 2 || got[2] != 5 || got[3] != 7 {
		t.Errorf("Thin(10, 4) = %v", got)
	}
}

// normal1 is N(0, 1).
var normal1 = target.Func{D: 1, F: func(x, g []float64) float64 {
	g[0] = -x[0]
	return -x[0] * x[0] / 2
}}

// A signed quadrature read by its own weights: five points within 0.6 of
// the mode of N(0, 1) whose signed weights integrate 1, x² and x⁴ exactly
// (the second and fourth moments 1 and 3) give the Stein spread ratio
// E[x²] = 1 and no flag; read with |w|/Σ|w| they are a set of variance
// 0.08, which the ratio of the absolute weights would call collapsed.
func TestSignedWeights(t *testing.T) {
	const a, b = 0.3, 0.6
	// w₀ + 2w₁ + 2w₂ = 1, 2w₁a² + 2w₂b² = 1, 2w₁a⁴ + 2w₂b⁴ = 3.
	w1 := (b*b - 3) / (2 * a * a * (b*b - a*a))
	w2 := (1 - 2*w1*a*a) / (2 * b * b)
	w0 := 1 - 2*w1 - 2*w2
	X := mat.NewDense(5, 1, []float64{0, -a, a, -b, b})
	w := []float64{w0, w1, w1, w2, w2}
	var absSum, absVar float64
	for i, v := range w {
		absSum += math.Abs(v)
		absVar += math.Abs(v) * X.At(i, 0) * X.At(i, 0)
	}
	if absVar /= absSum; !(absVar < CollapseRatio) {
		t.Fatalf("the |w| variance %v is not below %v: the test shows nothing", absVar, CollapseRatio)
	}
	S, lp := scored(normal1, X)
	var d particle.Diagnostics
	DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: normal1, Probes: 256})
	if v := d.Values["stein_spread"]; math.Abs(v-1) > 1e-9 {
		t.Errorf("spread ratio %v, want 1 (the signed quadrature's E x²)", v)
	}
	if d.Flagged() {
		t.Errorf("flagged: %s", d.Reason())
	}
	if d.Values["probes"] != 256 {
		t.Errorf("probes %v, want 256", d.Values["probes"])
	}

	// Signed weights whose quadrature has a negative variance: no probes.
	w = []float64{2, 1, 1, -1, -1}
	d = particle.Diagnostics{}
	DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: normal1, Probes: 256})
	if _, ok := d.Values["probes"]; ok {
		t.Errorf("probes drawn from a negative variance: %v", d.Values)
	}
}
