package mmdfw

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// gaussian is an exact Gaussian target N(m, Σ) with a random, well
// conditioned Σ = AAᵀ/d + 0.3 I and m ∼ N(0, I); its prior draws are draws
// of the target itself.
type gaussian struct {
	*target.Gaussian
	m []float64
}

func newGaussian(d int, rng *rand.Rand) *gaussian {
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
	return &gaussian{Gaussian: g, m: m}
}

// sample draws n exact draws (rows).
func (g *gaussian) sample(n int, rng *rand.Rand) *mat.Dense {
	out := mat.NewDense(n, g.Dim(), nil)
	g.SampleRows(rng, out)
	return out
}

func (g *gaussian) embed(k Kernel) (Embedder, error) { return GaussianEmbedding(g.Gaussian)(k) }

// exactMMD2 returns ‖μ̂ − μ_p‖² (without the ½) of set for k from the
// embedding e.
func exactMMD2(set particle.Set, k Kernel, e Embedder) float64 {
	n := set.Len()
	var s float64
	for i := 0; i < n; i++ {
		xi := set.X.RawRowView(i)
		for j := 0; j < n; j++ {
			s += set.W[i] * set.W[j] * k.Eval(xi, set.X.RawRowView(j))
		}
		s -= 2 * set.W[i] * e.Embedding(xi)
	}
	return s + e.SelfIntegral()
}
