package model

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mmdfw/mmdfw/pkg/dense"
	"github.com/mmdfw/mmdfw/pkg/par"
)

// lrMinRows is the smallest row block worth a goroutine of its own, and the
// chunk of rows that the workers of a full-data pass take in turn.
const lrMinRows = 2048

// Logistic is the posterior of Bayesian logistic regression with a Gamma
// hyperprior on the prior precision of the coefficients (see the package
// documentation for the density). θ = [w₁ … w_p, log α], Dim = p+1.
//
// A Logistic is safe for concurrent use once its settings are fixed.
type Logistic struct {
	// A0 and B0 are the shape and rate of the Gamma prior of α.
	// NewLogistic sets them to 1 and 0.01.
	A0, B0 float64
	// Workers is the number of goroutines of a full-data gradient; zero
	// or negative means runtime.GOMAXPROCS(0). Set it before use.
	Workers int

	x    blas64.General
	y    []float64
	n, p int

	scratch     sync.Pool                      // *lrScratch
	hessScratch sync.Pool                      // *lrHessScratch
	mbScratch   atomic.Pointer[lrBatchScratch] // kept across garbage collections
	fullScratch atomic.Pointer[lrFullScratch]
}

// NewLogistic returns the posterior for features X (N×p; a bias column of
// ones, if wanted, is the caller's) and labels y ∈ {−1, +1}. The model keeps
// references to X and y, which must not change while it is in use.
func NewLogistic(X *mat.Dense, y []float64) *Logistic {
	n, p := X.Dims()
	if len(y) != n {
		panic("model: length of y does not match the rows of X")
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			panic("model: logistic label is not ±1 at row " + itoa(i))
		}
	}
	return &Logistic{A0: 1, B0: 0.01, x: X.RawMatrix(), y: y, n: n, p: p}
}

// Dim returns p+1.
func (m *Logistic) Dim() int { return m.p + 1 }

// NData returns N, the number of training rows.
func (m *Logistic) NData() int { return m.n }

// Features returns p, the number of columns of X.
func (m *Logistic) Features() int { return m.p }

// logPrior adds ∇log p₀ to grad and returns log p₀(θ), the Gamma hyperprior
// on log α and the Gaussian prior on w, normalising constants included.
func (m *Logistic) logPrior(x, grad []float64) float64 {
	return m.logPriorC(x, grad, m.priorConst())
}

// lrPriorConst holds the constants of logPrior: log B0, log Γ(A0) and
// log 2π, computed once per batched call.
type lrPriorConst struct{ logB, lgA, log2Pi float64 }

func (m *Logistic) priorConst() lrPriorConst {
	lg, _ := math.Lgamma(m.A0)
	return lrPriorConst{logB: math.Log(m.B0), lgA: lg, log2Pi: math.Log(2 * math.Pi)}
}

// logPriorC is logPrior given its constants. Every value is the one of the
// formula of logGammaPriorLog written out (e^s computed once), so the bits
// are those of calling it.
func (m *Logistic) logPriorC(x, grad []float64, k lrPriorConst) float64 {
	p := m.p
	w := x[:p]
	s := x[p]
	alpha := math.Exp(s)
	ss := floats.Dot(w, w)
	a, b := m.A0, m.B0
	lpG, dG := a*k.logB-k.lgA+a*s-b*alpha, a-b*alpha
	lp := lpG + 0.5*float64(p)*(s-k.log2Pi) - 0.5*alpha*ss
	floats.AddScaled(grad[:p], -alpha, w)
	grad[p] += dG + 0.5*float64(p) - 0.5*alpha*ss
	return lp
}

// priorGrad adds ∇log p₀(θ) to grad as logPriorC does, without the log
// density: the same operations on grad, so the same bits.
func (m *Logistic) priorGrad(x, grad []float64) {
	p := m.p
	w := x[:p]
	s := x[p]
	alpha := math.Exp(s)
	ss := floats.Dot(w, w)
	dG := m.A0 - m.B0*alpha
	floats.AddScaled(grad[:p], -alpha, w)
	grad[p] += dG + 0.5*float64(p) - 0.5*alpha*ss
}

// lrTile is the number of rows whose logits are computed before their
// sigmoids and accumulations: the tile (32 rows of 55 columns, 14 KB) stays
// in the L1 cache between the dot products and the accumulation, so X is
// still read from memory once, while the exponentials of a tile are
// independent and pipeline.
const lrTile = 32

