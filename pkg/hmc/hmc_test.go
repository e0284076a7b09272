package hmc

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// gaussian is N(m, Σ) with a random rotation of log-spaced variances
// lo … lo·cond, so that cond(Σ) = cond.
type gaussian struct {
	d     int
	m     []float64
	sigma *mat.Dense
	prec  []float64 // Σ⁻¹, row-major
}

func newGaussian(rng *rand.Rand, d int, lo, cond float64) *gaussian {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	lam := mat.NewDiagDense(d, nil)
	ilam := mat.NewDiagDense(d, nil)
	for i := 0; i < d; i++ {
		l := lo * math.Pow(cond, float64(i)/float64(d-1))
		lam.SetDiag(i, l)
		ilam.SetDiag(i, 1/l)
	}
	g := &gaussian{d: d, m: make([]float64, d), sigma: mat.NewDense(d, d, nil)}
	var tmp, p mat.Dense
	tmp.Mul(&q, lam)
	g.sigma.Mul(&tmp, q.T())
	tmp.Mul(&q, ilam)
	p.Mul(&tmp, q.T())
	g.prec = p.RawMatrix().Data
	for i := range g.m {
		g.m[i] = 3 * rng.NormFloat64()
	}
	return g
}

// logProbGrad is log p(x) = −½(x−m)ᵀΣ⁻¹(x−m) and its gradient −Σ⁻¹(x−m).
func (g *gaussian) logProbGrad(x, grad []float64) float64 {
	var lp float64
	for i := 0; i < g.d; i++ {
		row := g.prec[i*g.d : (i+1)*g.d]
		var s float64
		for j, pij := range row {
			s += pij * (x[j] - g.m[j])
		}
		grad[i] = -s
		lp -= 0.5 * s * (x[i] - g.m[i])
	}
	return lp
}

func (g *gaussian) target() target.Func { return target.Func{D: g.d, F: g.logProbGrad} }

func TestCorrelatedGaussianMoments(t *testing.T) {
	const d = 10
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), d, 0.1, 100)
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, Settings{}, rand.NewPCG(2, 3), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if res.Flagged || res.MaxRhat >= 1.01 {
		t.Fatalf("flagged: %v (max R̂ %v, min ESS %v)", res.Reasons, res.MaxRhat, res.MinESS)
	}
	if n, _ := res.Set.X.Dims(); n != 4000 {
		t.Fatalf("%d pooled draws, want 4000", n)
	}
	for c, dg := range res.Diagnostics {
		t.Logf("chain %d: accept %.3f (terminal warm-up window %.3f) ε %.3g steps %.1f divergences %d/%d",
			c, dg.AcceptRate, dg.AdaptAccept, dg.StepSize, dg.MeanSteps, dg.Divergences, dg.WarmupDivergences)
		// Dual averaging aims the mean warm-up acceptance statistic at 0.8;
		// the averaged log ε used for sampling is smaller than the
		// fluctuating warm-up ε, so sampling accepts more (as in Stan).
		if dg.AcceptRate < 0.75 || dg.AcceptRate > 0.99 {
			t.Errorf("chain %d: acceptance %v, want in [0.75, 0.99]", c, dg.AcceptRate)
		}
		// The inverse mass matrix estimates the marginal variances.
		for j, m := range dg.InvMass {
			if v := g.sigma.At(j, j); math.Abs(m-v) > 0.5*v {
				t.Errorf("chain %d: inverse mass %d is %v, marginal variance %v", c, j, m, v)
			}
		}
	}
	t.Logf("max R̂ %.4f, min bulk ESS %.0f, grad evals %d", res.MaxRhat, res.MinESS, res.GradEvals)

	// Means: within 4 Monte Carlo standard errors sd/√ESS.
	mean := res.Set.Mean(nil)
	ess := metric.ESS(res.Chains, nil)
	for j := range mean {
		se := math.Sqrt(g.sigma.At(j, j) / ess[j])
		if math.Abs(mean[j]-g.m[j]) > 4*se {
			t.Errorf("mean %d: %v, want %v ± 4·%v", j, mean[j], g.m[j], se)
		}
	}

	// Covariances: the draws' products zⱼzₖ with z = x − m average to Σⱼₖ,
	// each with variance ΣⱼⱼΣₖₖ + Σⱼₖ² (Isserlis); their own ESS gives the
	// standard error.
	type pair struct{ j, k int }
	var pairs []pair
	for j := 0; j < d; j++ {
		for k := j; k < d; k++ {
			pairs = append(pairs, pair{j, k})
		}
	}
	prods := make([]*mat.Dense, len(res.Chains))
	for c, ch := range res.Chains {
		n, _ := ch.Dims()
		prods[c] = mat.NewDense(n, len(pairs), nil)
		for i := 0; i < n; i++ {
			x := ch.RawRowView(i)
			for q, p := range pairs {
				prods[c].Set(i, q, (x[p.j]-g.m[p.j])*(x[p.k]-g.m[p.k]))
			}
		}
	}
	pess := metric.ESS(prods, nil)
	var worst float64
	for q, p := range pairs {
		var s float64
		var n int
		for _, pc := range prods {
			r, _ := pc.Dims()
			for i := 0; i < r; i++ {
				s += pc.At(i, q)
			}
			n += r
		}
		est := s / float64(n)
		sjk := g.sigma.At(p.j, p.k)
		se := math.Sqrt((g.sigma.At(p.j, p.j)*g.sigma.At(p.k, p.k) + sjk*sjk) / pess[q])
		worst = math.Max(worst, math.Abs(est-sjk)/se)
		if math.Abs(est-sjk) > 4*se {
			t.Errorf("Σ[%d,%d]: %v, want %v ± 4·%v", p.j, p.k, est, sjk, se)
		}
	}
	t.Logf("worst covariance error: %.2f standard errors", worst)
}

