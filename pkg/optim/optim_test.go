package optim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/model"
)

// meanTarget is log p(x) = −½ Σₙ ‖x − dₙ‖², whose mode is the mean of the
// dₙ and whose posterior is N(mean, I/N).
type meanTarget struct {
	d    int
	data [][]float64
}

func (m *meanTarget) Dim() int   { return m.d }
func (m *meanTarget) NData() int { return len(m.data) }
func (m *meanTarget) LogProbGrad(x, g []float64) float64 {
	all := make([]int, len(m.data))
	for i := range all {
		all[i] = i
	}
	return m.MinibatchLogProbGrad(x, g, all)
}
func (m *meanTarget) MinibatchLogProbGrad(x, g []float64, batch []int) float64 {
	for j := range g {
		g[j] = 0
	}
	var lp float64
	for _, i := range batch {
		for j, v := range m.data[i] {
			r := v - x[j]
			g[j] += r
			lp -= 0.5 * r * r
		}
	}
	c := float64(len(m.data)) / float64(len(batch))
	floats.Scale(c, g)
	return c * lp
}

func newMeanTarget(rng *rand.Rand, n, d int) (*meanTarget, []float64) {
	t := &meanTarget{d: d, data: make([][]float64, n)}
	mean := make([]float64, d)
	for i := range t.data {
		t.data[i] = make([]float64, d)
		for j := range t.data[i] {
			t.data[i][j] = 3 + float64(j) + rng.NormFloat64()
			mean[j] += t.data[i][j] / float64(n)
		}
	}
	return t, mean
}

// Full-batch Adam and AdaGrad reach the known mode to 1e-3 (the posterior
// sd is 1/√N ≈ 0.03); minibatch Adam ends within a few step lengths of it.
func TestTrainMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tg, mean := newMeanTarget(rng, 1000, 4)
	x0 := make([]float64, 4)
	for _, tc := range []struct {
		name string
		s    Settings
		tol  float64
	}{
		{"adam-full", Settings{Batch: 1000, Steps: 3000, Step: 0.05}, 1e-3},
		{"adagrad-full", Settings{Rule: AdaGrad, Batch: 1000, Steps: 3000, Step: 0.5}, 1e-3},
		{"adam-batch20", Settings{Batch: 20, Steps: 3000, Step: 0.01}, 0.05},
	} {
		r, err := Train(context.Background(), tg, x0, tc.s, rand.NewPCG(3, 4))
		if err != nil {
			t.Fatal(err)
		}
		for j := range mean {
			if math.Abs(r.X[j]-mean[j]) > tc.tol {
				t.Errorf("%s: x[%d] = %.5f, mode %.5f", tc.name, j, r.X[j], mean[j])
			}
		}
		if want := int64(tc.s.Steps * min(tc.s.Batch, 1000)); r.GradEvals != want {
			t.Errorf("%s: GradEvals = %d, want %d", tc.name, r.GradEvals, want)
		}
	}
}

// At the mode of the mean target the scales are its posterior sd 1/√N:
// the minibatch score's variance is (N²/|B|)(1 − |B|/N)·1 per coordinate
// (sampling without replacement), so σⱼ ≈ (1/√N)/√(1 − |B|/N). The
// average over ≈ 1/(1−0.995) = 200 steps has a relative sd of about
// √(2/200) = 10 %, a scale half of it; 15 % is three of those.
func TestTrainScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, b = 2000, 20
	tg, _ := newMeanTarget(rng, n, 3)
	r, err := Train(context.Background(), tg, make([]float64, 3), Settings{Batch: b, Steps: 6000, Step: 0.005}, rand.NewPCG(7, 8))
	if err != nil {
		t.Fatal(err)
	}
	want := 1 / math.Sqrt(n) / math.Sqrt(1-float64(b)/n)
	t.Logf("scales %.4g, want %.4g", r.Scale, want)
	for j, s := range r.Scale {
		if math.Abs(s/want-1) > 0.15 {
			t.Errorf("Scale[%d] = %.4g, want %.4g", j, s, want)
		}
	}
}

// synthBNN returns a regression set with more network parameters than
// rows: n rows of p standard normal features, y = sin(2x₁) + x₂/2 + noise of
// sd 0.1, standardised by the training mean and sd.
func synthBNN(rng *rand.Rand, n, p int) (*mat.Dense, []float64) {
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range y {
		row := X.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		y[i] = math.Sin(2*row[0]) + 0.5*row[1] + 0.1*rng.NormFloat64()
	}
	return X, y
}

