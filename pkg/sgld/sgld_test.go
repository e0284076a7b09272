package sgld

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func TestStepSize(t *testing.T) {
	for _, c := range []struct {
		a, b, gamma float64
		t           int
		want        float64
	}{
		{a: 3, b: 6, gamma: 0.5, t: 3, want: 1},                      // 3·9^(−1/2)
		{a: 1, b: 15, gamma: 0.25, t: 1, want: 0.5},                  // 16^(−1/4)
		{a: 2, b: 0, gamma: 1, t: 8, want: 0.25},                     // 2/8
		{a: 5, b: 1000, gamma: 0, t: 7, want: 5},                     // constant
		{a: 1, b: 999, gamma: 0.55, t: 1, want: 0.02238721138568339}, // 10^(−1.65)
	} {
		if got := StepSize(c.a, c.b, c.gamma, c.t); math.Abs(got-c.want) > 1e-15*c.want {
			t.Errorf("StepSize(%v, %v, %v, %d) = %v, want %v", c.a, c.b, c.gamma, c.t, got, c.want)
		}
	}
}

// The trajectory of one chain under a constant gradient c is
// θ_t = θ_{t−1} + (ε_t/2)·c + √ε_t·z_t, with z_t the chain's own normal
// stream (seeded from two draws of the caller's source). Reproduce it.
func TestUpdateRule(t *testing.T) {
	c := []float64{1, -2}
	tgt := target.Func{D: 2, F: func(x, g []float64) float64 {
		copy(g, c)
		return c[0]*x[0] + c[1]*x[1]
	}}
	const a, b, gamma, iters = 0.3, 2, 0.7, 50
	s := Settings{Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}, Iterations: iters, BurnIn: NoBurnIn, Thin: 1, Chains: 1, A: a, B: b, Gamma: gamma,
		InitScale: NoInitScale}
	got, err := sampler.Set(Run(context.Background(), tgt, particle.Start{X0: []float64{0.5, -0.5}}, s, rand.NewPCG(1, 2), nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != iters {
		t.Fatalf("got %d particles, want %d", got.Len(), iters)
	}
	master := rand.New(rand.NewPCG(1, 2))
	rng := rand.New(rand.NewPCG(master.Uint64(), master.Uint64()))
	x := []float64{0.5, -0.5}
	for it := 1; it <= iters; it++ {
		eps := a * math.Pow(b+float64(it), -gamma)
		for j := range x {
			x[j] += eps/2*c[j] + math.Sqrt(eps)*rng.NormFloat64()
		}
		for j, v := range got.X.RawRowView(it - 1) {
			if math.Abs(v-x[j]) > 1e-12 {
				t.Fatalf("iteration %d coordinate %d: got %v, want %v", it, j, v, x[j])
			}
		}
	}
}

// ar1 returns the autocorrelation of the thinned draws (thin k) of a
// Langevin chain on a Gaussian of precision P, whose drift multiplies the
// deviation from the mean by ρ = 1 − εP/2 per step; the smallest step gives
// the largest ρ, hence a conservative standard error.
func ar1(eps, prec float64, k int) float64 { return math.Pow(1-eps*prec/2, float64(k)) }

// checkMoments asserts that the pooled mean and variance of coordinate j are
// those of N(mean, 1/prec) within 4 Monte Carlo standard errors, the
// variance allowed to exceed 1/prec by the discretisation bias bound
// (1 + ε_max·V/4)/(1 − ε_max·P/4) − 1 (V: gradient-noise variance).
func checkMoments(t *testing.T, set particle.Set, j int, mean, prec, epsMin, epsMax, v float64, thin int) {
	t.Helper()
	n := set.Len()
	var s float64
	for i := range n {
		s += set.X.At(i, j)
	}
	m := s / float64(n)
	var ss float64
	for i := range n {
		r := set.X.At(i, j) - mean
		ss += r * r
	}
	vhat := ss / float64(n)

	r := ar1(epsMin, prec, thin)
	want := 1 / prec
	seMean := math.Sqrt(want / float64(n) * (1 + r) / (1 - r))
	relSEVar := math.Sqrt(2 / float64(n) * (1 + r*r) / (1 - r*r))
	bias := (1+epsMax*v/4)/(1-epsMax*prec/4) - 1
	if math.Abs(m-mean) > 4*seMean {
		t.Errorf("coordinate %d: mean %v, want %v ± %v", j, m, mean, 4*seMean)
	}
	lo, hi := want*(1-4*relSEVar), want*(1+bias)*(1+4*relSEVar)
	if vhat < lo || vhat > hi {
		t.Errorf("coordinate %d: variance %v, want %v in [%v, %v]", j, vhat, want, lo, hi)
	}
	t.Logf("coordinate %d: mean %.4g (true %.4g, 4SE %.2g); variance %.4g (true %.4g, accepted [%.4g, %.4g])",
		j, m, mean, 4*seMean, vhat, want, lo, hi)
}

// A d = 3 Gaussian target.Func with unequal scales, full gradients.
func TestGaussianFunc(t *testing.T) {
	mu := []float64{1, -2, 0.5}
	sd := []float64{1, 0.5, 1.5}
	tgt := target.Func{D: 3, F: func(x, g []float64) float64 {
		var lp float64
		for j := range x {
			r := (x[j] - mu[j]) / (sd[j] * sd[j])
			g[j] = -r
			lp -= 0.5 * r * (x[j] - mu[j])
		}
		return lp
	}}
	const b, gamma, burn, iters, thin = 1e5, 0.55, 10000, 110000, 10
	a := 0.05 * math.Pow(b+1, gamma) // ε₁ = 0.05
	s := Settings{Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}, Iterations: iters, BurnIn: burn, Thin: thin, Chains: 4, A: a, B: b, Gamma: gamma}
	set, err := sampler.Set(Run(context.Background(), tgt, particle.Start{}, s, rand.NewPCG(11, 12), nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := 4 * (iters - burn) / thin; set.Len() != want {
		t.Fatalf("got %d particles, want %d", set.Len(), want)
	}
	epsMin, epsMax := StepSize(a, b, gamma, iters), StepSize(a, b, gamma, burn+1)
	for j := range mu {
		checkMoments(t, set, j, mu[j], 1/(sd[j]*sd[j]), epsMin, epsMax, 0, thin)
	}
}

// The Gaussian mean model through its minibatch gradient: the posterior is
// known in closed form, and the minibatch noise inflates the stationary
// variance by at most ε·V/4 with V = N²S²/(|B|σ⁴).
func TestGaussianStochastic(t *testing.T) {
	const n, batch = 1000, 100
	m := newGaussMean(n, []float64{0.7, -1.3}, []float64{0, 0}, 1, 100, 7)
	prec, mean := m.posterior()
	const b, gamma, burn, iters, thin = 1e5, 0.55, 10000, 110000, 10
	a := 0.02 / prec * math.Pow(b+1, gamma) // ε₁·P = 0.02
	s := Settings{Iterations: iters, BurnIn: burn, Thin: thin, Chains: 4, Batch: batch, A: a, B: b, Gamma: gamma}
	set, err := sampler.Set(Run(context.Background(), m, particle.Start{}, s, rand.NewPCG(13, 14), nil))
	if err != nil {
		t.Fatal(err)
	}
	epsMin, epsMax := StepSize(a, b, gamma, iters), StepSize(a, b, gamma, burn+1)
	for j := range mean {
		v := n * n * m.dataVar(j) / (batch * m.s2 * m.s2)
		checkMoments(t, set, j, mean[j], prec, epsMin, epsMax, v, thin)
	}
}

func TestDeterminism(t *testing.T) {
	m := newGaussMean(1000, []float64{0.7, -1.3}, []float64{0, 0}, 1, 100, 7)
	run := func(workers int, seed uint64) particle.Set {
		s := Settings{Iterations: 2000, Chains: 3, Frame: sampler.Frame{Workers: workers}, RecordEvery: 70}
		set, err := sampler.Set(Run(context.Background(), m, particle.Start{}, s, rand.NewPCG(seed, 1), nil))
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	ref := run(3, 1)
	if !mat.Equal(ref.X, run(3, 1).X) {
		t.Error("same seed, same settings: particles differ")
	}
	if !mat.Equal(ref.X, run(1, 1).X) {
		t.Error("same seed, 1 worker instead of 3: particles differ")
	}
	if mat.Equal(ref.X, run(3, 2).X) {
		t.Error("different seeds: identical particles")
	}
}

// Snapshots come every RecordEvery iterations once draws are kept, hold the
// draws kept so far with equal weights, and count gradient evaluations in
// datapoints.
func TestSnapshots(t *testing.T) {
	const n, batch, chains, iters, burn, every, keep = 1000, 50, 2, 1030, 300, 100, 40
	m := newGaussMean(n, []float64{0.7, -1.3}, []float64{0, 0}, 1, 100, 7)
	s := Settings{Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}, Iterations: iters, BurnIn: burn, Thin: 3, Keep: keep, Chains: chains, Batch: batch, RecordEvery: every}
	var steps []int
	var last particle.Set
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		steps = append(steps, sn.Step)
		kept := min((sn.Step-burn)/3, keep)
		if r, _ := sn.X.Dims(); r != chains*kept {
			t.Errorf("step %d: %d particles, want %d", sn.Step, r, chains*kept)
		}
		var sw float64
		for _, w := range sn.W {
			if w != sn.W[0] {
				t.Fatalf("step %d: unequal weights", sn.Step)
			}
			sw += w
		}
		if math.Abs(sw-1) > 1e-12 {
			t.Errorf("step %d: weights sum to %v", sn.Step, sw)
		}
		if want := int64(chains * sn.Step * batch); sn.GradEvals != want {
			t.Errorf("step %d: GradEvals %d, want %d", sn.Step, sn.GradEvals, want)
		}
		last = particle.Set{X: sn.X, W: sn.W}.Clone()
		return nil
	})
	set, err := sampler.Set(Run(context.Background(), m, particle.Start{}, s, rand.NewPCG(1, 2), rec))
	if err != nil {
		t.Fatal(err)
	}
	want := []int{400, 500, 600, 700, 800, 900, 1000, 1030}
	if len(steps) != len(want) {
		t.Fatalf("snapshot steps %v, want %v", steps, want)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Fatalf("snapshot steps %v, want %v", steps, want)
		}
	}
	if !mat.Equal(set.X, last.X) {
		t.Error("returned particles differ from the last snapshot")
	}

	// Keep retains the last draws of each chain.
	s.Keep = 0
	all, err := sampler.Set(Run(context.Background(), m, particle.Start{}, s, rand.NewPCG(1, 2), nil))
	if err != nil {
		t.Fatal(err)
	}
	per := (iters - burn) / 3
	for c := range chains {
		for k := range keep {
			if !slices.Equal(set.X.RawRowView(c*keep+k), all.X.RawRowView(c*per+per-keep+k)) {
				t.Fatalf("chain %d: kept draw %d is not draw %d of the uncapped run", c, k, per-keep+k)
			}
		}
	}
}