func TestDeterministicAcrossRuns(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(4, 4)), 3, 0.5, 10)
	s := Settings{Warmup: 150, DrawsPerChain: 50}
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(5, 6), nil)
	a, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	hmcRes, err = Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(5, 6), nil)
	b, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.Set.X, b.Set.X) {
		t.Error("same seed, different draws")
	}
	hmcRes, err = Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(5, 7), nil)
	c, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if mat.Equal(a.Set.X, c.Set.X) {
		t.Error("different seeds, same draws")
	}
}

// testMetrics returns a diagonal and a dense (non-diagonal) metric in 4
// dimensions.
func testMetrics() map[string]*euclidean {
	diag := newEuclidean(4, false)
	diag.setDiag([]float64{1, 0.5, 2, 1.5})
	dense := newEuclidean(4, true)
	if !dense.setDense([]float64{
		1, 0.3, -0.2, 0.1,
		0.3, 0.5, 0.1, 0,
		-0.2, 0.1, 2, 0.6,
		0.1, 0, 0.6, 1.5,
	}) {
		panic("test metric not positive definite")
	}
	return map[string]*euclidean{"diag": diag, "dense": dense}
}

func TestLeapfrogSecondOrderAndReversible(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(7, 7)), 4, 0.5, 8)
	tg := g.target()
	for name, m := range testMetrics() {
		t.Run(name, func(t *testing.T) {
			x0 := []float64{1, -2, 0.5, 3}
			p0 := []float64{0.3, 1, -0.7, 0.2}
			grad := make([]float64, 4)
			energy := func(x, p []float64) float64 { return -tg.LogProbGrad(x, grad) + m.kinetic(p) }
			h0 := energy(x0, p0)

			// Largest energy error along a trajectory of time 3.
			maxErr := func(eps float64) float64 {
				x := append([]float64(nil), x0...)
				p := append([]float64(nil), p0...)
				g := make([]float64, 4)
				tg.LogProbGrad(x, g)
				var worst float64
				for range int(math.Round(3 / eps)) {
					lp := leapfrog(tg, x, p, g, m, eps)
					worst = math.Max(worst, math.Abs(-lp+m.kinetic(p)-h0))
				}
				return worst
			}
			e1, e2, e3 := maxErr(0.04), maxErr(0.02), maxErr(0.01)
			t.Logf("max energy error: ε=0.04 %.3g, 0.02 %.3g, 0.01 %.3g", e1, e2, e3)
			for _, r := range []float64{e1 / e2, e2 / e3} {
				if r < 3.6 || r > 4.4 {
					t.Errorf("halving ε divides the energy error by %v, want 4", r)
				}
			}

			// Reversibility: forward, flip the momentum, forward again.
			x := append([]float64(nil), x0...)
			p := append([]float64(nil), p0...)
			gr := make([]float64, 4)
			tg.LogProbGrad(x, gr)
			for range 50 {
				leapfrog(tg, x, p, gr, m, 0.1)
			}
			moved := math.Abs(x[0] - x0[0])
			for j := range p {
				p[j] = -p[j]
			}
			for range 50 {
				leapfrog(tg, x, p, gr, m, 0.1)
			}
			if moved < 0.1 {
				t.Fatalf("trajectory did not move (%v)", moved)
			}
			for j := range x {
				if math.Abs(x[j]-x0[j]) > 1e-10 || math.Abs(p[j]+p0[j]) > 1e-10 {
					t.Errorf("coordinate %d: back at (%v, %v), started at (%v, %v)", j, x[j], -p[j], x0[j], p0[j])
				}
			}
		})
	}
}

