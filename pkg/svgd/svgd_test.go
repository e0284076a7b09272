package svgd_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"

	"gonum.org/v1/gonum/mat"
)

// stdNormal is the target N(0, I) in dimension d.
func stdNormal(d int) target.Func {
	return target.Func{D: d, F: func(x, g []float64) float64 {
		var lp float64
		for j, v := range x {
			g[j] = -v
			lp -= v * v / 2
		}
		return lp
	}}
}

// TestOneStepByHand checks one iteration of Run against arithmetic done by
// hand, for two particles x₁ = 0, x₂ = 1 on p = N(0, 1) (scores s₁ = 0,
// s₂ = −1) with ε = 0.1:
//
//	squared distances {0, 1, 1, 0}, median (0+1)/2 = ½,
//	h² = ½·½ / log 3 = 1/(4 log 3) ≈ 0.2275598,
//	k₁₂ = exp(−1/(2h²)) = exp(−2 log 3) = 1/9, k₁₁ = k₂₂ = 1,
//	φ₁ = ½[1·s₁ + (1/9)·s₂ + (x₁−x₂)(1/9)/h²] = ½[−1/9 − 4 log 3 / 9]
//	   = −(1 + 4 log 3)/18 ≈ −0.29969162,
//	φ₂ = ½[(1/9)·s₁ + 1·s₂ + (x₂−x₁)(1/9)/h²] = ½[−1 + 4 log 3 / 9]
//	   = (4 log 3 − 9)/18 ≈ −0.25586394,
//	AdaGrad at iteration 0: hist = φ², x ← x + ε φ / (10⁻⁶ + |φ|):
//	x₁ = −0.1·0.29969162/0.29969262 ≈ −0.09999967,
//	x₂ = 1 − 0.1·0.25586394/0.25586494 ≈ 0.90000039.
func TestOneStepByHand(t *testing.T) {
	l3 := math.Log(3)
	phi1 := -(1 + 4*l3) / 18
	phi2 := (4*l3 - 9) / 18
	want := []float64{0.1 * phi1 / (1e-6 + math.Abs(phi1)), 1 + 0.1*phi2/(1e-6+math.Abs(phi2))}
	// The same numbers, written out, so that a slip in the formulas above
	// cannot hide.
	for i, w := range []float64{-0.09999966632478273, 0.9000003908312003} {
		if math.Abs(want[i]-w) > 1e-15 {
			t.Fatalf("hand arithmetic: x%d = %v, written %v", i+1, want[i], w)
		}
	}
	init := mat.NewDense(2, 1, []float64{0, 1})
	got, err := sampler.Set(svgd.Run(context.Background(), stdNormal(1), particle.Start{Particles: init},
		svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}, Iterations: 1, StepSize: 0.1}, rand.NewPCG(1, 1), nil))
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(got.X.At(i, 0)-want[i]) > 1e-14 {
			t.Errorf("x%d = %.17g, want %.17g", i+1, got.X.At(i, 0), want[i])
		}
		if got.W[i] != 0.5 {
			t.Errorf("w%d = %v, want 0.5", i+1, got.W[i])
		}
	}
	if init.At(0, 0) != 0 || init.At(1, 0) != 1 {
		t.Error("Run modified the starting particles")
	}
}

// naiveDirection is φ(xᵢ) by a double loop over the particles.
func naiveDirection(X, S *mat.Dense, h float64) *mat.Dense {
	n, d := X.Dims()
	k := kernel.RBF{H: h}
	phi := mat.NewDense(n, d, nil)
	g := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			kv := k.GradX(g, X.RawRowView(j), X.RawRowView(i)) // ∇_{xⱼ}k(xⱼ, xᵢ)
			for c := 0; c < d; c++ {
				phi.Set(i, c, phi.At(i, c)+(kv*S.At(j, c)+g[c])/float64(n))
			}
		}
	}
	return phi
}

// sortedMedianBandwidth is the reference heuristic by sorting.
func sortedMedianBandwidth(X *mat.Dense, excludeDiag bool) float64 {
	n, d := X.Dims()
	var all []float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if excludeDiag && j <= i {
				continue
			}
			var r2 float64
			for c := 0; c < d; c++ {
				v := X.At(i, c) - X.At(j, c)
				r2 += v * v
			}
			all = append(all, r2)
		}
	}
	sort.Float64s(all)
	m := len(all)
	med := all[m/2]
	if m%2 == 0 {
		med = (all[m/2-1] + all[m/2]) / 2
	}
	return math.Sqrt(0.5 * med / math.Log(float64(n)+1))
}

func TestDirectionMatchesDoubleLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, tc := range []struct {
		n, d        int
		h           float64
		excludeDiag bool
	}{
		{7, 4, 0, false}, {7, 4, 0, true}, {8, 3, 0, false}, {12, 9, 0.8, false}, {1, 3, 0, false},
	} {
		X := mat.NewDense(tc.n, tc.d, nil)
		S := mat.NewDense(tc.n, tc.d, nil)
		for i := 0; i < tc.n; i++ {
			for c := 0; c < tc.d; c++ {
				X.Set(i, c, rng.NormFloat64())
				S.Set(i, c, rng.NormFloat64())
			}
		}
		wantH := tc.h
		if wantH == 0 {
			if tc.n == 1 {
				wantH = 1 // all distances zero
			} else {
				wantH = sortedMedianBandwidth(X, tc.excludeDiag)
			}
		}
		dst := mat.NewDense(tc.n, tc.d, nil)
		k := svgd.Direction(dst, X, S, kernel.RBF{H: tc.h}, tc.excludeDiag, svgd.NewWorkspace(tc.n, tc.d))
		if math.Abs(k.H-wantH) > 1e-14*wantH {
			t.Errorf("%+v: bandwidth %v, want %v", tc, k.H, wantH)
		}
		want := naiveDirection(X, S, wantH)
		for i := 0; i < tc.n; i++ {
			for c := 0; c < tc.d; c++ {
				if math.Abs(dst.At(i, c)-want.At(i, c)) > 1e-13 {
					t.Errorf("%+v: φ[%d,%d] = %v, want %v", tc, i, c, dst.At(i, c), want.At(i, c))
				}
			}
		}
	}
}

// meanData is the posterior of the mean θ ∈ ℝ² of N(θ, I) data under a
// N(0, I) prior, seen through minibatches. It records nothing and is safe
// for concurrent use.
type meanData struct{ y [][2]float64 }

func (m meanData) Dim() int   { return 2 }
func (m meanData) NData() int { return len(m.y) }
func (m meanData) LogProbGrad(x, g []float64) float64 {
	idx := make([]int, len(m.y))
	for i := range idx {
		idx[i] = i
	}
	return m.MinibatchLogProbGrad(x, g, idx)
}
func (m meanData) MinibatchLogProbGrad(x, g []float64, batch []int) float64 {
	scale := float64(len(m.y)) / float64(len(batch))
	lp := -(x[0]*x[0] + x[1]*x[1]) / 2
	g[0], g[1] = -x[0], -x[1]
	for _, b := range batch {
		for c := 0; c < 2; c++ {
			r := m.y[b][c] - x[c]
			lp -= scale * r * r / 2
			g[c] += scale * r
		}
	}
	return lp
}

func newMeanData(rng *rand.Rand, n int) meanData {
	m := meanData{y: make([][2]float64, n)}
	for i := range m.y {
		m.y[i] = [2]float64{1 + rng.NormFloat64(), -2 + rng.NormFloat64()}
	}
	return m
}

func randInit(rng *rand.Rand, n, d int, sd float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			x.Set(i, c, sd*rng.NormFloat64())
		}
	}
	return x
}

