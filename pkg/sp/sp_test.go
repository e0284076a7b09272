package sp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestObjectiveDoubleSum checks the objective evaluated by Run's internals
// against a direct double sum: adding x to the points x₁…x_{n−1} raises
// Σᵢⱼ k₀ by 2 f_n(x).
func TestObjectiveDoubleSum(t *testing.T) {
	g := mixture2()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, p := range [][2]float64{{1, -0.5}, {0.8, -0.3}} {
		k := kernel.IMQ{C: p[0], Beta: p[1]}
		o := newObjective(g, k, 8)
		X := mat.NewDense(6, 2, nil)
		for i := 0; i < 6; i++ {
			row := X.RawRowView(i)
			row[0], row[1] = 2*rng.NormFloat64(), rng.NormFloat64()
		}
		S := scores(g, X)
		for n := 1; n <= 6; n++ {
			o.beginStep()
			got := o.eval(X.RawRowView(n - 1))
			want := (directKSD2(p[0], p[1], X, S, n)*float64(n*n) - directKSD2(p[0], p[1], X, S, n-1)*float64((n-1)*(n-1))) / 2
			if n == 1 {
				want = directKSD2(p[0], p[1], X, S, 1) / 2
			}
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("c=%v β=%v n=%d: objective %v, double sum %v", p[0], p[1], n, got, want)
			}
			if o.bestF != got {
				t.Errorf("n=%d: best value %v, want the only evaluation %v", n, o.bestF, got)
			}
			o.accept()
		}
		if o.calls != 6 {
			t.Errorf("score calls = %d, want 6", o.calls)
		}
	}

	// Run's objective trace against the double sum over its own points.
	set, cost, err := RunWithCost(context.Background(), g, Settings{Points: 8}, rand.NewPCG(5, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	S := scores(g, set.X)
	for n := 1; n <= 8; n++ {
		got, want := cost.KSD2(n), directKSD2(1, -0.5, set.X, S, n)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("n=%d: KSD² from the objective trace %v, double sum %v", n, got, want)
		}
	}
}

// TestObjectiveAllocs: one candidate evaluation allocates nothing.
func TestObjectiveAllocs(t *testing.T) {
	g, _ := gaussian2()
	k := kernel.IMQ{}
	o := newObjective(g, k, 4)
	x := []float64{0.3, 0.1}
	for i := 0; i < 3; i++ {
		o.eval(x)
		o.accept()
		x[0] += 0.5
	}
	if a := testing.AllocsPerRun(100, func() { o.eval(x) }); a != 0 {
		t.Errorf("objective evaluation allocates %v times", a)
	}
}

