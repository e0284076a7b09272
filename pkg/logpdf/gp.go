package logpdf

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// SqExpCov writes the squared-exponential covariance of the points x (the
// rows of an n×d matrix) with a noise or jitter term into K (Stan's
// cov_exp_quad(x, α, ρ) plus σ² on the diagonal), and its derivatives with
// respect to the hyperparameters into dAlpha, dRho and dSigma:
//
//	K₀ᵢⱼ = α² exp(−‖xᵢ − xⱼ‖²/(2ρ²)),  Kᵢⱼ = K₀ᵢⱼ + σ²δᵢⱼ,
//	∂K/∂α = 2K₀/α,  ∂K/∂ρ = K₀ ∘ D/ρ³ (Dᵢⱼ = ‖xᵢ − xⱼ‖²),  ∂K/∂σ = 2σI.
//
// Each destination may be nil (not formed) or empty (sized to n×n);
// otherwise it must be n×n. SqExpCov panics if α or ρ is not positive and
// finite, or σ is negative, NaN or infinite (σ = 0 is no noise).
func SqExpCov(K, dAlpha, dRho, dSigma *mat.SymDense, x mat.Matrix, alpha, rho, sigma float64) {
	checkScale("SqExpCov", "alpha", alpha)
	checkScale("SqExpCov", "rho", rho)
	checkNoise("SqExpCov", sigma)
	n, d := x.Dims()
	dsts := [...]*mat.SymDense{K, dAlpha, dRho, dSigma}
	for _, s := range dsts {
		if s == nil {
			continue
		}
		if s.IsEmpty() {
			s.ReuseAsSym(n)
		}
		if m := s.SymmetricDim(); m != n {
			panic(fmt.Sprintf("logpdf: SqExpCov: a destination is %d×%d, want %d×%d", m, m, n, n))
		}
	}
	a2, ir2 := alpha*alpha, 1/(rho*rho)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var d2 float64
			for k := 0; k < d; k++ {
				v := x.At(i, k) - x.At(j, k)
				d2 += v * v
			}
			k0 := a2 * math.Exp(-0.5*d2*ir2)
			if K != nil {
				v := k0
				if i == j {
					v += sigma * sigma
				}
				K.SetSym(i, j, v)
			}
			if dAlpha != nil {
				dAlpha.SetSym(i, j, 2*k0/alpha)
			}
			if dRho != nil {
				dRho.SetSym(i, j, k0*d2*ir2/rho)
			}
			if dSigma != nil {
				v := 0.0
				if i == j {
					v = 2 * sigma
				}
				dSigma.SetSym(i, j, v)
			}
		}
	}
}

// GPLogMarginal returns the log density of the zero-mean normal N(0, K) at
// y, a Gaussian process's marginal likelihood with K the covariance of its
// inputs, and writes into dst[k] its derivative with respect to a
// hyperparameter θₖ whose ∂K/∂θₖ is dK[k]:
//
//	a = K⁻¹y,
//	log p = −½yᵀa − ½ log det K − (n/2) log 2π,
//	∂log p/∂θₖ = ½ tr((aaᵀ − K⁻¹) ∂K/∂θₖ) = ½aᵀ(∂K/∂θₖ)a − ½ Σᵢⱼ K⁻¹ᵢⱼ (∂K/∂θₖ)ᵢⱼ,
//
// through the Cholesky factorisation of K (gonum's mat.Cholesky). When K is
// not numerically positive definite (the factorisation fails), y lies
// outside the support as far as floating point can tell: it returns −Inf and
// zeroes dst. dst must have len(dK) entries (it may be nil when dK is
// empty). It allocates; SqExpGP is the allocation-free form for the
// squared-exponential covariance.
func GPLogMarginal(dst, y []float64, K mat.Symmetric, dK ...mat.Symmetric) float64 {
	n := K.SymmetricDim()
	if len(y) != n {
		panic(fmt.Sprintf("logpdf: GPLogMarginal: len(y) = %d, want %d", len(y), n))
	}
	if len(dst) != len(dK) {
		panic(fmt.Sprintf("logpdf: GPLogMarginal: len(dst) = %d, want len(dK) = %d", len(dst), len(dK)))
	}
	for k, D := range dK {
		if m := D.SymmetricDim(); m != n {
			panic(fmt.Sprintf("logpdf: GPLogMarginal: dK[%d] is %d×%d, want %d×%d", k, m, m, n, n))
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(K) {
		clear(dst)
		return math.Inf(-1)
	}
	var a mat.VecDense
	yv := mat.NewVecDense(n, y)
	_ = chol.SolveVecTo(&a, yv) // the error is gonum's condition warning only
	lp := -0.5*mat.Dot(&a, yv) - 0.5*chol.LogDet() - float64(n)*halfLog2Pi
	if len(dK) == 0 {
		return lp
	}
	var inv mat.SymDense
	_ = chol.InverseTo(&inv) // the error is gonum's condition warning only
	for k, D := range dK {
		var s float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s += (a.AtVec(i)*a.AtVec(j) - inv.At(i, j)) * D.At(i, j)
			}
		}
		dst[k] = 0.5 * s
	}
	return lp
}