// TestDenseMomentumCovariance checks that the dense metric draws p with
// covariance M = Σ⁻¹ and that its kinetic energy is ½pᵀΣp, so that the
// Hamiltonian dynamics have the intended invariant.
func TestDenseMomentumCovariance(t *testing.T) {
	m := testMetrics()["dense"]
	sigma := mat.NewSymDense(4, append([]float64(nil), m.cov.Data...))
	var prec mat.SymDense
	var ch mat.Cholesky
	ch.Factorize(sigma)
	if err := ch.InverseTo(&prec); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 200000
	p := make([]float64, 4)
	var sum [4][4]float64
	var kin float64
	for range n {
		m.draw(rng, p)
		for i := range 4 {
			for j := range 4 {
				sum[i][j] += p[i] * p[j]
			}
		}
		// ½pᵀΣp of p ~ N(0, Σ⁻¹) is ½χ²₄: mean 2, variance 2.
		kin += m.kinetic(p)
	}
	for i := range 4 {
		for j := range 4 {
			est, want := sum[i][j]/n, prec.At(i, j)
			// Var(pᵢpⱼ) = PᵢᵢPⱼⱼ + Pᵢⱼ² (Isserlis).
			se := math.Sqrt((prec.At(i, i)*prec.At(j, j) + want*want) / n)
			if math.Abs(est-want) > 5*se {
				t.Errorf("E[p%d p%d] = %v, want %v ± 5·%v", i, j, est, want, se)
			}
		}
	}
	if se := math.Sqrt(2.0 / n); math.Abs(kin/n-2) > 5*se {
		t.Errorf("mean kinetic energy %v, want 2 ± 5·%v", kin/n, se)
	}
}

func TestLeapfrogAllocatesNothing(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(8, 8)), 10, 0.1, 100)
	for _, metric := range []Metric{MetricDiag, MetricDense} {
		s := mustDefaults(Settings{Metric: metric})
		c := newChain(0, g.target(), &s, nil, rand.NewPCG(1, 2))
		if err := c.start(); err != nil {
			t.Fatal(err)
		}
		c.eps = 0.1
		if n := race.AllocsPerRun(t, 20, func() { c.transition(10) }); n != 0 {
			t.Errorf("%s: transition allocates %v times", metric, n)
		}
		if n := race.AllocsPerRun(t, 20, func() { c.wf.add(c.x) }); n != 0 {
			t.Errorf("%s: warm-up estimate allocates %v times per draw", metric, n)
		}
	}
}

func TestShortRunIsFlagged(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), 10, 0.1, 100)
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, Settings{Warmup: 30, DrawsPerChain: 60}, rand.NewPCG(9, 9), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Flagged || !strings.Contains(strings.Join(res.Reasons, "; "), "ESS") {
		t.Errorf("short run: Flagged %v, reasons %q; want flagged for ESS", res.Flagged, res.Reasons)
	}
}

