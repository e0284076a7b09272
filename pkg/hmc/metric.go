package hmc

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Metric names the form of the inverse mass matrix (Settings.Metric); the
// empty text is MetricAuto.
type Metric string

// Metric names accepted by Settings.Metric.
const (
	// MetricAuto is MetricDense up to AutoDenseMaxDim dimensions and
	// MetricDiag above.
	MetricAuto Metric = "auto"
	// MetricDiag is the diagonal of the warm-up draws' covariance.
	MetricDiag Metric = "diag"
	// MetricDense is the warm-up draws' covariance.
	MetricDense Metric = "dense"
)

// AutoDenseMaxDim is the largest dimension for which Settings.Metric "auto"
// chooses the dense metric. Above it the d×d warm-up covariance is estimated
// from fewer draws than it has free entries in all but the last slow window,
// and the d² work per leapfrog step starts to matter next to a gradient.
const AutoDenseMaxDim = 200

// euclidean is the Euclidean metric of the kinetic energy ½pᵀM⁻¹p, diagonal
// or dense. All its buffers are allocated once, so that drawing a momentum,
// a leapfrog step and the kinetic energy allocate nothing.
type euclidean struct {
	dense bool
	d     int
	// minv is the diagonal of M⁻¹: the whole metric when diagonal, the
	// marginal variances of the dense one otherwise.
	minv []float64
	// psd holds 1/√minv, the momentum standard deviations of the diagonal
	// metric.
	psd []float64
	// cov is the dense M⁻¹ = Σ and chol its lower Cholesky factor L.
	cov  blas64.General
	chol blas64.Triangular
	// v is scratch for M⁻¹p.
	v []float64
}

// newEuclidean returns the unit metric in d dimensions.
func newEuclidean(d int, dense bool) *euclidean {
	m := &euclidean{dense: dense, d: d, minv: make([]float64, d), psd: make([]float64, d), v: make([]float64, d)}
	for j := range m.minv {
		m.minv[j], m.psd[j] = 1, 1
	}
	if dense {
		m.cov = blas64.General{Rows: d, Cols: d, Stride: d, Data: make([]float64, d*d)}
		m.chol = blas64.Triangular{N: d, Stride: d, Uplo: blas.Lower, Diag: blas.NonUnit, Data: make([]float64, d*d)}
		for j := 0; j < d; j++ {
			m.cov.Data[j*d+j], m.chol.Data[j*d+j] = 1, 1
		}
	}
	return m
}

// draw sets p ~ N(0, M). With M⁻¹ = Σ = LLᵀ, p = L⁻ᵀz has covariance
// L⁻ᵀL⁻¹ = Σ⁻¹ = M.
func (m *euclidean) draw(rng *rand.Rand, p []float64) {
	if !m.dense {
		for j := range p {
			p[j] = m.psd[j] * rng.NormFloat64()
		}
		return
	}
	for j := range p {
		p[j] = rng.NormFloat64()
	}
	blas64.Trsv(blas.Trans, m.chol, blas64.Vector{N: m.d, Inc: 1, Data: p})
}

// drawDense sets p ~ N(0, M) and v = M⁻¹p for the dense metric, with
// M⁻¹ = Σ = LLᵀ and z ~ N(0, I): p = L⁻ᵀz and v = Σp = LLᵀL⁻ᵀz = Lz, two
// triangular products, the cost of one d×d product.
func (m *euclidean) drawDense(rng *rand.Rand, p, v []float64) {
	for j := range p {
		p[j] = rng.NormFloat64()
	}
	copy(v, p)
	blas64.Trmv(blas.NoTrans, m.chol, blas64.Vector{N: m.d, Inc: 1, Data: v})
	blas64.Trsv(blas.Trans, m.chol, blas64.Vector{N: m.d, Inc: 1, Data: p})
}

// mul sets dst = M⁻¹x for the dense metric.
func (m *euclidean) mul(dst, x []float64) {
	blas64.Gemv(blas.NoTrans, 1, m.cov, blas64.Vector{N: m.d, Inc: 1, Data: x}, 0, blas64.Vector{N: m.d, Inc: 1, Data: dst})
}

// velocity returns M⁻¹p, the derivative of the kinetic energy, in m.v.
func (m *euclidean) velocity(p []float64) []float64 {
	if !m.dense {
		for j, pj := range p {
			m.v[j] = m.minv[j] * pj
		}
		return m.v
	}
	blas64.Gemv(blas.NoTrans, 1, m.cov, blas64.Vector{N: m.d, Inc: 1, Data: p}, 0, blas64.Vector{N: m.d, Inc: 1, Data: m.v})
	return m.v
}

