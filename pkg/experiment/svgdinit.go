package experiment

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mmdfw/mmdfw/pkg/model"
)

// InitReference is the SVGD init value that starts as the SVGD reference
// code's scripts do: model.BNN.Init on a neural network (as "model"), and
// on the logistic regression the start of its logistic script,
//
//	α₀ ~ Gamma(shape A0, scale B0),  w ~ N(0, α₀⁻¹ I),  x = [w, log α₀],
//
// numpy's gamma(a0, b0) taking its second argument as a scale: with the
// model's A0 = 1, B0 = 0.01 the draws of α₀ have mean 0.01, so |w| reaches
// hundreds, unlike the prior Gamma(1, rate 0.01) of "prior" (mean 100).
const InitReference = "reference"

// logisticReferenceInit returns n starting particles of m drawn as the
// reference logistic script draws them (see InitReference).
func logisticReferenceInit(m *model.Logistic, n int, rng *rand.Rand) *mat.Dense {
	d := m.Dim()
	X := mat.NewDense(n, d, nil)
	g := distuv.Gamma{Alpha: m.A0, Beta: 1 / m.B0, Src: rng}
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		a := g.Rand()
		sd := 1 / math.Sqrt(a)
		for j := 0; j < d-1; j++ {
			row[j] = sd * rng.NormFloat64()
		}
		row[d-1] = math.Log(a)
	}
	return X
}