func TestStuckChainsAreFlagged(t *testing.T) {
	// Two modes at ±10 behind a 50-nat barrier: chains started at
	// N(0, 5²) settle in the nearer one and never cross.
	tg := target.Func{D: 1, F: func(x, grad []float64) float64 {
		a, b := -0.5*(x[0]-10)*(x[0]-10), -0.5*(x[0]+10)*(x[0]+10)
		m := math.Max(a, b)
		wa, wb := math.Exp(a-m), math.Exp(b-m)
		grad[0] = (wa*(10-x[0]) + wb*(-10-x[0])) / (wa + wb)
		return m + math.Log(wa+wb)
	}}
	s := Settings{Warmup: 200, DrawsPerChain: 200, InitScale: 5}
	hmcRes, err := Run(context.Background(), tg, particle.Start{X0: []float64{0}}, s, rand.NewPCG(4, 10), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	var signs [2]int
	for _, ch := range res.Chains {
		if ch.At(0, 0) > 0 {
			signs[1]++
		} else {
			signs[0]++
		}
	}
	if signs[0] == 0 || signs[1] == 0 {
		t.Fatalf("all chains in one mode (%v): the test needs both occupied", signs)
	}
	if !res.Flagged || res.MaxRhat < 1.1 || !strings.Contains(strings.Join(res.Reasons, "; "), "R̂") {
		t.Errorf("chains in different modes: Flagged %v, max R̂ %v, reasons %q", res.Flagged, res.MaxRhat, res.Reasons)
	}
}

func TestNonFiniteStateIsAnError(t *testing.T) {
	// A broken density that is +∞ beyond 2.5: such a proposal is accepted
	// and the chain must stop with an error rather than return it.
	tg := target.Func{D: 1, F: func(x, grad []float64) float64 {
		grad[0] = -x[0]
		if x[0] > 2.5 {
			return math.Inf(1)
		}
		return -0.5 * x[0] * x[0]
	}}
	s := Settings{Warmup: NoWarmup, StepSize: 0.2, DrawsPerChain: 1000}
	hmcRes, err := Run(context.Background(), tg, particle.Start{}, s, rand.NewPCG(12, 12), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err == nil || res != nil {
		t.Fatalf("got (%v, %v), want an error", res, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "chain") || !strings.Contains(msg, "iteration") {
		t.Errorf("error %q does not name chain and iteration", msg)
	}
	if testing.Verbose() {
		t.Log(err)
	}
}

// counted is a Stochastic target of nData points, to check the cost unit.
type counted struct {
	target.Func
	nData int
}

func (c counted) NData() int { return c.nData }
func (c counted) MinibatchLogProbGrad(x, grad []float64, _ []int) float64 {
	return c.LogProbGrad(x, grad)
}

func TestRecorderSnapshotsAndStop(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(1, 1)), 3, 0.5, 4)
	tg := counted{g.target(), 7}
	var steps []int
	var last int64
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		n, _ := s.X.Dims()
		if n != 2*s.Step || len(s.W) != n {
			t.Errorf("step %d: %d draws, %d weights; want %d", s.Step, n, len(s.W), 2*s.Step)
		}
		if s.GradEvals <= last || s.GradEvals%7 != 0 {
			t.Errorf("step %d: grad evals %d after %d, want increasing multiples of 7", s.Step, s.GradEvals, last)
		}
		last = s.GradEvals
		steps = append(steps, s.Step)
		return nil
	})
	hmcRes, err := Run(context.Background(), tg, particle.Start{}, Settings{Chains: 2, Warmup: 100, DrawsPerChain: 250, RecordEvery: 100}, rand.NewPCG(13, 13), rec)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{100, 200, 250}; len(steps) != 3 || steps[0] != want[0] || steps[1] != want[1] || steps[2] != want[2] {
		t.Errorf("snapshots at %v, want %v", steps, want)
	}
	var calls int64
	for _, dg := range res.Diagnostics {
		calls += dg.GradCalls
	}
	if res.GradEvals != last || res.GradEvals != 7*calls {
		t.Errorf("grad evals %d, last snapshot %d, 7 × calls %d", res.GradEvals, last, 7*calls)
	}

	stop := particle.RecorderFunc(func(particle.Snapshot) error { return particle.ErrStop })
	hmcRes, err = Run(context.Background(), tg, particle.Start{}, Settings{Chains: 2, Warmup: 100, DrawsPerChain: 250, RecordEvery: 100}, rand.NewPCG(13, 13), stop)
	res, _ = hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.Chains[0].Dims(); n != 100 || res.Set.Len() != 200 {
		t.Errorf("stopped after the first snapshot: %d draws per chain, %d pooled; want 100, 200", n, res.Set.Len())
	}
}

