package mmdfw

import (
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
)

// syntheticLR returns a logistic-regression posterior on n synthetic rows
// of p features in [0, 1] plus a bias column (Covertype's shape when
// p = 54), labels drawn from a logistic model with N(0, 1) coefficients.
func syntheticLR(n, p int, rng *rand.Rand) *model.Logistic {
	return model.NewLogistic(testutil.LogisticData(rng, n, p+1))
}
