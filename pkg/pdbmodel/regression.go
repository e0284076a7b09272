package pdbmodel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/mmdfw/mmdfw/pkg/constrain"
)

// Prior is a univariate prior of a regression coefficient or scale, its
// log density kept up to an additive constant (the normalising constants
// pkg/logpdf keeps are dropped, as Stan's ~ statements drop them). The zero
// Prior is Flat.
type Prior struct {
	kind           priorKind
	nu, loc, scale float64
}

type priorKind int

const (
	flatPrior priorKind = iota
	normalPrior
	studentPrior
)

// Flat is the improper uniform prior of a parameter the Stan program gives
// no distribution: log p = 0.
func Flat() Prior { return Prior{} }

// Normal is N(loc, scale²): log p = −½((x − loc)/scale)². It panics if
// scale is not positive and finite.
func Normal(loc, scale float64) Prior {
	checkPrior("Normal", "scale", scale)
	return Prior{kind: normalPrior, loc: loc, scale: scale}
}

// StudentT is Student's t with ν degrees of freedom:
// log p = −((ν + 1)/2) log(1 + ((x − loc)/scale)²/ν). It panics if ν or
// scale is not positive and finite.
func StudentT(nu, loc, scale float64) Prior {
	checkPrior("StudentT", "nu", nu)
	checkPrior("StudentT", "scale", scale)
	return Prior{kind: studentPrior, nu: nu, loc: loc, scale: scale}
}

// Cauchy is Cauchy(loc, scale), Student's t with one degree of freedom. It
// panics if scale is not positive and finite.
func Cauchy(loc, scale float64) Prior { return StudentT(1, loc, scale) }

func checkPrior(prior, name string, v float64) {
	if !(v > 0) || math.IsInf(v, 1) {
		panic(fmt.Sprintf("pdbmodel: %s prior: %s = %v, want a positive finite number", prior, name, v))
	}
}

// LogP returns log p(x) up to a constant and its derivative in x.
func (p Prior) LogP(x float64) (lp, d float64) {
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

// Coef is a block of regression coefficients: a parameter named Name,
// scalar when Size is 0, else a vector of Size elements, each with the
// prior Prior and a design column of its own.
type Coef struct {
	Name  string
	Size  int
	Prior Prior
}

// LinearRegression returns the Model, called name, of the normal linear
// regression
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
//
// The parameters are declared in the order of coefs, then sigmaName on
// (0, ∞) (a constrain.Space with its log-Jacobian), so that the model's
// names are those of a Stan program declaring them in that order.
// LinearRegression panics if len(X) is not len(y) times the number of
// coefficients.
func LinearRegression(name string, y, X []float64, coefs []Coef, sigmaName string, sigmaPrior Prior, likelihood bool) *Model {
	var s constrain.Space
	var priors []Prior
	for _, c := range coefs {
		if c.Size == 0 {
			s.Real(c.Name)
			priors = append(priors, c.Prior)
			continue
		}
		s.Real(c.Name, c.Size)
		for j := 0; j < c.Size; j++ {
			priors = append(priors, c.Prior)
		}
	}
	s.Lower(sigmaName, 0)
	p := len(priors)
	n := len(y)
	if len(X) != n*p {
		panic(fmt.Sprintf("pdbmodel: LinearRegression %s: the design has %d entries, want %d responses × %d coefficients", name, len(X), n, p))
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
			l, d := pr.LogP(beta[j])
			lp += l
			gb[j] += d
		}
		l, d := sigmaPrior.LogP(sd)
		grad[p] += d
		return lp + l
	})
	return FromPosterior(name, post)
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

// Columns returns the n×p row-major design whose columns are cols (each of
// length n), as LinearRegression takes it.
func Columns(n int, cols ...[]float64) []float64 {
	X := make([]float64, n*len(cols))
	for j, c := range cols {
		for i, v := range c {
			X[i*len(cols)+j] = v
		}
	}
	return X
}

// Ones returns n ones, an intercept's column.
func Ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
