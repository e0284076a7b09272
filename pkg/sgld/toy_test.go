package sgld

import (
	"math"
	"math/rand/v2"
)

// gaussMean is the Gaussian mean model: datapoints yₙ ~ N(θ, σ² I) in d
// dimensions and prior θ ~ N(μ₀, τ² I). Its posterior is N(m, P⁻¹ I) with
// P = 1/τ² + N/σ² and m = (μ₀/τ² + Σₙ yₙ/σ²)/P.
type gaussMean struct {
	d, n   int
	y      []float64 // n×d, row-major
	s2, t2 float64
	mu0    []float64
}

// newGaussMean draws n datapoints around theta.
func newGaussMean(n int, theta, mu0 []float64, s2, t2 float64, seed uint64) *gaussMean {
	d := len(theta)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	y := make([]float64, n*d)
	for i := range n {
		for j := range d {
			y[i*d+j] = theta[j] + math.Sqrt(s2)*rng.NormFloat64()
		}
	}
	return &gaussMean{d: d, n: n, y: y, s2: s2, t2: t2, mu0: mu0}
}

func (m *gaussMean) Dim() int   { return m.d }
func (m *gaussMean) NData() int { return m.n }

func (m *gaussMean) LogProbGrad(x, grad []float64) float64 {
	lp := m.prior(x, grad)
	for i := range m.n {
		lp += m.lik(x, grad, i, 1)
	}
	return lp
}

func (m *gaussMean) MinibatchLogProbGrad(x, grad []float64, batch []int) float64 {
	lp := m.prior(x, grad)
	scale := float64(m.n) / float64(len(batch))
	for _, i := range batch {
		lp += m.lik(x, grad, i, scale)
	}
	return lp
}

func (m *gaussMean) prior(x, grad []float64) float64 {
	var lp float64
	for j, v := range x {
		dx := v - m.mu0[j]
		grad[j] = -dx / m.t2
		lp -= dx * dx / (2 * m.t2)
	}
	return lp
}

// lik adds scale·∇log L(yᵢ | x) to grad and returns scale·log L(yᵢ | x).
func (m *gaussMean) lik(x, grad []float64, i int, scale float64) float64 {
	var lp float64
	for j, v := range x {
		r := m.y[i*m.d+j] - v
		grad[j] += scale * r / m.s2
		lp -= scale * r * r / (2 * m.s2)
	}
	return lp
}

// posterior returns the posterior precision P (per coordinate) and mean.
func (m *gaussMean) posterior() (prec float64, mean []float64) {
	prec = 1/m.t2 + float64(m.n)/m.s2
	mean = make([]float64, m.d)
	for j := range mean {
		s := m.mu0[j] / m.t2
		for i := range m.n {
			s += m.y[i*m.d+j] / m.s2
		}
		mean[j] = s / prec
	}
	return prec, mean
}

// dataVar returns the sample variance S² (divisor N−1) of coordinate j.
func (m *gaussMean) dataVar(j int) float64 {
	var s, ss float64
	for i := range m.n {
		s += m.y[i*m.d+j]
	}
	mu := s / float64(m.n)
	for i := range m.n {
		r := m.y[i*m.d+j] - mu
		ss += r * r
	}
	return ss / float64(m.n-1)
}