// lrRows adds Σᵢ yᵢ σ(−yᵢ wᵀxᵢ) xᵢ over the rows [lo, hi) to g and returns
// Σᵢ log σ(yᵢ wᵀxᵢ), reading each row from memory once. With uᵢ = yᵢ wᵀxᵢ and
// eᵢ = exp(−|uᵢ|), log σ(uᵢ) = min(uᵢ, 0) − log1p(eᵢ); the log1p terms of a
// tile are summed as the log of the product Π(1+eᵢ) ∈ [1, 2³²], one
// logarithm per tile, with absolute error of a few ulps of 1 per row.
func lrRows(x blas64.General, y, w, g []float64, lo, hi int) float64 {
	var ll float64
	var c [lrTile]float64
	for t0 := lo; t0 < hi; t0 += lrTile {
		ll = lrTileRows(x, y, w, g, t0, min(t0+lrTile, hi), c[:], ll)
	}
	return ll
}

// lrTileRows is one tile [t0, t1) of lrRows (t1−t0 ≤ lrTile) on the buffer
// c: it adds the tile's gradient terms to g and returns ll plus the tile's
// log-likelihood.
func lrTileRows(x blas64.General, y, w, g []float64, t0, t1 int, c []float64, ll float64) float64 {
	p := len(w)
	cs := c[:t1-t0]
	for k := range cs {
		i := t0 + k
		cs[k] = y[i] * floats.Dot(x.Data[i*x.Stride:i*x.Stride+p], w)
	}
	prod := 1.0
	for k, u := range cs {
		yi := y[t0+k]
		if u >= 0 {
			e := math.Exp(-u)
			prod *= 1 + e
			cs[k] = yi * e / (1 + e)
		} else {
			e := math.Exp(u)
			prod *= 1 + e
			ll += u
			cs[k] = yi / (1 + e)
		}
	}
	ll -= math.Log(prod)
	for k, ck := range cs {
		i := t0 + k
		floats.AddScaled(g, ck, x.Data[i*x.Stride:i*x.Stride+p])
	}
	return ll
}

// lrUseFMA selects the AVX2/FMA row kernels where the processor has them;
// benchmarks switch it off to measure the portable ones.
var lrUseFMA = haveFMA

// lrUse512 selects, with lrUseFMA, the AVX-512 weights of the gradient-only
// minibatch pass (sigmoid512); tests switch it off.
var lrUse512 = have512

// lrRowsFMA is lrRows with the AVX2/FMA kernels: the tile's logits come
// from one row at a time with four vector accumulators (memory is then read
// as a single stream, which the hardware prefetchers follow), its weights
// yᵢσ(−uᵢ) and Σ log σ(uᵢ) from a vectorised exponential (sigmoidFMA,
// relative error below 1e-15), and its gradient term Xtileᵀa from eight
// rows at a time.
func lrRowsFMA(x blas64.General, y, w, g []float64, lo, hi int) float64 {
	p := len(w)
	if p == 0 || hi <= lo {
		return lrRows(x, y, w, g, lo, hi)
	}
	_ = x.Data[(hi-1)*x.Stride+p-1]
	_ = y[hi-1]
	_ = g[p-1]
	var ll float64
	var c [lrTile]float64
	for t0 := lo; t0 < hi; t0 += lrTile {
		ll = lrTileFMA(x, y, w, g, t0, min(t0+lrTile, hi), c[:], ll)
	}
	return ll
}

// lrTileFMA is one tile [t0, t1) of lrRowsFMA (t1−t0 ≤ lrTile, p ≥ 1, the
// bounds checked by the caller) on the buffer c: it adds the tile's
// gradient terms to g and returns ll plus the tile's log-likelihood.
func lrTileFMA(x blas64.General, y, w, g []float64, t0, t1 int, c []float64, ll float64) float64 {
	p := len(w)
	cs := c[:t1-t0]
	_ = x.Data[(t1-1)*x.Stride+p-1]
	_ = y[t1-1]
	_ = g[p-1]
	dotRowsFMA(&x.Data[t0*x.Stride], x.Stride, len(cs), p, &w[0], &cs[0])
	n4 := len(cs) &^ 3
	if n4 > 0 {
		lmin, prod := sigmoidFMA(&cs[0], &y[t0], n4)
		ll += lmin - math.Log(prod)
	}
	for k := n4; k < len(cs); k++ {
		yi := y[t0+k]
		ls, sn := logSigmoidPair(yi * cs[k])
		ll += ls
		cs[k] = yi * sn
	}
	axpyRowsFMA(&x.Data[t0*x.Stride], x.Stride, len(cs), p, &cs[0], &g[0])
	return ll
}

// lrScratch is the per-call state of a full-data gradient. The rows are cut
// into chunks of lrMinRows rows that the workers take in turn from a shared
// counter, so that a worker delayed by the scheduler (the machine may be
// shared) does not hold up the pass; each chunk has its own partial
// gradient and log-likelihood, padded to whole cache lines so that workers
// never write to the same line, and the partials are added in chunk order,
// so the result depends neither on Workers nor on the timing.
type lrScratch struct {
	m       *Logistic
	w       []float64
	next    atomic.Int64 // next chunk to take
	nchunks int
	stride  int       // per chunk: p gradient terms, the log-likelihood, padding
	parts   []float64 // nchunks × stride
	wg      sync.WaitGroup
}

