package svgd

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

func benchState(tb testing.TB, n, batch, workers int) *state {
	rng := rand.New(rand.NewPCG(1, 2))
	// Covertype's shape: 54 features and a bias column, θ = (w, log α).
	lr := model.NewLogistic(testutil.LogisticData(rng, 10000, 55))
	init := mat.NewDense(n, lr.Dim(), nil)
	for i := 0; i < n; i++ {
		row := init.RawRowView(i)
		for j := range row {
			row[j] = 0.1 * rng.NormFloat64()
		}
	}
	st, err := newState(lr, Settings{StepSize: 0.05, Batch: batch, Frame: sampler.Frame{Workers: workers}}, particle.Start{Particles: init}, rand.NewPCG(3, 4))
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkIteration is one SVGD iteration on the logistic regression of
// Covertype's shape (d = 56) with 100 particles and minibatch 100: scores,
// direction and AdaGrad step.
//
// With two workers the run picks the team or the caller alone by their
// measured times (teamPick); "workers=2-team" always takes the team.
func BenchmarkIteration(b *testing.B) {
	for _, w := range []string{"1", "2", "2-team"} {
		b.Run("workers="+w, func(b *testing.B) {
			st := benchState(b, 100, 100, int(w[0]-'0'))
			st.pick.always = len(w) > 1
			defer st.close()
			b.ReportAllocs()
			it := 0
			cpu := testutil.StartCPU()
			for b.Loop() {
				st.step(it)
				it++
			}
			cpu.Report(b)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(it*100), "ns/particle")
		})
	}
}

// BenchmarkIterationBNN is one SVGD iteration on the Naval-shaped network
// (10,741 rows of 16 standardised features, 50 hidden units, d = 903) with
// 20 particles and minibatch 100, as fig2a runs it; "auto" as a run picks
// the team or the caller alone, "team" always takes the team.
func BenchmarkIterationBNN(b *testing.B) {
	for _, team := range []bool{false, true} {
		name := "auto"
		if team {
			name = "team"
		}
		b.Run(name, func(b *testing.B) { benchIterationBNN(b, team) })
	}
}

func benchIterationBNN(b *testing.B, team bool) {
	rng := rand.New(rand.NewPCG(5, 6))
	X := testutil.RandDense(rng, 10741, 16)
	y := testutil.RandVec(rng, 10741, 1)
	m := model.NewBNN(X, y, 50)
	n := 20
	init := mat.NewDense(n, m.Dim(), nil)
	for i := 0; i < n; i++ {
		m.Init(rng, init.RawRowView(i))
	}
	st, err := newState(m, Settings{StepSize: 1e-3, Batch: 100}, particle.Start{Particles: init}, rand.NewPCG(7, 8))
	if err != nil {
		b.Fatal(err)
	}
	st.pick.always = team
	defer st.close()
	b.ReportAllocs()
	it := 0
	cpu := testutil.StartCPU()
	for b.Loop() {
		st.step(it)
		it++
	}
	cpu.Report(b)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(it*n), "ns/particle")
}

// BenchmarkDirection is φ alone for 100 particles in d = 56, median
// bandwidth included.
func BenchmarkDirection(b *testing.B) {
	st := benchState(b, 100, 100, 1)
	defer st.close()
	st.computeScores(nil, nil)
	b.ReportAllocs()
	cpu := testutil.StartCPU()
	for b.Loop() {
		Direction(st.phi, st.x, st.scores, st.kern, false, st.ws)
	}
	cpu.Report(b)
	// X Xᵀ (upper part, counted whole), K·T: 2·2n²d flops.
	b.ReportMetric(4*100*100*56*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func TestIterationAllocatesNothing(t *testing.T) {
	for _, w := range []int{1, 2} {
		st := benchState(t, 100, 100, w)
		it := 0
		if a := race.AllocsPerRun(t, 20, func() { st.step(it); it++ }); a != 0 {
			t.Errorf("workers=%d: %v allocations per iteration", w, a)
		}
		st.close()
	}
}
