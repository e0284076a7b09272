package pdbmodel

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

// prior is a univariate prior, its log density kept up to a constant.
type prior struct {
	kind           priorKind
	nu, loc, scale float64
}

type priorKind int

const (
	flatPrior priorKind = iota
	normalPrior
	studentPrior
)

// flat is the improper uniform prior of a parameter the Stan program gives
// no distribution.
func flat() prior { return prior{} }

// normal is N(loc, scale²): log p = −½((x − loc)/scale)².
func normal(loc, scale float64) prior { return prior{kind: normalPrior, loc: loc, scale: scale} }

// studentT is Student's t with ν degrees of freedom:
// log p = −((ν + 1)/2) log(1 + ((x − loc)/scale)²/ν).
func studentT(nu, loc, scale float64) prior {
	return prior{kind: studentPrior, nu: nu, loc: loc, scale: scale}
}

// cauchy is Cauchy(loc, scale), Student's t with one degree of freedom.
func cauchy(loc, scale float64) prior { return studentT(1, loc, scale) }

// logp returns log p(x) up to a constant and its derivative.
func (p prior) logp(x float64) (lp, d float64) {
	switch p.kind {
	case normalPrior:
		z := (x - p.loc) / p.scale
		return -0.5 * z * z, -z / p.scale
	case studentPrior:
		z := (x - p.loc) / p.scale
		q := 1 + z*z/p.nu
		return -0.5 * (p.nu + 1) * math.Log(q), -(p.nu + 1) * z / (p.nu * q * p.scale)
	}
	return 0, 0
}

// coef is a block of regression coefficients: a parameter named name,
// scalar when size is 0, each element with the prior p and a design column
// of its own.
type coef struct {
	name string
	size int
	p    prior
}

// linearRegression is the normal linear regression
//
//	yᵢ ~ N(xᵢᵀβ, σ²),  i = 1, …, n,   βⱼ ~ pⱼ,  σ ~ p_σ on (0, ∞),
//
// with X the n×p design (row-major) whose columns the coefficient blocks
// take in order, β = (blocks…) and σ declared after them, as sigmaName:
//
//	log p = Σⱼ log pⱼ(βⱼ) + log p_σ(σ) − n log σ − S(β)/(2σ²),  S(β) = ‖y − Xβ‖²,
//	∂/∂β = Xᵀ(y − Xβ)/σ² + ∂log p(β),
//	∂/∂σ = −n/σ + S(β)/σ³ + ∂log p_σ(σ).
//
// The data enter through their QR decomposition, computed once: with
// X = QR (Q orthogonal n×n, R upper trapezoidal, its first k = min(n, p)
// rows R₁) and Qᵀy = (z, z₀), z of length k,
//
//	S(β) = ‖z − R₁β‖² + ‖z₀‖²,   Xᵀ(y − Xβ) = R₁ᵀ(z − R₁β),
//
// exact identities (Q preserves norms) that hold whatever the rank of X,
// free of the cancellation of the normal equations, and that cost O(p²)
// per evaluation instead of O(np). Without likelihood (brms's prior_only)
// S and n are left out.
func linearRegression(name string, y, X []float64, coefs []coef, sigmaName string, sigmaPrior prior, likelihood bool) *Model {
	var s constrain.Space
	var priors []prior
	for _, c := range coefs {
		if c.size == 0 {
			s.Real(c.name)
			priors = append(priors, c.p)
			continue
		}
		s.Real(c.name, c.size)
		for j := 0; j < c.size; j++ {
			priors = append(priors, c.p)
		}
	}
	s.Lower(sigmaName, 0)
	p := len(priors)
	n := len(y)
	if len(X) != n*p {
		panic("pdbmodel: design and response sizes do not match")
	}
	if !likelihood {
		n = 0
	}
	R, z, s0 := reduceQR(y[:n], X[:n*p], n, p)
	k := len(z)
	post := s.Posterior(func(x, grad []float64) float64 {
		beta, sd := x[:p], x[p]
		gb := grad[:p]
		var lp float64
		if n > 0 {
			ss := s0
			for i := 0; i < k; i++ {
				row := R[i*p : i*p+p : i*p+p]
				w := z[i]
				for j := i; j < p; j++ {
					w -= row[j] * beta[j]
				}
				ss += w * w
				for j := i; j < p; j++ {
					gb[j] += w * row[j]
				}
			}
			iv := 1 / (sd * sd)
			for j := range gb {
				gb[j] *= iv
			}
			lp = -float64(n)*math.Log(sd) - 0.5*ss*iv
			grad[p] = -float64(n)/sd + ss*iv/sd
		}
		for j, pr := range priors {
			l, d := pr.logp(beta[j])
			lp += l
			gb[j] += d
		}
		l, d := sigmaPrior.logp(sd)
		grad[p] += d
		return lp + l
	})
	return fromPosterior(name, post)
}

// reduceQR returns, for X = QR (n×p, row-major), the first k = min(n, p)
// rows of R (k×p, row-major, zero below the diagonal), z, the first k
// entries of Qᵀy, and ‖z₀‖², the squared norm of the others.
func reduceQR(y, X []float64, n, p int) (R, z []float64, s0 float64) {
	k := min(n, p)
	if k == 0 {
		return nil, nil, 0
	}
	a := blas64.General{Rows: n, Cols: p, Stride: p, Data: append([]float64(nil), X...)}
	tau := make([]float64, k)
	work := make([]float64, 1)
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, max(int(work[0]), n))
	lapack64.Geqrf(a, tau, work, len(work))

	c := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: append([]float64(nil), y...)}
	refl := blas64.General{Rows: n, Cols: k, Stride: p, Data: a.Data}
	lapack64.Ormqr(blas.Left, blas.Trans, refl, tau, c, work[:1], -1)
	work = make([]float64, max(int(work[0]), 1))
	lapack64.Ormqr(blas.Left, blas.Trans, refl, tau, c, work, len(work))

	R = make([]float64, k*p)
	for i := 0; i < k; i++ {
		copy(R[i*p+i:i*p+p], a.Data[i*p+i:i*p+p])
	}
	for _, v := range c.Data[k:] {
		s0 += v * v
	}
	return R, c.Data[:k:k], s0
}

// columns returns the n×p row-major design whose columns are cols (each of
// length n).
func columns(n int, cols ...[]float64) []float64 {
	X := make([]float64, n*len(cols))
	for j, c := range cols {
		for i, v := range c {
			X[i*len(cols)+j] = v
		}
	}
	return X
}

// ones returns n ones, an intercept's column.
func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