func (s *lrScratch) run(int) {
	m := s.m
	for {
		c := int(s.next.Add(1)) - 1
		if c >= s.nchunks {
			return
		}
		part := s.parts[c*s.stride : c*s.stride+m.p+1]
		g := part[:m.p]
		for j := range g {
			g[j] = 0
		}
		lo, hi := c*lrMinRows, min((c+1)*lrMinRows, m.n)
		if lrUseFMA {
			part[m.p] = lrRowsFMA(m.x, m.y, s.w, g, lo, hi)
		} else {
			part[m.p] = lrRows(m.x, m.y, s.w, g, lo, hi)
		}
	}
}

func (m *Logistic) getScratch() *lrScratch {
	s, _ := m.scratch.Get().(*lrScratch)
	if s == nil {
		s = &lrScratch{m: m}
		s.nchunks = max(1, (m.n+lrMinRows-1)/lrMinRows)
		s.stride = (m.p+1+7)/8*8 + 8
		s.parts = make([]float64, s.nchunks*s.stride)
	}
	s.next.Store(0)
	return s
}

// LogProbGrad returns log p(θ) (normalised prior plus log-likelihood) and
// writes ∇log p(θ) into grad. The pass over X is split into chunks of rows
// taken in turn by Workers goroutines.
func (m *Logistic) LogProbGrad(x, grad []float64) float64 {
	if len(x) != m.p+1 || len(grad) != m.p+1 {
		panic("model: dimension mismatch")
	}
	s := m.getScratch()
	s.w = x[:m.p]
	parallel(min(workerCount(m.Workers, m.n, lrMinRows), s.nchunks), s, &s.wg)
	for j := range grad {
		grad[j] = 0
	}
	var ll float64
	for c := 0; c < s.nchunks; c++ {
		part := s.parts[c*s.stride : c*s.stride+m.p+1]
		floats.Add(grad[:m.p], part[:m.p])
		ll += part[m.p]
	}
	s.w = nil
	m.scratch.Put(s)
	return ll + m.logPrior(x, grad)
}

// MinibatchLogProbGrad writes the unbiased estimate ∇log p₀(θ) +
// (N/|B|) Σ_{b∈B} ∇log L(d_b | θ) into grad and returns the matching
// estimate of log p(θ). It allocates nothing.
func (m *Logistic) MinibatchLogProbGrad(x, grad []float64, batch []int) float64 {
	if len(x) != m.p+1 || len(grad) != m.p+1 {
		panic("model: dimension mismatch")
	}
	if len(batch) == 0 {
		panic("model: empty minibatch")
	}
	w := x[:m.p]
	for j := range grad {
		grad[j] = 0
	}
	g := grad[:m.p]
	var ll float64
	for _, i := range batch {
		row := m.x.Data[i*m.x.Stride : i*m.x.Stride+m.p]
		yi := m.y[i]
		ls, sn := logSigmoidPair(yi * floats.Dot(row, w))
		ll += ls
		floats.AddScaled(g, yi*sn, row)
	}
	c := float64(m.n) / float64(len(batch))
	floats.Scale(c, g)
	return c*ll + m.logPrior(x, grad)
}

// lrBatchWork is the smallest |B|·n·p (multiply-adds of one product) of a
// batched minibatch evaluation worth a second goroutine. SVGD's shape
// (|B| = 100, 100 particles, p = 55: 5.5·10⁵) stays on one: with the
// products of pkg/dense a call takes ≈ 0.13 ms, and a second worker
// made it slower on the shared two-core machine (125–195 µs wall at
// GOMAXPROCS=1 against 175–210 µs at 2, interleaved, load ≈ 4).
const lrBatchWork = 1 << 21

// lrBatchChunk is the number of particles the workers of a batched
// minibatch evaluation take at a time.
const lrBatchChunk = 8

// lrBatchScratch is the state of one MinibatchLogProbGradBatch call: the
// gathered batch rows and labels, and the logit block of each worker,
// padded by a cache line so that workers never share one. Workers take
// chunks of lrBatchChunk particles in turn from a shared counter, so that a
// worker delayed by the scheduler does not hold up the call; every particle
// is computed the same way whichever worker takes it.
type lrBatchScratch struct {
	m *Logistic
	batchRows
	z       []float64 // per worker |B|·lrBatchChunk plus padding
	xs, gs  blas64.General
	lp      []float64
	nb, n   int
	next    atomic.Int64
	workers int
	wg      sync.WaitGroup
	job     lrTeamJob
	prior   lrPriorConst
}

func (s *lrBatchScratch) run(k int) {
	for {
		lo := (int(s.next.Add(1)) - 1) * lrBatchChunk
		if lo >= s.n {
			return
		}
		s.block(k, lo, min(lo+lrBatchChunk, s.n))
	}
}

