package sgld

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The unadjusted Langevin chain with a constant step ε on N(0, 1),
// x ← (1 − ε/2)x + √ε z, is an AR(1) whose stationary variance is
// 1/(1 − ε/4), not 1: the constant schedule must show exactly this bias.
// With ε = 0.5 (variance 8/7) and 40,000 nearly independent thinned draws
// (lag-10 correlation 0.75¹⁰ ≈ 0.06) the variance estimate has a standard
// error of about 0.008; the tolerance is four of them.
func TestConstantSchedule(t *testing.T) {
	std := target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}
	set, err := sampler.Set(Run(context.Background(), std, particle.Start{}, Settings{
		Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}, Schedule: ScheduleConstant, A: 0.5, Iterations: 200000, BurnIn: 100000, Thin: 10, Chains: 4,
	}, rand.NewPCG(7, 8), nil))
	if err != nil {
		t.Fatal(err)
	}
	x := mat.Col(nil, 0, set.X)
	if len(x) != 40000 {
		t.Fatalf("%d draws, want 40000", len(x))
	}
	var m, v float64
	for _, xi := range x {
		m += xi
	}
	m /= float64(len(x))
	for _, xi := range x {
		v += (xi - m) * (xi - m)
	}
	v /= float64(len(x) - 1)
	want := 1 / (1 - 0.5/4)
	se := want * math.Sqrt(2/float64(len(x)))
	if math.Abs(v-want) > 4*se || math.Abs(m) > 4*math.Sqrt(want/float64(len(x))*1.2) {
		t.Errorf("constant step 0.5: mean %.4f variance %.4f, want 0 and %.4f (se %.4f)", m, v, want, se)
	}
}

// In the target's coordinates the polynomial schedule is the default: ""
// and SchedulePolynomial give the same draws, and a constant schedule at
// the first polynomial step gives other draws.
func TestScheduleDefault(t *testing.T) {
	m := newGaussMean(100, []float64{0}, []float64{0}, 1, 1, 1)
	run := func(s Settings) *mat.Dense {
		s.Iterations, s.Chains, s.Whiten, s.Stop = 400, 2, WhitenNone, StopFixed
		set, err := sampler.Set(Run(context.Background(), m, particle.Start{}, s, rand.NewPCG(1, 2), nil))
		if err != nil {
			t.Fatal(err)
		}
		return set.X
	}
	def := run(Settings{})
	if !mat.Equal(def, run(Settings{Schedule: SchedulePolynomial})) {
		t.Error(`schedule = "polynomial" differs from the default`)
	}
	eps1 := StepSize(1/float64(m.NData()), DefaultB, DefaultGamma, 1)
	if mat.Equal(def, run(Settings{Schedule: ScheduleConstant, A: eps1})) {
		t.Error("the constant schedule gave the polynomial draws")
	}
}
