package mmdfw

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
)

// syntheticLR returns a logistic-regression posterior on n synthetic rows
// of p features in [0, 1] plus a bias column (Covertype's shape when
// p = 54), labels drawn from a logistic model with N(0, 1) coefficients.
func syntheticLR(n, p int, rng *rand.Rand) *model.Logistic {
	X := mat.NewDense(n, p+1, nil)
	w := make([]float64, p+1)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		var a float64
		for j := 0; j < p; j++ {
			row[j] = rng.Float64()
			a += w[j] * row[j]
		}
		row[p] = 1
		a += w[p]
		y[i] = 1
		if rng.Float64() > 1/(1+math.Exp(-a)) {
			y[i] = -1
		}
	}
	return model.NewLogistic(X, y)
}