// block evaluates particles lo ≤ i < hi on worker k's buffers.
func (s *lrBatchScratch) block(k, lo, hi int) {
	m := s.m
	p, nb := m.p, s.nb
	nk := hi - lo
	zk := s.z[k*(nb*lrBatchChunk+8):]
	if lrUseFMA && p > 0 {
		s.blockFMA(zk, lo, hi)
		return
	}
	Xb := blas64.General{Rows: nb, Cols: p, Stride: s.ldx, Data: s.xb}
	W := subGeneral(s.xs, lo, hi, 0, p)
	Z := blas64.General{Rows: nb, Cols: nk, Stride: nk, Data: zk}
	gemmSerial(blas.NoTrans, blas.Trans, 1, Xb, W, 0, Z)
	if s.lp == nil {
		for r := 0; r < nb; r++ {
			yi := s.yb[r]
			zr := Z.Data[r*nk : r*nk+nk]
			for i, z := range zr {
				zr[i] = yi * sigmoidNeg(yi*z)
			}
		}
	} else {
		lp := s.lp[lo:hi]
		for i := range lp {
			lp[i] = 0
		}
		for r := 0; r < nb; r++ {
			yi := s.yb[r]
			zr := Z.Data[r*nk : r*nk+nk]
			for i, z := range zr {
				ls, sn := logSigmoidPair(yi * z)
				lp[i] += ls
				zr[i] = yi * sn
			}
		}
	}
	G := subGeneral(s.gs, lo, hi, 0, p)
	gemmSerial(blas.Trans, blas.NoTrans, 1, Z, Xb, 0, G)
	c := float64(m.n) / float64(nb)
	for i := 0; i < nk; i++ {
		x := s.xs.Data[(lo+i)*s.xs.Stride : (lo+i)*s.xs.Stride+p+1]
		g := s.gs.Data[(lo+i)*s.gs.Stride : (lo+i)*s.gs.Stride+p+1]
		floats.Scale(c, g[:p])
		g[p] = 0
		if s.lp == nil {
			m.priorGrad(x, g)
			continue
		}
		s.lp[lo+i] = c*s.lp[lo+i] + m.logPriorC(x, g, s.prior)
	}
}

// blockFMA is block with AVX2/FMA kernels: the logits of particles
// [lo, hi) on the batch, Z = W·Xbᵀ, and their gradients, G = (N/|B|)·A·Xb,
// are products of pkg/dense on the gathered block (in the L1 or L2
// cache), and the weights A and log-likelihoods come from the vectorised
// sigmoid in groups of lrTile rows. z holds (hi−lo)·|B| logits.
func (s *lrBatchScratch) blockFMA(z []float64, lo, hi int) {
	m := s.m
	p, nb := m.p, s.nb
	nk := hi - lo
	c := float64(m.n) / float64(nb)
	z = z[:nk*nb]
	dense.MulNN(nk, nb, p, 1, s.xs.Data[lo*s.xs.Stride:], s.xs.Stride, s.xbt, s.ldt, z, nb)
	if s.lp == nil {
		// The weights alone: the same sigmoids, without the logarithms.
		// The tiles below give the vector kernel every position but the
		// last (nb mod lrTile) mod 4, which take logSigmoidPair's scalar
		// form; sigmoid512 takes those same positions at once.
		nv := nb - (nb%lrTile)%4
		for k := 0; k < nk && lrUse512 && nv > 0; k++ {
			zk := z[k*nb : k*nb+nb]
			sigmoid512(&zk[0], &s.yb[0], nv)
			for r := nv; r < nb; r++ {
				zk[r] = s.yb[r] * sigmoidNeg(s.yb[r]*zk[r])
			}
		}
		for k := 0; k < nk && !(lrUse512 && nv > 0); k++ {
			zk := z[k*nb : k*nb+nb]
			for t0 := 0; t0 < nb; t0 += lrTile {
				t1 := min(t0+lrTile, nb)
				n4 := (t1 - t0) &^ 3
				if n4 > 0 {
					sigmoidFMA(&zk[t0], &s.yb[t0], n4)
				}
				for r := t0 + n4; r < t1; r++ {
					zk[r] = s.yb[r] * sigmoidNeg(s.yb[r]*zk[r])
				}
			}
		}
		dense.MulNN(nk, p, nb, c, z, nb, s.xb, s.ldx, s.gs.Data[lo*s.gs.Stride:], s.gs.Stride)
		for i := lo; i < hi; i++ {
			g := s.gs.Data[i*s.gs.Stride : i*s.gs.Stride+p+1]
			g[p] = 0
			m.priorGrad(s.xs.Data[i*s.xs.Stride:i*s.xs.Stride+p+1], g)
		}
		return
	}
	for k := 0; k < nk; k++ {
		zk := z[k*nb : k*nb+nb]
		var ll float64
		for t0 := 0; t0 < nb; t0 += lrTile {
			t1 := min(t0+lrTile, nb)
			n4 := (t1 - t0) &^ 3
			if n4 > 0 {
				lmin, prod := sigmoidFMA(&zk[t0], &s.yb[t0], n4)
				ll += lmin - math.Log(prod)
			}
			for r := t0 + n4; r < t1; r++ {
				ls, sn := logSigmoidPair(s.yb[r] * zk[r])
				ll += ls
				zk[r] = s.yb[r] * sn
			}
		}
		s.lp[lo+k] = ll
	}
	dense.MulNN(nk, p, nb, c, z, nb, s.xb, s.ldx, s.gs.Data[lo*s.gs.Stride:], s.gs.Stride)
	for i := lo; i < hi; i++ {
		x := s.xs.Data[i*s.xs.Stride : i*s.xs.Stride+p+1]
		g := s.gs.Data[i*s.gs.Stride : i*s.gs.Stride+p+1]
		g[p] = 0
		s.lp[i] = c*s.lp[i] + m.logPriorC(x, g, s.prior)
	}
}

