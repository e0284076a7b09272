package mmdfw

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/rff"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// GaussianEmbedding returns a Inputs.Embed for the exact Gaussian target
// g: the closed-form embedding under the RBF kernel of the run, or in the
// feature space of its random Fourier features (exact there too). Both are
// GradEmbedders, so Direction Exact can be used.
func GaussianEmbedding(g *target.Gaussian) func(Kernel) (Embedder, error) {
	return func(k Kernel) (Embedder, error) {
		switch k := k.(type) {
		case kernel.RBF:
			return rbfGauss{g.RBFEmbedding(k.H)}, nil
		case *rff.Features:
			e := g.RFFEmbedding(k.Omega(), k.Phase())
			return &rffGauss{f: k, e: e, self: e.NormSq(), phi: make([]float64, k.Len()), gr: make([]float64, k.Dim())}, nil
		}
		return nil, fmt.Errorf("mmdfw: no closed-form Gaussian embedding for kernel %T", k)
	}
}

type rbfGauss struct{ e *target.RBFEmbedding }

func (g rbfGauss) Embedding(x []float64) float64          { return g.e.Value(x) }
func (g rbfGauss) SelfIntegral() float64                  { return g.e.NormSq() }
func (g rbfGauss) EmbeddingGrad(dst, x []float64) float64 { return g.e.Grad(dst, x) }

// rffGauss is μ_p(x) = φ(x)ᵀE[φ(y)] with ∇μ_p(x) = Σⱼ E[φⱼ] ∇φⱼ(x). It
// holds scratch: one per run.
type rffGauss struct {
	f    *rff.Features
	e    *target.RFFEmbedding
	self float64
	phi  []float64
	gr   []float64
}

func (g *rffGauss) Embedding(x []float64) float64 {
	return dot(g.f.Map(g.phi, x), g.e.Mean())
}

func (g *rffGauss) SelfIntegral() float64 { return g.self }

func (g *rffGauss) EmbeddingGrad(dst, x []float64) float64 {
	for i := range dst {
		dst[i] = 0
	}
	var v float64
	for j, m := range g.e.Mean() {
		v += m * g.f.GradFeature(g.gr, x, j)
		for i, gv := range g.gr {
			dst[i] += m * gv
		}
	}
	return v
}