// TestDenseMetricOnIllConditionedGaussian compares the two metrics on a
// rotated Gaussian in 10 dimensions with condition number 10⁴ (variances
// 10⁻² … 10²), 4 chains × (1000 + 1000) each. The diagonal metric only
// rescales the axes, which leaves a rotated Gaussian about as ill
// conditioned: ε is held down by the narrowest direction while the
// integration time must span the widest, so each transition costs hundreds
// of gradients. The dense metric whitens the whole covariance and needs
// about 2π/ε ≈ 10. Efficiency is the bulk ESS per gradient evaluation.
func TestDenseMetricOnIllConditionedGaussian(t *testing.T) {
	const d = 10
	g := newGaussian(rand.New(rand.NewPCG(31, 31)), d, 0.01, 1e4)
	run := func(metric Metric) (*Result, float64) {
		hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, Settings{Metric: metric}, rand.NewPCG(32, 33), nil)
		res, _ := hmcRes.Detail.(*Result)
		if err != nil {
			t.Fatal(err)
		}
		var steps, acc, eps float64
		for _, dg := range res.Diagnostics {
			steps += dg.MeanSteps / 4
			acc += dg.AcceptRate / 4
			eps += dg.StepSize / 4
		}
		eff := res.MinESS / float64(res.GradEvals)
		t.Logf("%s: max R̂ %.4f, min bulk ESS %.0f, accept %.3f, ε %.3g, %.1f steps per transition, %d gradients, %.3g ESS per 1000 gradients",
			metric, res.MaxRhat, res.MinESS, acc, eps, steps, res.GradEvals, 1e3*eff)
		return res, eff
	}
	dense, effDense := run(MetricDense)
	_, effDiag := run(MetricDiag)
	if dense.Flagged {
		t.Errorf("dense metric flagged: %q", dense.Reasons)
	}
	// The dense metric estimates the covariance: every entry within 25% of
	// the largest variance (100). The last slow window has ~500 draws
	// (relative standard error of a variance √(2/ESS) ≲ 10%), and the
	// regularisation shrinks by n/(n+5) ≈ 1%.
	for c, dg := range dense.Diagnostics {
		var worst float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				worst = math.Max(worst, math.Abs(dg.InvMetric.At(i, j)-g.sigma.At(i, j)))
			}
		}
		if worst > 0.25*100 {
			t.Errorf("chain %d: inverse metric off by %v", c, worst)
		}
	}
	// The step counts alone differ by ~30× (ε 0.66 against 0.02 for the
	// same integration time), while both bulk ESS are in the thousands and
	// an ESS estimate scatters by ±20%; requiring 4× leaves a wide margin
	// (measured 9–13× over four seeds).
	if effDense < 4*effDiag {
		t.Errorf("ESS per gradient: dense %.3g, diagonal %.3g; want dense ≥ 4× diagonal", effDense, effDiag)
	}
}

// mustDefaults is s with its defaults, for valid test settings.
func mustDefaults(s Settings) Settings {
	s, err := s.withDefaults()
	if err != nil {
		panic(err)
	}
	return s
}