// batchScratch takes the model's minibatch scratch (or a new one for a
// concurrent caller) sized for nb rows and parts blocks of logits, every
// buffer resliced to its length.
func (m *Logistic) batchScratch(nb, parts int) *lrBatchScratch {
	p := m.p
	s := m.mbScratch.Swap(nil) // concurrent callers get their own
	if s == nil {
		s = &lrBatchScratch{m: m}
	}
	s.size(nb, p)
	if need := parts * (nb*lrBatchChunk + 8); cap(s.z) < need {
		s.z = make([]float64, need)
	}
	s.z = s.z[:cap(s.z)]
	return s
}

// MinibatchLogProbGradBatch writes into row i of grads and into lp[i] what
// MinibatchLogProbGrad gives for row i of xs (n×(p+1)), all particles on the
// same batch. The batch rows are gathered once into a |B|×p block Xb; the
// logits Xb·Wᵀ and the likelihood gradients Aᵀ·Xb, Aᵦᵢ = y_b σ(−y_b z_bi),
// are matrix products over chunks of particles taken in turn by Workers
// goroutines (with AVX2/FMA, pkg/dense's products and the vectorised
// sigmoid of LogProbGrad). It allocates nothing in steady state.
func (m *Logistic) MinibatchLogProbGradBatch(xs, grads *mat.Dense, lp []float64, batch []int) {
	if n, _ := xs.Dims(); len(lp) != n {
		panic("model: dimension mismatch")
	}
	m.minibatchBatch(xs, grads, lp, batch)
}

// MinibatchGradBatch writes into row i of grads what
// MinibatchLogProbGradBatch writes there, bit for bit, without the log
// densities: the weights σ(−y_b z_bi) without their logarithms and the
// prior's gradient without its density. It allocates nothing in steady
// state.
func (m *Logistic) MinibatchGradBatch(xs, grads *mat.Dense, batch []int) {
	m.minibatchBatch(xs, grads, nil, batch)
}

// minibatchBatch is MinibatchLogProbGradBatch, without the log densities
// when lp is nil.
func (m *Logistic) minibatchBatch(xs, grads *mat.Dense, lp []float64, batch []int) {
	n, d := xs.Dims()
	if d != m.p+1 {
		panic("model: dimension mismatch")
	}
	if r, c := grads.Dims(); r != n || c != d {
		panic("model: dimension mismatch")
	}
	if len(batch) == 0 {
		panic("model: empty minibatch")
	}
	p, nb := m.p, len(batch)
	workers := min(workerCount(m.Workers, nb*n*p, lrBatchWork), (n+lrBatchChunk-1)/lrBatchChunk)
	s := m.batchScratch(nb, workers)
	gatherRows(s.xb, s.ldx, s.yb, m.x, m.y, batch)
	transposeRows(s.xbt, s.ldt, s.xb, s.ldx, p, 0, nb)
	s.xs, s.gs, s.lp = xs.RawMatrix(), grads.RawMatrix(), lp
	s.nb, s.n, s.workers = nb, n, workers
	s.prior = m.priorConst()
	s.next.Store(0)
	parallel(workers, s, &s.wg)
	s.xs, s.gs, s.lp = blas64.General{}, blas64.General{}, nil
	m.mbScratch.Store(s)
}

// lrTeamWork is the smallest |B|·n·p (multiply-adds of one product) of a
// batched minibatch evaluation that MinibatchLogProbGradBatchOn splits over
// its team: below it the call runs on the caller alone. A part of the
// split is a chunk of lrBatchChunk particles, ≈ 2·8·|B|·p multiply-adds
// (≈ 10 µs at SVGD's |B| = 100, p = 55), against a hand-off of about a
// microsecond (`go test -bench Handoff ./pkg/par`); at 2¹⁶ (|B| = 100,
// p = 55, 12 particles) the call has two chunks.
const lrTeamWork = 1 << 16