// ksdAt runs Run for 50 points and returns the direct KSD² of the first 5,
// 20 and 50 points and the final set.
func ksdAt(t *testing.T, g target.Target, s Settings, seed uint64) ([3]float64, particle.Set) {
	t.Helper()
	s.Points = 50
	set, err := Run(context.Background(), g, s, rand.NewPCG(seed, seed), nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 50 {
		t.Fatalf("%d points, want 50", set.Len())
	}
	for _, w := range set.W {
		if w != 1.0/50 {
			t.Fatalf("weight %v, want 1/50", w)
		}
	}
	S := scores(g, set.X)
	var k [3]float64
	for i, n := range []int{5, 20, 50} {
		k[i] = directKSD2(1, -0.5, set.X, S, n)
		X, Sn := set.X.Slice(0, n, 0, 2).(*mat.Dense), S.Slice(0, n, 0, 2).(*mat.Dense)
		if m := metric.KSD2(nil, mat.DenseCopyOf(X), mat.DenseCopyOf(Sn), nil); math.Abs(m-k[i]) > 1e-10*k[i] {
			t.Errorf("n=%d: metric.KSD2 = %v, double sum %v", n, m, k[i])
		}
	}
	return k, set
}

// TestKSDDecreasesGaussian: on a correlated 2-D Gaussian the KSD² falls with
// n, and the points' mean approaches the true mean.
func TestKSDDecreasesGaussian(t *testing.T) {
	g, m := gaussian2()
	k, set := ksdAt(t, g, Settings{}, 6)
	t.Logf("Gaussian KSD² at n = 5, 20, 50: %.4g %.4g %.4g", k[0], k[1], k[2])
	if !(k[1] < 0.5*k[0] && k[2] < 0.5*k[1]) {
		t.Errorf("KSD² does not halve from n = 5 to 20 to 50: %v", k)
	}
	// An i.i.d. sample of 50 has a mean error of √(Σⱼⱼ/50) per coordinate
	// (0.14, 0.2); the greedy points should do no worse than three of those.
	mean := set.Mean(nil)
	for j, sd := range []float64{1, math.Sqrt(2)} {
		if e := math.Abs(mean[j] - m[j]); e > 3*sd/math.Sqrt(50) {
			t.Errorf("mean[%d] = %v, want %v within %v", j, mean[j], m[j], 3*sd/math.Sqrt(50))
		}
	}
	t.Logf("mean %v, true %v", mean, m)
}

// TestKSDDecreasesMixture: the same on a two-component Gaussian mixture,
// and both components receive points.
func TestKSDDecreasesMixture(t *testing.T) {
	g := mixture2()
	k, set := ksdAt(t, g, Settings{}, 7)
	t.Logf("mixture KSD² at n = 5, 20, 50: %.4g %.4g %.4g", k[0], k[1], k[2])
	if !(k[1] < 0.5*k[0] && k[2] < 0.5*k[1]) {
		t.Errorf("KSD² does not halve from n = 5 to 20 to 50: %v", k)
	}
	var left int
	for i := 0; i < set.Len(); i++ {
		if set.X.At(i, 0) < 0 {
			left++
		}
	}
	// The components have equal weight: a fair split of 50 has standard
	// deviation 3.5; allow four of them.
	if left < 25-14 || left > 25+14 {
		t.Errorf("%d of 50 points left of the origin, want about 25", left)
	}
}

// counting wraps a target and counts LogProbGrad calls independently of Run.
type counting struct {
	*model.Logistic
	calls atomic.Int64
}

func (c *counting) LogProbGrad(x, g []float64) float64 {
	c.calls.Add(1)
	return c.Logistic.LogProbGrad(x, g)
}

// TestHighDimCost runs a few points on a d = 56 logistic regression and
// checks the cost accounting: score calls are the candidates plus the
// Nelder–Mead evaluations, they match the target's own count, and the
// snapshots report them times N.
func TestHighDimCost(t *testing.T) {
	const d, N, points = 56, 100, 3
	lr := &counting{Logistic: newLogReg(rand.New(rand.NewPCG(8, 8)), N, d)}
	var last particle.Snapshot
	var steps int
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		steps++
		if s.Step != steps || s.X.RawMatrix().Rows != steps || len(s.W) != steps {
			t.Errorf("snapshot %d: step %d with %d points", steps, s.Step, len(s.W))
		}
		last = s
		return nil
	})
	s := Settings{Points: points, NelderMeadEvals: 20 * d}
	set, cost, err := RunWithCost(context.Background(), lr, s, rand.NewPCG(9, 9), rec)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != points || steps != points {
		t.Fatalf("%d points, %d snapshots, want %d", set.Len(), steps, points)
	}
	var sum int64
	for n := range cost.Candidates {
		if cost.Candidates[n] != DefaultCandidates {
			t.Errorf("point %d: %d candidates, want %d", n+1, cost.Candidates[n], DefaultCandidates)
		}
		if cost.Refine[n] > s.NelderMeadEvals {
			t.Errorf("point %d: %d Nelder–Mead evaluations above the cap %d", n+1, cost.Refine[n], s.NelderMeadEvals)
		}
		sum += int64(cost.Candidates[n] + cost.Refine[n])
		t.Logf("d=%d point %d: %d candidates + %d Nelder–Mead = %d score calls (%d per-datapoint gradients), objective %.4g",
			d, n+1, cost.Candidates[n], cost.Refine[n], cost.Candidates[n]+cost.Refine[n],
			int64(cost.Candidates[n]+cost.Refine[n])*N, cost.Objective[n])
	}
	if cost.ScoreCalls != sum || cost.ScoreCalls != lr.calls.Load() {
		t.Errorf("score calls %d, sum of candidates and refinements %d, counted by the target %d", cost.ScoreCalls, sum, lr.calls.Load())
	}
	if last.GradEvals != cost.ScoreCalls*N {
		t.Errorf("GradEvals = %d, want %d score calls × %d", last.GradEvals, cost.ScoreCalls, N)
	}
	t.Logf("d=%d: %.0f score calls per point", d, float64(cost.ScoreCalls)/points)
	// The refinement must actually improve on the best candidate: the
	// accepted objective of the first point is k₀(x,x)/2, monotone in
	// ‖s(x)‖², so compare against the best candidate alone.
	noRefine := Settings{Points: 1, NelderMeadEvals: -1}
	_, c0, err := RunWithCost(context.Background(), lr.Logistic, noRefine, rand.NewPCG(9, 9), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(cost.Objective[0] < c0.Objective[0]) || c0.Refine[0] != 0 {
		t.Errorf("refined first objective %v not below the best candidate's %v (refinements %d)", cost.Objective[0], c0.Objective[0], c0.Refine[0])
	}
}