func TestInvalidSettings(t *testing.T) {
	g := target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}
	for _, c := range []struct {
		s     Settings
		field string
		start particle.Start
	}{
		{Settings{Chains: -1}, "chains", particle.Start{}},
		{Settings{TargetAccept: 1}, "target_accept", particle.Start{}},
		{Settings{Jitter: 1}, "jitter", particle.Start{}},
		{Settings{StepSize: math.Inf(1)}, "step_size", particle.Start{}},
		{Settings{Metric: "sparse"}, "metric", particle.Start{}},
		{Settings{Checkpoint: &Checkpoint{Path: "x", Every: -1}}, "checkpoint.every", particle.Start{}},
		{Settings{}, "", particle.Start{X0: []float64{1, 2}}},
		{Settings{}, "", particle.Start{Particles: mat.NewDense(2, 1, nil)}},
	} {
		hmcRes, err := Run(context.Background(), g, c.start, c.s, rand.NewPCG(1, 1), nil)
		res, _ := hmcRes.Detail.(*Result)
		if err == nil || res != nil {
			t.Errorf("%+v: result %v, error %v; want an error", c.s, res, err)
			continue
		}
		if c.field == "" {
			continue
		}
		if e, ok := setting.As(err); !ok || e.Field != c.field {
			t.Errorf("%+v: error %v, want a setting.Error on %s", c.s, err, c.field)
		}
	}
}

// TestLeapfrogDenseMatchesDirectForm runs the same trajectory with the
// carried velocity and with M⁻¹p recomputed at every step: positions,
// momenta and log densities agree to rounding, v stays M⁻¹p, and the
// carried form is reversible.
func TestLeapfrogDenseMatchesDirectForm(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(7, 7)), 4, 0.5, 8)
	tg := g.target()
	m := testMetrics()["dense"]
	x0 := []float64{1, -2, 0.5, 3}
	p0 := []float64{0.3, 1, -0.7, 0.2}
	x1, p1, g1 := append([]float64(nil), x0...), append([]float64(nil), p0...), make([]float64, 4)
	x2, p2, g2 := append([]float64(nil), x0...), append([]float64(nil), p0...), make([]float64, 4)
	v, u, mp := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	tg.LogProbGrad(x1, g1)
	tg.LogProbGrad(x2, g2)
	m.mul(v, p2)
	m.mul(u, g2)
	for step := range 200 {
		lp1 := leapfrog(tg, x1, p1, g1, m, 0.05)
		lp2 := leapfrogDense(tg, x2, p2, v, g2, u, m, 0.05)
		m.mul(mp, p2)
		for j := range x1 {
			if math.Abs(x1[j]-x2[j]) > 1e-10 || math.Abs(p1[j]-p2[j]) > 1e-10 || math.Abs(v[j]-mp[j]) > 1e-10 {
				t.Fatalf("step %d coordinate %d: x %v vs %v, p %v vs %v, v %v vs M⁻¹p %v", step, j, x1[j], x2[j], p1[j], p2[j], v[j], mp[j])
			}
		}
		if math.Abs(lp1-lp2) > 1e-9 {
			t.Fatalf("step %d: log p %v vs %v", step, lp1, lp2)
		}
	}
	// Reversibility of the carried form: flip p and v, run back.
	for j := range p2 {
		p2[j], v[j] = -p2[j], -v[j]
	}
	for range 200 {
		leapfrogDense(tg, x2, p2, v, g2, u, m, 0.05)
	}
	for j := range x2 {
		if math.Abs(x2[j]-x0[j]) > 1e-9 || math.Abs(p2[j]+p0[j]) > 1e-9 {
			t.Errorf("coordinate %d: back at (%v, %v), started at (%v, %v)", j, x2[j], -p2[j], x0[j], p0[j])
		}
	}
}

// TestDrawDenseVelocity checks that drawDense's v is M⁻¹p of its p.
func TestDrawDenseVelocity(t *testing.T) {
	m := testMetrics()["dense"]
	rng := rand.New(rand.NewPCG(3, 3))
	p, v, mp := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	for range 100 {
		m.drawDense(rng, p, v)
		m.mul(mp, p)
		for j := range v {
			if math.Abs(v[j]-mp[j]) > 1e-12*(1+math.Abs(mp[j])) {
				t.Fatalf("v[%d] = %v, M⁻¹p = %v", j, v[j], mp[j])
			}
		}
	}
}
