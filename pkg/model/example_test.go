package model_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
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
