package laplace

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// newGaussian is an exact Gaussian target N(m, Σ) with a random, well
// conditioned Σ = AAᵀ/d + 0.3 I and m ∼ N(0, I).
func newGaussian(d int, rng *rand.Rand) *target.Gaussian {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	sig := mat.NewSymDense(d, nil)
	sig.SymOuterK(1/float64(d), a)
	for i := 0; i < d; i++ {
		sig.SetSym(i, i, sig.At(i, i)+0.3)
	}
	m := make([]float64, d)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	g, err := target.NewGaussian(m, sig)
	if err != nil {
		panic(err)
	}
	return g
}

// syntheticLR is a Bayesian logistic regression on n synthetic rows of p
// features and a bias.
func syntheticLR(n, p int, rng *rand.Rand) *model.Logistic {
	return model.NewLogistic(testutil.LogisticData(rng, n, p+1))
}