// Cancellation is checked before every iteration: after cancel, each chain
// finishes at most the iteration it is in.
func TestCancel(t *testing.T) {
	const chains, at = 3, 500
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The other chains keep stepping while cancel runs, so the bound counts
	// from the calls made when cancel has returned: then each of the other
	// chains may be inside one more iteration, and the cancelling chain
	// ends the one it is in.
	var calls, cancelled atomic.Int64
	tgt := target.Func{D: 2, F: func(x, g []float64) float64 {
		if calls.Add(1) == at {
			cancel()
			cancelled.Store(calls.Load())
		}
		g[0], g[1] = -x[0], -x[1]
		return -(x[0]*x[0] + x[1]*x[1]) / 2
	}}
	s := Settings{Iterations: 1 << 40, BurnIn: 100, Thin: 1, Keep: 50, Chains: chains, RecordEvery: 1 << 30}
	set, err := sampler.Set(Run(ctx, tgt, particle.Start{}, s, rand.NewPCG(1, 2), nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v, want context.Canceled", err)
	}
	if n, c := calls.Load(), cancelled.Load(); n > c+chains-1 {
		t.Errorf("%d gradient calls in all, %d when cancel (at call %d) returned, with %d chains", n, c, at, chains)
	}
	if set.Len() == 0 || set.Len() > chains*50 {
		t.Errorf("got %d particles, want the 1…%d kept before cancellation", set.Len(), chains*50)
	}
}

func TestDivergence(t *testing.T) {
	tgt := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0], g[1] = -x[0], -4*x[1]
		return -(x[0]*x[0] + 4*x[1]*x[1]) / 2
	}}
	s := Settings{Iterations: 10000, BurnIn: NoBurnIn, Thin: 1, Chains: 3, A: 1e3, Gamma: 0.55}
	set, err := sampler.Set(Run(context.Background(), tgt, particle.Start{}, s, rand.NewPCG(1, 2), nil))
	if err == nil {
		t.Fatal("huge step size: no error")
	}
	// The state diverges, or first its log density overflows to −∞.
	if !regexp.MustCompile(`^sgld: (chain [0-2]: diverged at step [1-9][0-9]*: coordinate [01] is|iteration [1-9][0-9]*, chain [0-2]: non-finite)`).MatchString(err.Error()) {
		t.Errorf("error %q does not name the chain and the iteration", err)
	}
	for i := range set.Len() {
		if particle.CheckFinite("test", i, set.X.RawRowView(i)) != nil {
			t.Fatalf("particle %d is not finite: %v", i, set.X.RawRowView(i))
		}
	}
	t.Log(err, "; particles kept:", set.Len())
}

