package model_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/par"
)

func ExampleLogistic() {
	// Four rows: one feature and a bias column; labels ±1.
	X := mat.NewDense(4, 2, []float64{
		0.1, 1,
		0.4, 1,
		0.6, 1,
		0.9, 1,
	})
	m := model.NewLogistic(X, []float64{-1, -1, 1, 1})
	theta := []float64{4, -2, 0} // w = (4, −2), log α = 0
	grad := make([]float64, m.Dim())
	lp := m.LogProbGrad(theta, grad)
	fmt.Printf("d = %d, log p = %.4f\n", m.Dim(), lp)

	// The predictive of two equally weighted particles.
	P := mat.NewDense(2, 3, []float64{4, -2, 0, 8, -4, 0})
	acc, ll := m.Metrics(X, []float64{-1, -1, 1, 1}, P, []float64{0.5, 0.5})
	fmt.Printf("accuracy %.2f, log-likelihood %.4f\n", acc, ll)
	// Output:
	// d = 3, log p = -17.8469
	// accuracy 1.00, log-likelihood -0.2744
}

func ExampleBNN() {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(200, 3, nil)
	y := make([]float64, 200)
	for i := range y {
		for j := 0; j < 3; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = X.At(i, 0) - 0.5*X.At(i, 2)
	}
	m := model.NewBNN(X, y, 50)
	theta := make([]float64, m.Dim())
	m.Init(rng, theta)
	grad := make([]float64, m.Dim())
	m.MinibatchLogProbGrad(theta, grad, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	fmt.Println("d =", m.Dim())
	// Output:
	// d = 253
}

func ExampleBNN_Outputs() {
	// Two inputs, one feature, two hidden units. θ = [W1, b1, w2, b2, log γ, log λ].
	X := mat.NewDense(2, 1, []float64{-1, 2})
	m := model.NewBNN(X, []float64{0, 0}, 2)
	P := mat.NewDense(2, m.Dim(), []float64{
		1, -1, 0, 0, 1, 1, 0.5, 0, 0, // f(x) = relu(x) + relu(−x) + 0.5 = |x| + 0.5
		1, -1, 0, 0, 1, 0, 0, 0, 0, //   f(x) = relu(x)
	})
	F := m.Outputs(nil, X, P)
	fmt.Println(mat.Formatted(F))
	// Output:
	// ⎡1.5  2.5⎤
	// ⎣  0    2⎦
}

// A greedy method adds particles and never moves them: a MetricsCache
// computes each particle's outputs at the evaluation rows once, and gives
// the bits of BNN.Metrics for every snapshot.
func ExampleBNN_NewMetricsCache() {
	rng := rand.New(rand.NewPCG(3, 4))
	X := mat.NewDense(100, 2, nil)
	y := make([]float64, 100)
	for i := range y {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		y[i] = X.At(i, 0) - X.At(i, 1)
	}
	m := model.NewBNN(X, y, 10)
	Xt, yt := X.Slice(0, 30, 0, 2).(*mat.Dense), y[:30]
	cache := m.NewMetricsCache(Xt, yt, 0, 1)
	P := mat.NewDense(8, m.Dim(), nil)
	same := true
	for n := 1; n <= 8; n++ {
		m.Init(rng, P.RawRowView(n-1)) // the n-th particle joins
		w := make([]float64, n)
		for i := range w {
			w[i] = 1 / float64(n)
		}
		Q := P.Slice(0, n, 0, m.Dim()).(*mat.Dense)
		r1, l1 := cache.Metrics(Q, w)
		r2, l2 := m.Metrics(Xt, yt, Q, w, 0, 1)
		same = same && r1 == r2 && l1 == l2
	}
	fmt.Println("same as Metrics at every snapshot:", same)
	// Output:
	// same as Metrics at every snapshot: true
}

// A particle method that reads only the scores (SVGD) takes them without
// the log densities: the same gradients, bit for bit. Prefetch brings the
// rows of the next batch into the caches one pass ahead.
func ExampleLogistic_MinibatchGradBatch() {
	rng := rand.New(rand.NewPCG(5, 6))
	X := mat.NewDense(500, 3, nil)
	y := make([]float64, 500)
	for i := range y {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		X.Set(i, 2, 1)
		y[i] = 1
		if X.At(i, 0)-X.At(i, 1)+0.3*rng.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	m := model.NewLogistic(X, y)
	xs := mat.NewDense(4, m.Dim(), nil)
	for i := 0; i < 4; i++ {
		for j := 0; j < m.Dim(); j++ {
			xs.Set(i, j, 0.5*rng.NormFloat64())
		}
	}
	batch, next := []int{3, 14, 15, 92, 65, 35}, []int{89, 79, 32, 38, 46, 26}
	withLp, alone := mat.NewDense(4, m.Dim(), nil), mat.NewDense(4, m.Dim(), nil)
	m.MinibatchLogProbGradBatch(xs, withLp, make([]float64, 4), batch)
	m.MinibatchGradBatch(xs, alone, batch)
	m.Prefetch(next)
	fmt.Println("same gradients:", mat.Equal(withLp, alone))
	// Output:
	// same gradients: true
}

// The network's gradient-only pass on a team of goroutines, with other
// work (here a counter) run beside it as one more part of the team's job.
func ExampleBNN_MinibatchGradBatchOn() {
	rng := rand.New(rand.NewPCG(7, 8))
	X := mat.NewDense(300, 4, nil)
	y := make([]float64, 300)
	for i := range y {
		for j := 0; j < 4; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = X.At(i, 0) * X.At(i, 1)
	}
	m := model.NewBNN(X, y, 8)
	xs := mat.NewDense(6, m.Dim(), nil)
	for i := 0; i < 6; i++ {
		m.Init(rng, xs.RawRowView(i))
	}
	batch := []int{0, 10, 20, 30, 40, 50, 60, 70}
	want, got := mat.NewDense(6, m.Dim(), nil), mat.NewDense(6, m.Dim(), nil)
	m.MinibatchLogProbGradBatch(xs, want, make([]float64, 6), batch)
	team := par.NewTeam(2)
	defer team.Close()
	var side counter
	m.MinibatchGradBatchOn(team, &side, xs, got, batch)
	fmt.Println("same gradients:", mat.Equal(want, got), "side part ran:", side.n)
	// Output:
	// same gradients: true side part ran: 1
}

// counter counts the runs of a side part.
type counter struct{ n int }

func (c *counter) Run(int) { c.n++ }