// kinetic returns ½pᵀM⁻¹p.
func (m *euclidean) kinetic(p []float64) float64 {
	if !m.dense {
		var k float64
		for j, pj := range p {
			k += m.minv[j] * pj * pj
		}
		return 0.5 * k
	}
	v := m.velocity(p)
	var k float64
	for j, pj := range p {
		k += pj * v[j]
	}
	return 0.5 * k
}

// setDiag makes the metric diagonal with M⁻¹ = diag(minv); a dense metric
// stores it as a diagonal matrix.
func (m *euclidean) setDiag(minv []float64) {
	copy(m.minv, minv)
	for j, v := range minv {
		m.psd[j] = 1 / math.Sqrt(v)
	}
	if m.dense {
		clear(m.cov.Data)
		clear(m.chol.Data)
		for j, v := range minv {
			m.cov.Data[j*m.d+j] = v
			m.chol.Data[j*m.d+j] = math.Sqrt(v)
		}
	}
}

// setDense sets M⁻¹ = cov (d×d row-major, symmetric) and factorises it. It
// reports false, leaving the metric unchanged, when cov is not positive
// definite.
func (m *euclidean) setDense(cov []float64) bool {
	sym := mat.NewSymDense(m.d, append([]float64(nil), cov...))
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return false
	}
	var l mat.TriDense
	ch.LTo(&l)
	raw := l.RawTriangular()
	for i := 0; i < m.d; i++ {
		copy(m.chol.Data[i*m.d:i*m.d+i+1], raw.Data[i*raw.Stride:i*raw.Stride+i+1])
		clear(m.chol.Data[i*m.d+i+1 : (i+1)*m.d])
	}
	copy(m.cov.Data, cov)
	for j := range m.minv {
		m.minv[j] = cov[j*m.d+j]
		m.psd[j] = 1 / math.Sqrt(m.minv[j])
	}
	return true
}

// denseCopy returns M⁻¹ as a symmetric matrix, or nil for a diagonal metric.
func (m *euclidean) denseCopy() *mat.SymDense {
	if !m.dense {
		return nil
	}
	return mat.NewSymDense(m.d, append([]float64(nil), m.cov.Data...))
}

// welford accumulates the mean and the sums of squared deviations of the
// warm-up draws in a slow window: per coordinate (m2 of length d) for the
// diagonal metric, the whole d×d matrix for the dense one.
type welford struct {
	dense bool
	d, n  int
	mean  []float64
	m2    []float64
	delta []float64
	est   []float64 // scratch for the regularised estimate
}

func newWelford(d int, dense bool) welford {
	w := welford{dense: dense, d: d, mean: make([]float64, d), delta: make([]float64, d)}
	if dense {
		w.m2, w.est = make([]float64, d*d), make([]float64, d*d)
	} else {
		w.m2, w.est = make([]float64, d), make([]float64, d)
	}
	return w
}

func (w *welford) add(x []float64) {
	w.n++
	inv := 1 / float64(w.n)
	for j, v := range x {
		w.delta[j] = v - w.mean[j]
		w.mean[j] += w.delta[j] * inv
	}
	if !w.dense {
		for j, v := range x {
			w.m2[j] += w.delta[j] * (v - w.mean[j])
		}
		return
	}
	// m2 += (x − mean′)δᵀ = (1 − 1/n)δδᵀ, symmetric.
	f := 1 - inv
	for i := 0; i < w.d; i++ {
		a := f * w.delta[i]
		row := w.m2[i*w.d : (i+1)*w.d]
		for j, dj := range w.delta {
			row[j] += a * dj
		}
	}
}

func (w *welford) restart() {
	w.n = 0
	clear(w.mean)
	clear(w.m2)
}

// update writes Stan's regularised estimate (n/(n+5))Σ̂ + 10⁻³·(5/(n+5))I
// of the window's draws into m. A dense estimate that is not positive
// definite (it cannot be, with the ridge, short of rounding) falls back to
// its diagonal.
func (w *welford) update(m *euclidean) {
	n := float64(w.n)
	a, b := n/(n+5)/(n-1), 1e-3*5/(n+5)
	for k, v := range w.m2 {
		w.est[k] = a * v
	}
	if !w.dense {
		for j := range w.est {
			w.est[j] += b
		}
		m.setDiag(w.est)
		return
	}
	for j := 0; j < w.d; j++ {
		w.est[j*w.d+j] += b
	}
	if !m.setDense(w.est) {
		diag := make([]float64, w.d)
		for j := range diag {
			diag[j] = w.est[j*w.d+j]
		}
		m.setDiag(diag)
	}
}
