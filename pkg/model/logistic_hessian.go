package model

import (
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// lrHessScratch is the per-call state of a full-data Hessian. As for the
// gradient, the rows are cut into chunks of lrMinRows rows that the workers
// take in turn; each chunk writes its own partial XcᵀDcXc (p×p, the
// product (D^½Xc)ᵀ(D^½Xc) by gonum's Dgemm on the worker's goroutine, which
// measured twice as fast as its Dsyrk) and the partials are added in chunk order, so the result depends
// neither on Workers nor on the timing. Each worker owns one buffer of
// scaled rows √dᵢ xᵢ.
type lrHessScratch struct {
	m       *Logistic
	w       []float64
	next    atomic.Int64
	nchunks int
	parts   []float64 // nchunks × p×p
	rows    []float64 // workers × lrMinRows×p
	workers int
	wg      sync.WaitGroup
}

func (s *lrHessScratch) run(k int) {
	m := s.m
	p := m.p
	buf := s.rows[k*lrMinRows*p : (k+1)*lrMinRows*p]
	for {
		c := int(s.next.Add(1)) - 1
		if c >= s.nchunks {
			return
		}
		lo, hi := c*lrMinRows, min((c+1)*lrMinRows, m.n)
		for i := lo; i < hi; i++ {
			row := m.x.Data[i*m.x.Stride : i*m.x.Stride+p]
			var u float64
			for j, v := range row {
				u += v * s.w[j]
			}
			// σ(u)σ(−u) = e/(1+e)², e = exp(−|u|): no overflow.
			e := math.Exp(-math.Abs(u))
			r := math.Sqrt(e) / (1 + e)
			dst := buf[(i-lo)*p : (i-lo+1)*p]
			for j, v := range row {
				dst[j] = r * v
			}
		}
		A := blas64.General{Rows: hi - lo, Cols: p, Stride: p, Data: buf}
		C := blas64.General{Rows: p, Cols: p, Stride: p, Data: s.parts[c*p*p : (c+1)*p*p]}
		gemmSerial(blas.Trans, blas.NoTrans, 1, A, A, 0, C)
	}
}

func (m *Logistic) getHessScratch(workers int) *lrHessScratch {
	s, _ := m.hessScratch.Get().(*lrHessScratch)
	if s == nil {
		s = &lrHessScratch{m: m}
		s.nchunks = max(1, (m.n+lrMinRows-1)/lrMinRows)
		s.parts = make([]float64, s.nchunks*m.p*m.p)
	}
	if need := workers * lrMinRows * m.p; len(s.rows) < need {
		s.rows = make([]float64, need)
	}
	s.workers = workers
	s.next.Store(0)
	return s
}

// LogProbHessian writes the Hessian ∇²log p(θ) of the log density of
// LogProbGrad into dst, exactly (see the package documentation for the
// density). With uₙ = wᵀxₙ, dₙ = σ(uₙ)σ(−uₙ) and α = eˢ,
//
//	∂²/∂w∂wᵀ = −Σₙ dₙ xₙxₙᵀ − α I = −XᵀDX − α I
//	∂²/∂w∂s  = −α w
//	∂²/∂s²   = −α (‖w‖²/2 + b₀)
//
// The labels drop out (dₙ is even in uₙ). XᵀDX is the sum over chunks of
// rows, taken in turn by Workers goroutines, of one matrix product each,
// added in chunk order: the result does not depend on Workers.
// An empty dst is resized to Dim×Dim; otherwise its dimension must be Dim.
// It allocates nothing in steady state. The arithmetic is p multiply-adds
// per entry of X (a gradient needs two), in one read of X.
func (m *Logistic) LogProbHessian(dst *mat.SymDense, x []float64) {
	d := m.p + 1
	if len(x) != d {
		panic("model: dimension mismatch")
	}
	if dst.IsEmpty() {
		dst.ReuseAsSym(d)
	} else if dst.SymmetricDim() != d {
		panic("model: Hessian destination dimension mismatch")
	}
	p := m.p
	w := x[:p]
	alpha := math.Exp(x[p])
	nch := max(1, (m.n+lrMinRows-1)/lrMinRows)
	workers := min(workerCount(m.Workers, m.n, lrMinRows), nch)
	s := m.getHessScratch(workers)
	s.w = w
	if m.n > 0 {
		parallel(workers, s, &s.wg)
	}
	raw := dst.RawSymmetric()
	var ww float64
	for i := 0; i < p; i++ {
		ww += w[i] * w[i]
		out := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j := i; j < p; j++ {
			var v float64
			if m.n > 0 {
				for c := 0; c < s.nchunks; c++ {
					v += s.parts[c*p*p+i*p+j]
				}
			}
			out[j] = -v
		}
		out[i] -= alpha
		out[p] = -alpha * w[i]
	}
	raw.Data[p*raw.Stride+p] = -alpha * (ww/2 + m.B0)
	s.w = nil
	m.hessScratch.Put(s)
}