// lrGatherParts is the number of parts of the batch gathering: its rows
// are scattered over X, and two goroutines overlap their cache misses.
const lrGatherParts = 4

// lrTeamJob is a MinibatchLogProbGradBatchOn call as the parts of two team
// jobs: gathering the batch rows (and their transpose) in lrGatherParts
// row blocks, then the chunks of lrBatchChunk particles, chunk k on logit
// buffer k.
type lrTeamJob struct {
	s      *lrBatchScratch
	batch  []int
	gather bool
	side   par.Runner // part 0 of the chunks' job when not nil
}

func (j *lrTeamJob) Run(k int) {
	s := j.s
	if !j.gather && j.side != nil {
		if k == 0 {
			j.side.Run(0)
			return
		}
		k--
	}
	p, nb := s.m.p, s.nb
	if j.gather {
		lo, hi := blockRange(k, lrGatherParts, nb)
		gatherRows(s.xb[lo*s.ldx:], s.ldx, s.yb[lo:hi], s.m.x, s.m.y, j.batch[lo:hi])
		transposeRows(s.xbt, s.ldt, s.xb, s.ldx, p, lo, hi)
		return
	}
	lo := k * lrBatchChunk
	s.block(k, lo, min(lo+lrBatchChunk, s.n))
}

// MinibatchLogProbGradBatchOn is MinibatchLogProbGradBatch with the work
// split over team's goroutines instead of the package's own: the batch rows
// are gathered in row blocks, then the chunks of particles are taken in
// turn. Every particle is computed as MinibatchLogProbGradBatch computes
// it, so the results have the same bits with any team, nil included.
// When side is not nil, side.Run(0) runs once during the call, as the
// first part of the team job that evaluates the particles: the caller's
// own work that does not depend on the result shares the team with it
// (SVGD's median heuristic). It must not touch xs, grads or lp.
// Calls of fewer than 2¹⁶ multiply-adds per product (|B|·n·p) run on the
// caller alone. It allocates nothing in steady state.
func (m *Logistic) MinibatchLogProbGradBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, lp []float64, batch []int) {
	if n, _ := xs.Dims(); len(lp) != n {
		panic("model: dimension mismatch")
	}
	m.minibatchBatchOn(team, side, xs, grads, lp, batch)
}

// Prefetch asks the processor to bring the data rows named by batch into
// its caches ahead of a minibatch pass on them (a caller that knows its
// next batch calls it one pass early, so that the gathering of the rows
// finds them there). It changes no result and allocates nothing; indices
// outside [0, N) make it do nothing.
func (m *Logistic) Prefetch(batch []int) { prefetchBatch(m.x, batch) }

// MinibatchGradBatchOn is MinibatchGradBatch split over team as
// MinibatchLogProbGradBatchOn splits MinibatchLogProbGradBatch: the
// gradients have the bits of MinibatchLogProbGradBatch with any team, and
// side.Run(0), when side is not nil, runs once beside them.
func (m *Logistic) MinibatchGradBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, batch []int) {
	m.minibatchBatchOn(team, side, xs, grads, nil, batch)
}

// minibatchBatchOn is MinibatchLogProbGradBatchOn, without the log
// densities when lp is nil.
func (m *Logistic) minibatchBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, lp []float64, batch []int) {
	n, d := xs.Dims()
	p, nb := m.p, len(batch)
	if team.Workers() < 2 || nb*n*p < lrTeamWork || n <= lrBatchChunk || nb < lrGatherParts {
		if side != nil {
			side.Run(0)
		}
		m.minibatchBatch(xs, grads, lp, batch)
		return
	}
	if d != m.p+1 {
		panic("model: dimension mismatch")
	}
	if r, c := grads.Dims(); r != n || c != d {
		panic("model: dimension mismatch")
	}
	chunks := (n + lrBatchChunk - 1) / lrBatchChunk
	s := m.batchScratch(nb, chunks)
	s.xs, s.gs, s.lp = xs.RawMatrix(), grads.RawMatrix(), lp
	s.nb, s.n, s.workers = nb, n, chunks
	s.prior = m.priorConst()
	s.job = lrTeamJob{s: s, batch: batch, gather: true}
	team.Do(lrGatherParts, &s.job)
	s.job.gather, s.job.side = false, side
	if side != nil {
		team.Do(chunks+1, &s.job)
	} else {
		team.Do(chunks, &s.job)
	}
	s.job = lrTeamJob{}
	s.xs, s.gs, s.lp = blas64.General{}, blas64.General{}, nil
	m.mbScratch.Store(s)
}