// TestRunMatchesNaiveIterations replays several iterations with the
// double-loop direction, the sorted median, the AdaGrad-with-momentum
// recursion and consecutive minibatches of one permutation that wrap
// around the data (N = 7, |B| = 3), as the reference code does.
func TestRunMatchesNaiveIterations(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	tg := newMeanData(rng, 7)
	const n, iters, batch, eps = 5, 6, 3, 0.05
	init := randInit(rng, n, 2, 2)

	var evals []int64
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		evals = append(evals, s.GradEvals)
		return nil
	})
	got, err := sampler.Set(svgd.Run(context.Background(), tg, particle.Start{Particles: init}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed, Workers: 2}, Iterations: iters, StepSize: eps, Batch: batch, RecordEvery: 1}, rand.NewPCG(9, 9), rec))
	if err != nil {
		t.Fatal(err)
	}

	perm := rand.New(rand.NewPCG(9, 9)).Perm(7) // Init given: the permutation is the first draw
	x := mat.DenseCopyOf(init)
	hist := mat.NewDense(n, 2, nil)
	S := mat.NewDense(n, 2, nil)
	for it := 0; it < iters; it++ {
		b := make([]int, batch)
		for k := range b {
			b[k] = perm[(it*batch+k)%7]
		}
		for i := 0; i < n; i++ {
			tg.MinibatchLogProbGrad(x.RawRowView(i), S.RawRowView(i), b)
		}
		phi := naiveDirection(x, S, sortedMedianBandwidth(x, false))
		for i := 0; i < n; i++ {
			for c := 0; c < 2; c++ {
				g := phi.At(i, c)
				h := g * g
				if it > 0 {
					h = 0.9*hist.At(i, c) + 0.1*g*g
				}
				hist.Set(i, c, h)
				x.Set(i, c, x.At(i, c)+eps*g/(1e-6+math.Sqrt(h)))
			}
		}
	}
	for i := 0; i < n; i++ {
		for c := 0; c < 2; c++ {
			if math.Abs(got.X.At(i, c)-x.At(i, c)) > 1e-12 {
				t.Errorf("x[%d,%d] = %v, want %v", i, c, got.X.At(i, c), x.At(i, c))
			}
		}
	}
	if len(evals) != iters+1 {
		t.Fatalf("%d snapshots, want %d", len(evals), iters+1)
	}
	for s, e := range evals {
		if e != int64(s*n*batch) {
			t.Errorf("snapshot %d: %d gradient evaluations, want %d", s, e, s*n*batch)
		}
	}
}

func TestWorkersDoNotChangeTheResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	tg := newMeanData(rng, 250)
	init := randInit(rng, 23, 2, 3)
	var ref *mat.Dense
	for _, w := range []int{1, 2, 3, 7, 40} {
		got, err := sampler.Set(svgd.Run(context.Background(), tg, particle.Start{Particles: init}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed, Workers: w}, Iterations: 50, StepSize: 0.05, Batch: 20}, rand.NewPCG(1, 2), nil))
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = got.X
			continue
		}
		if !mat.Equal(ref, got.X) {
			t.Errorf("Workers = %d changed the particles", w)
		}
	}
}

func TestSnapshotsAndFullGradientCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	tg := newMeanData(rng, 30)
	var steps []int
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		steps = append(steps, s.Step)
		// Batch −1: full-data scores cost n·N per iteration.
		if s.GradEvals != int64(s.Step*4*30) {
			t.Errorf("step %d: %d gradient evaluations, want %d", s.Step, s.GradEvals, s.Step*4*30)
		}
		if r, _ := s.X.Dims(); r != 4 || len(s.W) != 4 || s.W[0] != 0.25 {
			t.Errorf("step %d: snapshot of %d particles, weights %v", s.Step, r, s.W)
		}
		if s.Seconds < 0 {
			t.Errorf("negative compute time %v", s.Seconds)
		}
		return nil
	})
	_, err := sampler.Set(svgd.Run(context.Background(), tg, particle.Start{Particles: randInit(rng, 4, 2, 1)}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}, Iterations: 7, RecordEvery: 3, Batch: svgd.FullBatch}, rand.NewPCG(1, 1), rec))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 3, 6, 7}; !slices.Equal(steps, want) {
		t.Errorf("recorded steps %v, want %v", steps, want)
	}
}

// keepLast is a recorder that copies the snapshot it receives and acts at a
// given step.
type keepLast struct {
	at   int
	last *mat.Dense
	act  func() error
}

func (k *keepLast) Record(s particle.Snapshot) error {
	k.last = mat.DenseCopyOf(s.X)
	if s.Step == k.at {
		return k.act()
	}
	return nil
}

func TestContextCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &keepLast{at: 4, act: func() error { cancel(); return nil }}
	got, err := sampler.Set(svgd.Run(ctx, stdNormal(2), particle.Start{Particles: randInit(rand.New(rand.NewPCG(2, 3)), 5, 2, 2)}, svgd.Settings{Iterations: 1000, StepSize: 0.1, RecordEvery: 1}, rand.NewPCG(1, 1), rec))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if got.Len() != 5 || !mat.Equal(got.X, rec.last) {
		t.Error("cancellation did not return the particles of the last iteration")
	}
}