// On a network with 353 parameters and 60 rows the collapsed mode
// (w ≈ 0, log λ → log((K/2+1)/b₀), the constant predictor) is a mode of
// the joint density; training with early stopping on validation rows must
// end at a network that predicts, not there.
func TestTrainBNNNoCollapse(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const p, h = 5, 50
	Xa, ya := synthBNN(rng, 120, p)
	mu, sd := mean(ya[:60]), stdev(ya[:60])
	for i := range ya {
		ya[i] = (ya[i] - mu) / sd
	}
	Xtr := mat.DenseCopyOf(Xa.Slice(0, 60, 0, p))
	Xva := mat.DenseCopyOf(Xa.Slice(60, 120, 0, p))
	ytr, yva := ya[:60], ya[60:]
	m := model.NewBNN(Xtr, ytr, h)
	d := m.Dim()
	k := d - 2
	if d <= 60 {
		t.Fatalf("d = %d is not above the rows", d)
	}
	rmse := func(x []float64) float64 {
		r, _ := m.Metrics(Xva, yva, mat.NewDense(1, d, x), []float64{1}, 0, 1)
		return r
	}
	x0 := make([]float64, d)
	m.Init(rand.New(rand.NewPCG(11, 12)), x0)
	r, err := Train(context.Background(), m, x0, Settings{Batch: 20, Steps: 5000, Step: 0.005,
		Validate: func(x []float64) float64 { return -rmse(x) }}, rand.NewPCG(13, 14))
	if err != nil {
		t.Fatal(err)
	}
	// The constant predictor of standardised y scores about 1 on validation.
	constant := math.Sqrt(meanSq(yva))
	collapse := math.Log((float64(k)/2 + m.A0) / m.B0)
	ww := floats.Dot(r.X[:k], r.X[:k])
	t.Logf("steps %d (best %d), validation RMSE %.3f (constant %.3f), log λ %.2f (collapse %.2f), ‖w‖² %.2f",
		r.Steps, r.BestStep, -r.Score, constant, r.X[d-1], collapse, ww)
	if -r.Score > 0.6*constant {
		t.Errorf("validation RMSE %.3f is not well below the constant predictor's %.3f", -r.Score, constant)
	}
	if r.X[d-1] > collapse-2 || ww < 1 {
		t.Errorf("trained point near the collapsed mode: log λ %.2f (collapse %.2f), ‖w‖² %.3g", r.X[d-1], collapse, ww)
	}
	// Full L-BFGS from the same start climbs to the collapsed mode: the
	// situation this test is about.
	mp, err := laplace.FindMAP(context.Background(), m, x0, laplace.MAPSettings{})
	if err != nil {
		t.Fatal(err)
	}
	mww := floats.Dot(mp.X[:k], mp.X[:k])
	t.Logf("L-BFGS: %d iterations, log λ %.2f, ‖w‖² %.3g, validation RMSE %.3f, log p %.1f (trained point: %.1f)",
		mp.Iterations, mp.X[d-1], mww, rmse(mp.X), mp.LogProb, m.LogProbGrad(r.X, make([]float64, d)))
	if math.Abs(mp.X[d-1]-collapse) > 0.01 || mww > 1e-6 {
		t.Errorf("L-BFGS did not reach the collapsed mode: log λ %.3f (collapse %.3f), ‖w‖² %.3g", mp.X[d-1], collapse, mww)
	}
	for j, s := range r.Scale {
		if !(s > 0) {
			t.Fatalf("Scale[%d] = %v", j, s)
		}
	}
}

func mean(v []float64) float64 { return floats.Sum(v) / float64(len(v)) }

func meanSq(v []float64) float64 { return floats.Dot(v, v) / float64(len(v)) }

func stdev(v []float64) float64 {
	m := mean(v)
	var s float64
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)))
}

// The steps allocate nothing: a run of 2,000 steps allocates what a run of
// 10 does (the result and the buffers).
func TestTrainAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	X, y := synthBNN(rng, 300, 4)
	m := model.NewBNN(X, y, 10)
	x0 := make([]float64, m.Dim())
	m.Init(rng, x0)
	count := func(steps int) float64 {
		return race.AllocsPerRun(t, 3, func() {
			if _, err := Train(context.Background(), m, x0, Settings{Steps: steps, Batch: 50}, rand.NewPCG(1, 1)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := count(10), count(2000); b > a {
		t.Errorf("2,000 steps allocate %v times, 10 steps %v", b, a)
	}
}

// BenchmarkTrainStep is one Adam step on the 50-unit network of a
// Boston-sized set (batch 100).
func BenchmarkTrainStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(17, 18))
	X, y := synthBNN(rng, 455, 13)
	m := model.NewBNN(X, y, 50)
	x0 := make([]float64, m.Dim())
	m.Init(rng, x0)
	b.ReportAllocs()
	b.ResetTimer()
	_, err := Train(context.Background(), m, x0, Settings{Steps: b.N, Batch: 100}, rand.NewPCG(1, 1))
	if err != nil {
		b.Fatal(err)
	}
}

// A cancelled context ends training with its error, the point so far and
// the evaluations spent.
func TestTrainCancel(t *testing.T) {
	tg, _ := newMeanTarget(rand.New(rand.NewPCG(19, 20)), 100, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Train(ctx, tg, []float64{1, 2}, Settings{Batch: 10}, rand.NewPCG(1, 1))
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if r.Steps != 0 || r.GradEvals != 0 || r.X[0] != 1 || r.X[1] != 2 {
		t.Errorf("cancelled before the first step: %+v", r)
	}
}