// TestCancel: a cancelled context returns the points so far with the
// context's error, before or during the run.
func TestCancel(t *testing.T) {
	g, _ := gaussian2()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	set, err := Run(ctx, g, Settings{Points: 5}, rand.NewPCG(1, 1), nil)
	if !errors.Is(err, context.Canceled) || set.Len() != 0 {
		t.Errorf("pre-cancelled: %d points, error %v", set.Len(), err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		if s.Step == 3 {
			cancel()
		}
		return nil
	})
	set, err = Run(ctx, g, Settings{Points: 10}, rand.NewPCG(1, 1), rec)
	if !errors.Is(err, context.Canceled) || set.Len() != 3 {
		t.Errorf("cancelled at step 3: %d points, error %v", set.Len(), err)
	}
}

// TestErrStop: ErrStop ends the run with the current points and no error;
// another recorder error is returned.
func TestErrStop(t *testing.T) {
	g, _ := gaussian2()
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		if s.Step == 4 {
			return particle.ErrStop
		}
		return nil
	})
	set, err := Run(context.Background(), g, Settings{Points: 10}, rand.NewPCG(1, 1), rec)
	if err != nil || set.Len() != 4 || len(set.W) != 4 || set.W[0] != 0.25 {
		t.Errorf("ErrStop at step 4: %d points, weights %v, error %v", set.Len(), set.W, err)
	}
	boom := errors.New("boom")
	_, err = Run(context.Background(), g, Settings{Points: 10}, rand.NewPCG(1, 1),
		particle.RecorderFunc(func(particle.Snapshot) error { return boom }))
	if !errors.Is(err, boom) {
		t.Errorf("recorder error: got %v", err)
	}
}

// TestDeterminism: the same seed gives the same points, another seed other
// points.
func TestDeterminism(t *testing.T) {
	g := mixture2()
	run := func(seed uint64) *mat.Dense {
		set, err := Run(context.Background(), g, Settings{Points: 12}, rand.NewPCG(seed, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		return set.X
	}
	a, b, c := run(1), run(1), run(2)
	if !mat.Equal(a, b) {
		t.Error("same seed, different points")
	}
	if mat.Equal(a, c) {
		t.Error("different seeds, same points")
	}
}

// TestMAPStart: given the mode, the first point is the mode itself (its
// score is zero, the minimum of k₀(x, x)).
func TestMAPStart(t *testing.T) {
	g, m := gaussian2()
	set, cost, err := RunWithCost(context.Background(), g, Settings{Points: 1, MAP: m}, rand.NewPCG(1, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	x := set.X.RawRowView(0)
	// f₁(m) = k₀(m, m)/2 = −βd c^(2(β−1)) = 1 at the defaults.
	if x[0] != m[0] || x[1] != m[1] || cost.Objective[0] != 1 {
		t.Errorf("first point %v with objective %v, want the MAP %v with 1", x, cost.Objective[0], m)
	}
}

// TestPriorDraws: a PriorSampler target gets prior candidates; the first
// pool is all prior draws, whose spread shows in the first point.
func TestPriorDraws(t *testing.T) {
	lr := newLogReg(rand.New(rand.NewPCG(2, 2)), 50, 3)
	_, cost, err := RunWithCost(context.Background(), lr, Settings{Points: 4, Candidates: 10}, rand.NewPCG(3, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	for n, c := range cost.Candidates {
		if c != 10 {
			t.Errorf("point %d: %d candidates, want 10", n+1, c)
		}
	}
}

// TestNonFinite: a target whose score is NaN makes Run fail naming the step.
func TestNonFinite(t *testing.T) {
	g, _ := gaussian2()
	bad := target.Func{D: 2, F: func(x, grad []float64) float64 {
		lp := g.F(x, grad)
		if x[0] > 1.5 {
			grad[0] = math.NaN()
		}
		return lp
	}}
	_, err := Run(context.Background(), bad, Settings{Points: 30}, rand.NewPCG(1, 1), nil)
	if err == nil || !strings.Contains(err.Error(), "step") {
		t.Errorf("error %v, want one naming the step", err)
	}
}

// TestSettingsErrors: invalid settings are errors naming the field.
func TestSettingsErrors(t *testing.T) {
	g, _ := gaussian2()
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{Points: -1}, "Points"},
		{Settings{Candidates: -2}, "Candidates"},
		{Settings{Perturb: math.NaN()}, "Perturb"},
		{Settings{Scale: -1}, "Scale"},
		{Settings{PriorFraction: 2}, "PriorFraction"},
		{Settings{C: -1}, "C"},
		{Settings{Beta: 0.5}, "Beta"},
		{Settings{Beta: -1}, "Beta"},
		{Settings{MAP: []float64{1}}, "MAP"},
	} {
		_, err := Run(context.Background(), g, c.s, rand.NewPCG(1, 1), nil)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: error %v, want one naming %s", c.s, err, c.field)
		}
	}
}
