package logpdf_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/constrain"
	"github.com/mmdfw/mmdfw/pkg/logpdf"
)

// The log density of N(1, 2²) at 2 and its derivatives with respect to the
// variate, the mean and the standard deviation.
func ExampleNormal() {
	lp, dx, dmu, dsigma := logpdf.Normal(2, 1, 2)
	fmt.Printf("log p = %.4f, ∂/∂x = %.3f, ∂/∂μ = %.3f, ∂/∂σ = %.4f\n", lp, dx, dmu, dsigma)
	// Outside the support: −Inf and zero derivatives.
	fmt.Println(logpdf.Gamma(-1, 2, 1))
	// Output:
	// log p = -1.7371, ∂/∂x = -0.250, ∂/∂μ = 0.250, ∂/∂σ = -0.3750
	// -Inf 0 0 0
}

// A posterior of one's own on named, constrained parameters, its log
// density built from this package's densities: yᵢ ~ N(μ, σ), μ ~ N(0, 10),
// σ ~ LogNormal(0, 1). pkg/constrain adds the log-Jacobian of σ = eᵘ and
// carries the gradient back to the unconstrained (μ, log σ), the target
// every method takes.
func Example_posterior() {
	y := []float64{2.1, 1.3, 3.8, 2.9, 2.2}
	var s constrain.Space
	im, is := s.Real("mu").Offset(), s.Lower("sigma", 0).Offset()
	post := s.Posterior(func(x, grad []float64) float64 {
		m, sd := x[im], x[is]
		lp, gm, _, _ := logpdf.Normal(m, 0, 10)   // μ ~ N(0, 10)
		l, gs, _, _ := logpdf.LogNormal(sd, 0, 1) // σ ~ LogNormal(0, 1)
		lp += l
		for _, v := range y { // yᵢ ~ N(μ, σ)
			l, _, dm, ds := logpdf.Normal(v, m, sd)
			lp, gm, gs = lp+l, gm+dm, gs+ds
		}
		grad[im], grad[is] = gm, gs
		return lp
	})

	u := []float64{2.5, 0} // μ = 2.5, σ = e⁰ = 1
	g := make([]float64, post.Dim())
	fmt.Printf("log p = %.4f, gradient %.4f\n", post.LogProbGrad(u, g), g)
	// Output:
	// log p = -10.5364, gradient [-0.2250 -1.4600]
}

// log N(x | μ, LLᵀ) through the Cholesky factor, with its gradients.
func ExampleMultiNormalCholesky() {
	L := mat.NewTriDense(2, mat.Lower, []float64{
		2, 0,
		1, 1,
	})
	x, mu := []float64{1, 2}, []float64{0, 0}
	dx, dmu := make([]float64, 2), make([]float64, 2)
	var dL mat.TriDense
	lp := logpdf.MultiNormalCholesky(dx, dmu, &dL, x, mu, L, make([]float64, 4))
	fmt.Printf("log p = %.4f, ∂/∂x = %.2f, ∂/∂μ = %.2f\n", lp, dx, dmu)
	fmt.Printf("∂/∂L = %.3f\n", mat.Formatted(&dL, mat.Prefix("       ")))
	// Output:
	// log p = -3.7810, ∂/∂x = [0.50 -1.50], ∂/∂μ = [-0.50 1.50]
	// ∂/∂L = ⎡-0.750   0.000⎤
	//        ⎣ 0.750   1.250⎦
}

// A Gaussian process regression's marginal likelihood and its gradient in
// the hyperparameters (α, ρ, σ), with the covariance formed by SqExpCov
// (any covariance and its derivatives go to GPLogMarginal) or without
// allocating by SqExpGP.
func ExampleGPLogMarginal() {
	x := mat.NewDense(4, 1, []float64{0, 0.5, 1.5, 3})
	y := []float64{0.2, 0.6, 1.1, -0.3}
	alpha, rho, sigma := 1.0, 0.8, 0.3

	var K, dA, dR, dS mat.SymDense
	logpdf.SqExpCov(&K, &dA, &dR, &dS, x, alpha, rho, sigma)
	grad := make([]float64, 3)
	lp := logpdf.GPLogMarginal(grad, y, &K, &dA, &dR, &dS)
	fmt.Printf("log p = %.4f, gradient %.4f\n", lp, grad)

	gp := logpdf.NewSqExpGP(x)
	lp, ga, gr, gs := gp.LogMarginal(y, alpha, rho, sigma)
	fmt.Printf("log p = %.4f, gradient [%.4f %.4f %.4f]\n", lp, ga, gr, gs)
	// Output:
	// log p = -3.9513, gradient [-2.1173 1.0846 -1.7808]
	// log p = -3.9513, gradient [-2.1173 1.0846 -1.7808]
}