// SamplePrior draws α ~ Gamma(A0, rate B0), w ~ N(0, α⁻¹ I) and writes
// [w, log α] into dst.
func (m *Logistic) SamplePrior(rng *rand.Rand, dst []float64) {
	if len(dst) != m.p+1 {
		panic("model: dimension mismatch")
	}
	alpha := distuv.Gamma{Alpha: m.A0, Beta: m.B0, Src: rng}.Rand()
	sd := 1 / math.Sqrt(alpha)
	for j := 0; j < m.p; j++ {
		dst[j] = sd * rng.NormFloat64()
	}
	dst[m.p] = math.Log(alpha)
}

// lrBlockRows returns the rows per block of a batched evaluation over n
// particles: the n-column logit block stays near 2 MB.
func lrBlockRows(n, rows int) int {
	b := (1 << 18) / max(n, 1)
	b = max(b, 64)
	return min(b, max(rows, 1))
}

// rowsView returns rows [lo, hi) of a as a blas64.General.
func rowsView(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
}

// colsView returns the first c columns of a.
func colsView(a blas64.General, c int) blas64.General {
	return blas64.General{Rows: a.Rows, Cols: c, Stride: a.Stride, Data: a.Data}
}

// lrFullScratch is the state of one LogProbGradBatch call. The rows are cut
// into the chunks of LogProbGrad, taken in turn by the workers from a shared
// counter; a worker passes over its chunk one tile of lrTile rows at a time
// and, while the tile is in the L1 cache, applies the row kernels of
// LogProbGrad to every particle, so that X is read from memory once for all
// particles. Each chunk keeps a partial gradient and log-likelihood per
// particle, and the partials are added in chunk order: every particle's
// result is bit for bit that of LogProbGrad, whatever Workers and the timing.
type lrFullScratch struct {
	m       *Logistic
	xs      blas64.General
	n       int // particles
	next    atomic.Int64
	nchunks int
	stride  int       // per particle: p gradient terms, the log-likelihood, padding to a cache line
	block   int       // per chunk: n·stride plus a cache line
	parts   []float64 // nchunks × block
	wg      sync.WaitGroup
}

func (s *lrFullScratch) run(int) {
	m := s.m
	p := m.p
	fma := lrUseFMA && p > 0
	var c [lrTile]float64
	for {
		ch := int(s.next.Add(1)) - 1
		if ch >= s.nchunks {
			return
		}
		parts := s.parts[ch*s.block : ch*s.block+s.n*s.stride]
		for i := range parts {
			parts[i] = 0
		}
		lo, hi := ch*lrMinRows, min((ch+1)*lrMinRows, m.n)
		for t0 := lo; t0 < hi; t0 += lrTile {
			t1 := min(t0+lrTile, hi)
			for k := 0; k < s.n; k++ {
				part := parts[k*s.stride : k*s.stride+p+1]
				w := s.xs.Data[k*s.xs.Stride : k*s.xs.Stride+p]
				if fma {
					part[p] = lrTileFMA(m.x, m.y, w, part[:p], t0, t1, c[:], part[p])
				} else {
					part[p] = lrTileRows(m.x, m.y, w, part[:p], t0, t1, c[:], part[p])
				}
			}
		}
	}
}

// LogProbGradBatch writes into lp[i] and row i of grads what LogProbGrad
// gives for row i of xs (n×(p+1)), bit for bit, reading X from memory once
// for all particles: the workers take chunks of rows in turn and apply the
// row kernels to every particle tile by tile (see lrFullScratch). It
// allocates nothing in steady state; its scratch holds a partial gradient
// per particle and chunk of lrMinRows rows.
func (m *Logistic) LogProbGradBatch(xs, grads *mat.Dense, lp []float64) {
	n, d := xs.Dims()
	if d != m.p+1 {
		panic("model: dimension mismatch")
	}
	if r, c := grads.Dims(); r != n || c != d || len(lp) != n {
		panic("model: dimension mismatch")
	}
	p := m.p
	s := m.fullScratch.Swap(nil) // concurrent callers get their own
	if s == nil {
		s = &lrFullScratch{m: m}
	}
	s.nchunks = max(1, (m.n+lrMinRows-1)/lrMinRows)
	s.stride = (p + 1 + 7) / 8 * 8
	s.block = n*s.stride + 8
	if need := s.nchunks * s.block; cap(s.parts) < need {
		s.parts = make([]float64, need)
	}
	s.parts = s.parts[:cap(s.parts)]
	s.xs, s.n = xs.RawMatrix(), n
	s.next.Store(0)
	parallel(min(workerCount(m.Workers, m.n, lrMinRows), s.nchunks), s, &s.wg)
	for i := 0; i < n; i++ {
		grad := grads.RawRowView(i)
		for j := range grad {
			grad[j] = 0
		}
		var ll float64
		for c := 0; c < s.nchunks; c++ {
			part := s.parts[c*s.block+i*s.stride : c*s.block+i*s.stride+p+1]
			floats.Add(grad[:p], part[:p])
			ll += part[p]
		}
		lp[i] = ll + m.logPrior(xs.RawRowView(i), grad)
	}
	s.xs = blas64.General{}
	m.fullScratch.Store(s)
}

