package main

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
	"github.com/mmdfw/mmdfw/pkg/repro"
)

// ModelName is the posteriordb model name of the model this program
// registers: the model_name of posteriordb/*/posterior.json.
const ModelName = "normal_invgamma"

// Prior is the model's normal-inverse-gamma prior (model.stan's constants):
// σ² ~ InvGamma(A0, B0), μ | σ² ~ N(M0, σ²/K0).
var Prior = struct{ M0, K0, A0, B0 float64 }{M0: 0, K0: 1, A0: 3, B0: 2}

// NormalInvGamma binds the model normal_invgamma to the fields of a
// posterior's data JSON, N and y:
//
//	σ² ~ InvGamma(a₀, b₀),  μ | σ² ~ N(m₀, σ²/k₀),  yᵢ ~ N(μ, σ²), i = 1…N.
//
// On the constrained parameters (μ, σ²), up to a constant,
//
//	log p = −(a₀ + 1 + (N+1)/2) log σ² − B/σ²,
//	B = b₀ + k₀(μ − m₀)²/2 + Σᵢ (yᵢ − μ)²/2,
//	∂/∂μ  = (Σᵢ (yᵢ − μ) − k₀(μ − m₀)) / σ²,
//	∂/∂σ² = −(a₀ + 1 + (N+1)/2)/σ² + B/σ⁴,
//
// and pkg/constrain adds the log-Jacobian of σ² = eᵘ and carries the
// gradient to the unconstrained point (μ, u). The posterior is again
// normal-inverse-gamma (Exact), which is how the reference draws were made.
func NormalInvGamma(data map[string]json.RawMessage) (*repro.PosteriorModel, error) {
	y, err := readData(data)
	if err != nil {
		return nil, err
	}
	n := float64(len(y))
	var s constrain.Space
	mu := s.Real("mu")
	s2 := s.Lower("sigma2", 0)
	im, is := mu.Offset(), s2.Offset()
	c := Prior
	post := s.Posterior(func(x, grad []float64) float64 {
		m, v := x[im], x[is]
		var sy float64 // Σ (yᵢ − μ)
		b := c.B0 + c.K0*(m-c.M0)*(m-c.M0)/2
		for _, yi := range y {
			r := yi - m
			sy += r
			b += r * r / 2
		}
		a := c.A0 + 1 + (n+1)/2
		grad[im] = (sy - c.K0*(m-c.M0)) / v
		grad[is] = -a/v + b/(v*v)
		return -a*math.Log(v) - b/v
	})
	return &repro.PosteriorModel{
		Name:               ModelName,
		Target:             post,
		Names:              post.Names(),
		Constrain:          post.Constrain,
		Unconstrain:        post.Unconstrain,
		UnconstrainedNames: post.UnconstrainedNames(),
		Init:               post.Init,
	}, nil
}

// readData reads N and y, N ≥ 1 and y of N finite values, naming the key
// at fault.
func readData(data map[string]json.RawMessage) ([]float64, error) {
	var n int
	var y []float64
	for _, f := range []struct {
		key string
		dst any
	}{{"N", &n}, {"y", &y}} {
		raw, ok := data[f.key]
		if !ok {
			return nil, fmt.Errorf("data key %q is missing", f.key)
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return nil, fmt.Errorf("data key %q: %w", f.key, err)
		}
	}
	if n < 1 || len(y) != n {
		return nil, fmt.Errorf("data key %q = %d: want at least 1 and the length of %q (%d)", "N", n, "y", len(y))
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("data key %q: y[%d] = %v is not finite", "y", i+1, v)
		}
	}
	return y, nil
}

// Exact returns the parameters of the exact posterior given y: σ² ~
// InvGamma(a, b), μ | σ² ~ N(m, σ²/k), with
//
//	k = k₀ + N,  m = (k₀m₀ + Nȳ)/k,  a = a₀ + N/2,
//	b = b₀ + Σᵢ (yᵢ − ȳ)²/2 + k₀N(ȳ − m₀)²/(2k).
func Exact(y []float64) (m, k, a, b float64) {
	c := Prior
	n := float64(len(y))
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= n
	var ss float64
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	k = c.K0 + n
	m = (c.K0*c.M0 + n*mean) / k
	a = c.A0 + n/2
	b = c.B0 + ss/2 + c.K0*n*(mean-c.M0)*(mean-c.M0)/(2*k)
	return m, k, a, b
}