// withPrior adds a PriorSampler whose draws are 100 + z, z ~ N(0, I), far
// from any other starting point.
type withPrior struct{ *gaussMean }

func (w withPrior) SamplePrior(rng *rand.Rand, dst []float64) {
	for j := range dst {
		dst[j] = 100 + rng.NormFloat64()
	}
}

// With a negligible step the first draw is the starting point: in the
// target's coordinates a prior draw when the target samples its prior and
// Init is nil, Init otherwise.
func TestInit(t *testing.T) {
	m := withPrior{newGaussMean(1000, []float64{0.7, -1.3}, []float64{0, 0}, 1, 100, 7)}
	first := func(start particle.Start, s Settings) particle.Set {
		s.Iterations, s.BurnIn, s.Thin, s.Chains, s.A = 1, -1, 1, 3, 1e-16
		s.Whiten, s.Stop = WhitenNone, StopFixed
		set, err := sampler.Set(Run(context.Background(), m, start, s, rand.NewPCG(1, 2), nil))
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	prior := first(particle.Start{}, Settings{})
	for i := range prior.Len() {
		for _, v := range prior.X.RawRowView(i) {
			if math.Abs(v-100) > 5 {
				t.Errorf("chain %d starts at %v, want a prior draw near 100", i, prior.X.RawRowView(i))
			}
		}
	}
	if slices.Equal(prior.X.RawRowView(0), prior.X.RawRowView(1)) {
		t.Error("chains 0 and 1 start at the same prior draw")
	}
	exact := first(particle.Start{X0: []float64{3, 4}}, Settings{InitScale: NoInitScale})
	for i := range exact.Len() {
		if r := exact.X.RawRowView(i); math.Abs(r[0]-3) > 1e-6 || math.Abs(r[1]-4) > 1e-6 {
			t.Errorf("chain %d starts at %v, want Init (3, 4) without jitter", i, r)
		}
	}
}

func TestInvalidSettings(t *testing.T) {
	m := newGaussMean(100, []float64{0}, []float64{0}, 1, 1, 1)
	for name, c := range map[string]struct {
		s     Settings
		field string
		start particle.Start
	}{
		"negative batch":      {Settings{Batch: -1}, "batch", particle.Start{}},
		"negative chains":     {Settings{Chains: -4}, "chains", particle.Start{}},
		"gamma":               {Settings{Gamma: 0.4}, "gamma", particle.Start{}},
		"burn-in too long":    {Settings{Iterations: 100, BurnIn: 100}, "burn_in", particle.Start{}},
		"thinning too long":   {Settings{Iterations: 100, BurnIn: 50, Thin: 51}, "thin", particle.Start{}},
		"init dimension":      {Settings{}, "", particle.Start{X0: []float64{1, 2}}},
		"starting set":        {Settings{}, "", particle.Start{Particles: mat.NewDense(3, 1, nil)}},
		"schedule":            {Settings{Schedule: "cosine"}, "schedule", particle.Start{}},
		"constant without a":  {Settings{Frame: sampler.Frame{Whiten: WhitenNone}, Schedule: ScheduleConstant}, "a", particle.Start{}},
		"constant with b":     {Settings{Schedule: ScheduleConstant, A: 0.1, B: 10}, "b", particle.Start{}},
		"constant with gamma": {Settings{Schedule: ScheduleConstant, A: 0.1, Gamma: 0.6}, "gamma", particle.Start{}},
	} {
		set, err := sampler.Set(Run(context.Background(), m, c.start, c.s, rand.NewPCG(1, 1), nil))
		if err == nil || set.Len() != 0 {
			t.Errorf("%s: %d particles, error %v; want an error", name, set.Len(), err)
			continue
		}
		if c.field == "" {
			continue
		}
		if e, ok := setting.As(err); !ok || e.Field != c.field {
			t.Errorf("%s: error %v, want a setting.Error on %s", name, err, c.field)
		}
		if verr := c.s.Validate(); verr == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}
