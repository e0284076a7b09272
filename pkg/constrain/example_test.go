package constrain_test

import (
	"fmt"
	"math"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

// Normal observations with unknown mean μ and scale σ > 0 under flat
// priors, written in the constrained space; the Posterior is the target on
// (μ, log σ) with the log-Jacobian log σ added.
func ExampleSpace() {
	y := []float64{1.2, 0.8, 1.5, 0.9}
	var s constrain.Space
	mu := s.Real("mu")
	sigma := s.Lower("sigma", 0)
	post := s.Posterior(func(x, grad []float64) float64 {
		m, sd := mu.Value(x), sigma.Value(x)
		var lp float64
		for _, v := range y {
			r := (v - m) / sd
			lp += -math.Log(sd) - r*r/2
			grad[mu.Offset()] += r / sd
			grad[sigma.Offset()] += (r*r - 1) / sd
		}
		return lp
	})

	u := []float64{1, math.Log(0.5)} // μ = 1, σ = 0.5
	g := make([]float64, post.Dim())
	lp := post.LogProbGrad(u, g)
	fmt.Println(post.Names(), post.Constrain(nil, u))
	fmt.Printf("log p = %.4f, gradient (%.4f, %.4f)\n", lp, g[0], g[1])
	back, _ := post.Unconstrain(nil, []float64{1, 0.5})
	fmt.Printf("unconstrained (%.4f, %.4f)\n", back[0], back[1])
	// Output:
	// [mu sigma] [1 0.5]
	// log p = 1.3994, gradient (1.6000, -1.6400)
	// unconstrained (1.0000, -0.6931)
}

// A bound that depends on another parameter, as in a GARCH(1,1) model's
// α₁ ∈ (0, 1), β₁ ∈ (0, 1 − α₁), and a simplex under Stan's stick-breaking.
func ExampleAffine() {
	var s constrain.Space
	alpha1 := s.Interval("alpha1", 0, 1)
	s.Bounded("beta1", constrain.Const(0), constrain.Affine(1, -1, alpha1))
	s.Simplex("w", 3)
	post := s.Posterior(func(x, grad []float64) float64 { return 0 })

	u := []float64{0, 0, 0, 0} // the centre of every interval and of the simplex
	fmt.Println(post.Names())
	fmt.Printf("%.4f\n", post.Constrain(nil, u))
	fmt.Printf("log-Jacobian %.4f = log(1/4) + log(1/8) + log(2/9) + log(1/6)\n", post.LogProbGrad(u, make([]float64, 4)))
	_, err := post.Unconstrain(nil, []float64{0.7, 0.4, 0.2, 0.3, 0.5})
	fmt.Println(err)
	// Output:
	// [alpha1 beta1 w[1] w[2] w[3]]
	// [0.5000 0.2500 0.3333 0.3333 0.3333]
	// log-Jacobian -6.7616 = log(1/4) + log(1/8) + log(2/9) + log(1/6)
	// constrain: beta1 = 0.4 is outside its support (0, 1 − alpha1 = 0.3)
}