// TestDivergenceIsAnError feeds a NaN score from the 4th iteration on
// (Workers = 1 evaluates the particles in order, 3 per iteration): the
// error names the iteration and the particle, before the particles move.
func TestDivergenceIsAnError(t *testing.T) {
	var calls atomic.Int64
	tg := target.Func{D: 2, F: func(x, g []float64) float64 {
		g[0], g[1] = -x[0], -x[1]
		if calls.Add(1) > 3*3 {
			g[1] = math.NaN()
		}
		return 0
	}}
	got, err := sampler.Set(svgd.Run(context.Background(), tg, particle.Start{Particles: randInit(rand.New(rand.NewPCG(3, 3)), 3, 2, 1)}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed, Workers: 1}, Iterations: 10}, rand.NewPCG(1, 1), nil))
	var nf *particle.NonFiniteError
	if !errors.As(err, &nf) || err.Error() != "svgd: iteration 4, particle 0: non-finite score: coordinate 1 is NaN" {
		t.Fatalf("error %v, want the NaN score of iteration 4", err)
	}
	if got.X != nil {
		t.Error("a diverged run returned particles")
	}
}

// priorNormal is N(0, I) with a N(0, σ²I) prior sampler.
type priorNormal struct {
	target.Func
	sd float64
}

func (p priorNormal) SamplePrior(rng *rand.Rand, dst []float64) {
	for j := range dst {
		dst[j] = p.sd * rng.NormFloat64()
	}
}

func TestInitialisation(t *testing.T) {
	ctx := context.Background()
	src := rand.NewPCG(1, 1)
	got, err := sampler.Set(svgd.Run(ctx, priorNormal{stdNormal(3), 2}, particle.Start{}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}, N: 9, Iterations: 1}, src, nil))
	if err != nil || got.Len() != 9 {
		t.Fatalf("prior initialisation: %d particles, error %v", got.Len(), err)
	}
	for _, tc := range []struct {
		name  string
		t     target.Target
		start particle.Start
		s     svgd.Settings
		want  string
	}{
		{"no prior", stdNormal(3), particle.Start{}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone}}, "PriorSampler"},
		{"columns", stdNormal(3), particle.Start{Particles: mat.NewDense(4, 2, nil)}, svgd.Settings{}, "columns"},
		{"NaN init", stdNormal(1), particle.Start{Particles: mat.NewDense(2, 1, []float64{0, math.NaN()})}, svgd.Settings{}, "initial particle 1"},
		{"alpha", stdNormal(1), particle.Start{Particles: mat.NewDense(2, 1, nil)}, svgd.Settings{Alpha: 1}, "alpha = 1"},
		{"step", stdNormal(1), particle.Start{Particles: mat.NewDense(2, 1, nil)}, svgd.Settings{StepSize: -1}, "step_size = -1"},
		{"X0 length", stdNormal(2), particle.Start{X0: []float64{1}}, svgd.Settings{}, "X0 has length 1"},
		{"X0 length, no whitening", stdNormal(2), particle.Start{X0: []float64{1}}, svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone}}, "X0 has length 1"},
	} {
		if _, err := sampler.Set(svgd.Run(ctx, tc.t, tc.start, tc.s, src, nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}

// With only X0, the particles start around it: on N(0, I) from X0 = (5, 5)
// the run of 2000 steps moves their mean to the origin.
func TestZeroSettingsX0(t *testing.T) {
	set, err := sampler.Set(svgd.Run(context.Background(), stdNormal(2), particle.Start{X0: []float64{5, 5}}, svgd.Settings{StepSize: 0.1, Iterations: 2000},
		rand.NewPCG(7, 8), nil))
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != svgd.DefaultN {
		t.Fatalf("%d particles, want %d", set.Len(), svgd.DefaultN)
	}
	for j, m := range set.Mean(nil) {
		// The final iterate's mean carries AdaGrad's jitter about the
		// fixed point, half a step (0.05) in every coordinate whatever
		// the bandwidth rule (0.0499–0.0516 over sources 7–9 with either).
		if math.Abs(m) > 0.06 {
			t.Errorf("mean[%d] = %v, want 0 ± 0.06", j, m)
		}
	}
}
