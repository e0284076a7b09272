package mmdfw

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// gaussian is a test stand-in for an exact Gaussian target N(m, Σ) with a
// broad prior N(0, σ₀² I) to draw from and closed-form embeddings.
type gaussian struct {
	m     []float64
	sigma *mat.SymDense
	prec  *mat.SymDense
	chol  mat.Cholesky
	s0    float64
}

func newGaussian(d int, rng *rand.Rand, s0 float64) *gaussian {
	// Σ = A Aᵀ/d + 0.3 I: random, well conditioned, unit-ish scale.
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
	g := &gaussian{m: m, sigma: sig, s0: s0}
	if !g.chol.Factorize(sig) {
		panic("not PD")
	}
	g.prec = mat.NewSymDense(d, nil)
	if err := g.chol.InverseTo(g.prec); err != nil {
		panic(err)
	}
	return g
}

func (g *gaussian) Dim() int { return len(g.m) }

func (g *gaussian) LogProbGrad(x, grad []float64) float64 {
	d := len(g.m)
	var lp float64
	for i := 0; i < d; i++ {
		var s float64
		for j := 0; j < d; j++ {
			s -= g.prec.At(i, j) * (x[j] - g.m[j])
		}
		grad[i] = s
		lp += 0.5 * s * (x[i] - g.m[i])
	}
	return lp
}

func (g *gaussian) SamplePrior(rng *rand.Rand, dst []float64) {
	for i := range dst {
		dst[i] = g.s0 * rng.NormFloat64()
	}
}

// sample draws n exact draws (rows).
func (g *gaussian) sample(n int, rng *rand.Rand) *mat.Dense {
	d := len(g.m)
	var L mat.TriDense
	g.chol.LTo(&L)
	out := mat.NewDense(n, d, nil)
	z := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := out.RawRowView(i)
		for a := 0; a < d; a++ {
			s := g.m[a]
			for b := 0; b <= a; b++ {
				s += L.At(a, b) * z[b]
			}
			row[a] = s
		}
	}
	return out
}

// embed returns the closed-form embedding of g for k (RBF or random
// features).
func (g *gaussian) embed(k Kernel) (Embedder, error) {
	d := len(g.m)
	switch k := k.(type) {
	case kernel.RBF:
		h2 := k.H * k.H
		a := mat.NewSymDense(d, nil)
		a.CopySym(g.sigma)
		for i := 0; i < d; i++ {
			a.SetSym(i, i, a.At(i, i)+h2)
		}
		var c mat.Cholesky
		if !c.Factorize(a) {
			return nil, fmt.Errorf("not PD")
		}
		inv := mat.NewSymDense(d, nil)
		c.InverseTo(inv)
		// det(I + Σ/h²) = det(Σ + h²I)/h^(2d).
		scale := math.Exp(-0.5 * (c.LogDet() - float64(d)*math.Log(h2)))
		b := mat.NewSymDense(d, nil)
		b.CopySym(g.sigma)
		b.ScaleSym(2/h2, b)
		for i := 0; i < d; i++ {
			b.SetSym(i, i, b.At(i, i)+1)
		}
		var cb mat.Cholesky
		cb.Factorize(b)
		return &rbfEmbed{m: g.m, inv: inv, scale: scale, self: math.Exp(-0.5 * cb.LogDet()), tmp: make([]float64, d)}, nil
	case RandomFeatures:
		om, b := k.Frequencies()
		D, _ := om.Dims()
		mv := make([]float64, D)
		var self float64
		for j := 0; j < D; j++ {
			w := om.RawRowView(j)
			q := mat.Inner(mat.NewVecDense(d, w), g.sigma, mat.NewVecDense(d, w))
			mv[j] = math.Sqrt(2/float64(D)) * math.Exp(-0.5*q) * math.Cos(dot(w, g.m)+b[j])
			self += mv[j] * mv[j]
		}
		return &rffEmbed{om: om, b: b, mv: mv, self: self}, nil
	}
	return nil, fmt.Errorf("no embedding for %T", k)
}

type rbfEmbed struct {
	m     []float64
	inv   *mat.SymDense
	scale float64
	self  float64
	tmp   []float64
}

func (e *rbfEmbed) Embedding(x []float64) float64 { return e.EmbeddingGrad(nil, x) }
func (e *rbfEmbed) SelfIntegral() float64         { return e.self }
func (e *rbfEmbed) EmbeddingGrad(dst, x []float64) float64 {
	d := len(x)
	var q float64
	u := make([]float64, d)
	for i := 0; i < d; i++ {
		var s float64
		for j := 0; j < d; j++ {
			s += e.inv.At(i, j) * (x[j] - e.m[j])
		}
		u[i] = s
		q += s * (x[i] - e.m[i])
	}
	v := e.scale * math.Exp(-0.5*q)
	for i := range dst {
		dst[i] = -v * u[i]
	}
	return v
}

type rffEmbed struct {
	om   *mat.Dense
	b    []float64
	mv   []float64
	self float64
}

func (e *rffEmbed) Embedding(x []float64) float64 { return e.EmbeddingGrad(nil, x) }
func (e *rffEmbed) SelfIntegral() float64         { return e.self }
func (e *rffEmbed) EmbeddingGrad(dst, x []float64) float64 {
	D, _ := e.om.Dims()
	c := math.Sqrt(2 / float64(D))
	for i := range dst {
		dst[i] = 0
	}
	var s float64
	for j := 0; j < D; j++ {
		w := e.om.RawRowView(j)
		sn, cs := math.Sincos(dot(w, x) + e.b[j])
		s += c * cs * e.mv[j]
		for i := range dst {
			dst[i] -= c * sn * e.mv[j] * w[i]
		}
	}
	return s
}

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