// lrPredict calls f(lo, Z) for consecutive row blocks of test features X,
// Z holding the logits zₜₖ = θₖᵀxₜ of the block's rows, with the blocks
// dealt round-robin to the workers. Each worker owns its logit buffer.
type lrPredict struct {
	X       blas64.General
	W       blas64.General
	B       int
	nblocks int
	workers int
	f       func(lo int, Z blas64.General)
	wg      sync.WaitGroup
}

func (s *lrPredict) run(k int) {
	n := s.W.Rows
	buf := make([]float64, s.B*n)
	for blk := k; blk < s.nblocks; blk += s.workers {
		lo := blk * s.B
		hi := min(lo+s.B, s.X.Rows)
		Z := blas64.General{Rows: hi - lo, Cols: n, Stride: n, Data: buf}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, rowsView(s.X, lo, hi), s.W, 0, Z)
		s.f(lo, Z)
	}
}

func (m *Logistic) checkPredict(X, particles *mat.Dense, weights []float64) (nt, n int) {
	nt, p := X.Dims()
	n, d := particles.Dims()
	if p != m.p || d != m.p+1 {
		panic("model: dimension mismatch")
	}
	if len(weights) != n {
		panic("model: weights length does not match the particles")
	}
	return nt, n
}

func (m *Logistic) eachBlock(X, particles *mat.Dense, f func(lo int, Z blas64.General)) {
	nt, _ := X.Dims()
	n, _ := particles.Dims()
	s := &lrPredict{X: X.RawMatrix(), W: colsView(particles.RawMatrix(), m.p), B: lrBlockRows(n, nt), f: f}
	s.nblocks = (nt + s.B - 1) / s.B
	s.workers = min(workerCount(m.Workers, nt, 1), s.nblocks)
	parallel(s.workers, s, &s.wg)
}

// PredictProb writes the weighted predictive probability
// p(y=+1 | xₜ) = Σₖ wₖ σ(θₖᵀxₜ) of every row of X (Nt×p) into dst
// (allocated when nil) and returns it. particles is n×(p+1), weights has
// length n.
func (m *Logistic) PredictProb(dst []float64, X, particles *mat.Dense, weights []float64) []float64 {
	nt, _ := m.checkPredict(X, particles, weights)
	if dst == nil {
		dst = make([]float64, nt)
	}
	if len(dst) != nt {
		panic("model: dst length does not match the rows of X")
	}
	m.eachBlock(X, particles, func(lo int, Z blas64.General) {
		for r := 0; r < Z.Rows; r++ {
			var s float64
			for k, z := range Z.Data[r*Z.Stride : r*Z.Stride+Z.Cols] {
				s += weights[k] * sigmoid(z)
			}
			dst[lo+r] = s
		}
	})
	return dst
}

// Metrics returns the accuracy and the mean log-likelihood on test rows X
// (Nt×p) with labels y ∈ {−1, +1} of the weighted predictive
// p(y | x) = Σₖ wₖ σ(y θₖᵀx). A row counts as correct when the predictive
// gives its true label probability above 1/2. The logits are computed by
// matrix products over blocks of rows in parallel, so memory stays bounded.
func (m *Logistic) Metrics(X *mat.Dense, y []float64, particles *mat.Dense, weights []float64) (accuracy, logLik float64) {
	nt, n := m.checkPredict(X, particles, weights)
	if len(y) != nt {
		panic("model: length of y does not match the rows of X")
	}
	if nt == 0 {
		return math.NaN(), math.NaN()
	}
	B := lrBlockRows(n, nt)
	nb := (nt + B - 1) / B
	correct := make([]int, nb)
	lls := make([]float64, nb)
	m.eachBlock(X, particles, func(lo int, Z blas64.General) {
		blk := lo / B
		var ll float64
		var c int
		var lbuf []float64
		for r := 0; r < Z.Rows; r++ {
			yt := y[lo+r]
			zr := Z.Data[r*Z.Stride : r*Z.Stride+Z.Cols]
			var s float64
			for k, z := range zr {
				s += weights[k] * sigmoid(yt*z)
			}
			if s > 0.5 {
				c++
			}
			if s > 1e-250 {
				ll += math.Log(s)
				continue
			}
			// Underflow or negative weights: redo in log space.
			if lbuf == nil {
				lbuf = make([]float64, n)
			}
			for k, z := range zr {
				lbuf[k], _ = logSigmoidPair(yt * z)
			}
			ll += logWeightedSum(weights, lbuf)
		}
		correct[blk] = c
		lls[blk] = ll
	})
	var c int
	var ll float64
	for b := range nb {
		c += correct[b]
		ll += lls[b]
	}
	return float64(c) / float64(nt), ll / float64(nt)
}
