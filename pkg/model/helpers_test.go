package model

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// synthLogistic returns n rows of p−1 uniform features and a bias column,
// with labels drawn from the logistic model at a random coefficient vector.
func synthLogistic(rng *rand.Rand, n, p int) (*mat.Dense, []float64) {
	X := mat.NewDense(n, p, nil)
	w := make([]float64, p)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		var z float64
		for j := 0; j < p-1; j++ {
			row[j] = rng.Float64()
			z += row[j] * w[j]
		}
		row[p-1] = 1
		z += w[p-1]
		if rng.Float64() < sigmoid(z) {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return X, y
}