// SqExpGP is the marginal likelihood of a zero-mean Gaussian process with
// the squared-exponential covariance of SqExpCov on fixed inputs, with
// workspace kept between calls so that LogMarginal allocates nothing (it
// factors K in place with gonum's lapack64, the layer under mat.Cholesky).
// A SqExpGP must not be used by two goroutines at once.
type SqExpGP struct {
	n  int
	d2 []float64 // ‖xᵢ − xⱼ‖², n×n row-major
	k0 []float64 // α² exp(−d2/(2ρ²)) of the last call
	k  []float64 // K, then its Cholesky factor U (upper), then K⁻¹ (upper)
	a  []float64 // K⁻¹y
}

// NewSqExpGP returns the Gaussian process on the inputs x (the rows of an
// n×d matrix), their squared distances computed once.
func NewSqExpGP(x mat.Matrix) *SqExpGP {
	n, d := x.Dims()
	g := &SqExpGP{n: n, d2: make([]float64, n*n), k0: make([]float64, n*n), k: make([]float64, n*n), a: make([]float64, n)}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			var s float64
			for k := 0; k < d; k++ {
				v := x.At(i, k) - x.At(j, k)
				s += v * v
			}
			g.d2[i*n+j], g.d2[j*n+i] = s, s
		}
	}
	return g
}

// LogMarginal returns log N(y | 0, K), K = SqExpCov(x, α, ρ, σ), and its
// derivatives with respect to α, ρ and σ, the formula of GPLogMarginal
// with the derivatives of SqExpCov:
//
//	∂/∂α = (1/α) Σᵢⱼ Mᵢⱼ K₀ᵢⱼ,  ∂/∂ρ = (1/(2ρ³)) Σᵢⱼ Mᵢⱼ K₀ᵢⱼ Dᵢⱼ,  ∂/∂σ = σ tr M,
//
// M = aaᵀ − K⁻¹. When K is not numerically positive definite it returns
// −Inf and zero derivatives. It panics if len(y) is not the number of
// inputs or a hyperparameter is out of its domain (as SqExpCov).
func (g *SqExpGP) LogMarginal(y []float64, alpha, rho, sigma float64) (lp, dalpha, drho, dsigma float64) {
	checkScale("SqExpGP", "alpha", alpha)
	checkScale("SqExpGP", "rho", rho)
	checkNoise("SqExpGP", sigma)
	n := g.n
	if len(y) != n {
		panic(fmt.Sprintf("logpdf: SqExpGP: len(y) = %d, want %d", len(y), n))
	}
	if n == 0 {
		return 0, 0, 0, 0
	}
	a2, h := alpha*alpha, -0.5/(rho*rho)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			k0 := a2 * math.Exp(h*g.d2[i*n+j])
			g.k0[i*n+j], g.k0[j*n+i] = k0, k0
			if i == j {
				k0 += sigma * sigma
			}
			g.k[i*n+j] = k0
		}
	}
	u, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: g.k, Uplo: blas.Upper})
	if !ok {
		return math.Inf(-1), 0, 0, 0
	}
	var logDet float64
	for i := 0; i < n; i++ {
		logDet += math.Log(g.k[i*n+i])
	}
	copy(g.a, y)
	lapack64.Potrs(u, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: g.a})
	var ya float64
	for i, v := range y {
		ya += v * g.a[i]
	}
	lp = -0.5*ya - logDet - float64(n)*halfLog2Pi
	if _, ok := lapack64.Potri(u); !ok {
		return math.Inf(-1), 0, 0, 0
	}
	var sa, sr, tr float64
	for i := 0; i < n; i++ {
		// Diagonal once, each pair above it twice (M and K₀ are symmetric).
		m := g.a[i]*g.a[i] - g.k[i*n+i]
		sa += m * g.k0[i*n+i]
		tr += m
		for j := i + 1; j < n; j++ {
			mk := 2 * (g.a[i]*g.a[j] - g.k[i*n+j]) * g.k0[i*n+j]
			sa += mk
			sr += mk * g.d2[i*n+j]
		}
	}
	return lp, sa / alpha, 0.5 * sr / (rho * rho * rho), sigma * tr
}

// checkNoise panics unless the noise scale σ of fn is non-negative and
// finite.
func checkNoise(fn string, sigma float64) {
	if !(sigma >= 0) || math.IsInf(sigma, 1) {
		panic(fmt.Sprintf("logpdf: %s: sigma = %v, want a non-negative finite number", fn, sigma))
	}
}
