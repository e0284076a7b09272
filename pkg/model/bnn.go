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

// bnnMinRows is the smallest row block worth a goroutine of its own.
const bnnMinRows = 256

// BNN is the posterior of a one-hidden-layer ReLU regression network with
// Gamma hyperpriors on the noise precision γ and the weight precision λ (see
// the package documentation). θ = [W1 (p×H, row-major), b1 (H), w2 (H), b2,
// log γ, log λ], Dim = H(p+2)+3.
//
// A BNN is safe for concurrent use once its settings are fixed.
type BNN struct {
	// A0 and B0 are the shape and rate of the Gamma priors of γ and λ.
	// NewBNN sets them to 1 and 0.1.
	A0, B0 float64
	// Workers is the number of goroutines of a full-data gradient; zero
	// or negative means runtime.GOMAXPROCS(0). Set it before use.
	Workers int

	x       blas64.General
	y       []float64
	n, p, h int

	scratch   sync.Pool // *bnnScratch
	xtOnce    sync.Once
	xt        []float64                       // Xᵀ, p×N, for the full-data gradient
	mbScratch atomic.Pointer[bnnBatchScratch] // kept across garbage collections
}

// NewBNN returns the posterior for standardised features X (N×p) and
// standardised responses y with hidden ReLU units. The model keeps
// references to X and y, which must not change while it is in use.
func NewBNN(X *mat.Dense, y []float64, hidden int) *BNN {
	n, p := X.Dims()
	if len(y) != n {
		panic("model: length of y does not match the rows of X")
	}
	if hidden < 1 {
		panic("model: hidden units must be positive")
	}
	return &BNN{A0: 1, B0: 0.1, x: X.RawMatrix(), y: y, n: n, p: p, h: hidden}
}

// Dim returns H(p+2)+3.
func (m *BNN) Dim() int { return m.h*(m.p+2) + 3 }

// NData returns N, the number of training rows.
func (m *BNN) NData() int { return m.n }

// Features returns p, the number of input columns.
func (m *BNN) Features() int { return m.p }

// Hidden returns H, the number of hidden units.
func (m *BNN) Hidden() int { return m.h }

// Offsets of the blocks of θ.
func (m *BNN) offB1() int { return m.p * m.h }
func (m *BNN) offW2() int { return m.p*m.h + m.h }

// rowGrad adds the derivatives of −r²/2 (r = y − f(x)) with respect to the
// network weights to g and returns r. a is scratch of length H. The ReLU
// derivative is 1 where the pre-activation is > 0 and 0 elsewhere (the
// subgradient 0 at the kink).
func (m *BNN) rowGrad(xr []float64, yi float64, th, g, a []float64) float64 {
	p, h := m.p, m.h
	b1 := th[p*h : p*h+h]
	w2 := th[p*h+h : p*h+2*h]
	dense.AddMulTrans(a, b1, th[:p*h], h, xr)
	f := reluDot(a, w2, th[p*h+2*h])
	r := yi - f
	m.backprop(g, a, w2, r)
	dense.AddOuter(g[:p*h], h, xr, a)
	return r
}

// reluDot applies the ReLU to the pre-activations a in place and returns
// f + Σₖ w2ₖ·aₖ, without a branch per unit: the sign bit of each value
// selects it or +0 (a mask on its bits), and inactive units add w2ₖ·(+0) =
// ±0, which leaves f unchanged, except that an f of −0 becomes +0, which no
// caller can tell apart (f enters only y − f and sums). Signs of the hidden
// units are close to random, so a branch would be mispredicted about half of
// the time; the results are those of the branching loop for finite weights.
func reluDot(a, w2 []float64, f float64) float64 {
	w2 = w2[:len(a)]
	for k, v := range a {
		b := math.Float64bits(v)
		b &^= uint64(int64(b) >> 63) // +0 where the sign bit is set
		v = math.Float64frombits(b)
		a[k] = v
		f += w2[k] * v
	}
	return f
}

// backprop adds one row's derivatives of −r²/2 with respect to w2, b2 and
// b1 to the particle's gradient g, given the row's ReLU activations a (zero
// where inactive) and its residual r, and overwrites a with r·w2 ⊙ 1[a > 0],
// the derivative with respect to the pre-activations, which the first
// layer's gradient multiplies by the inputs.
func (m *BNN) backprop(g, a, w2 []float64, r float64) {
	p, h := m.p, m.h
	gw2 := g[p*h+h : p*h+2*h]
	w2 = w2[:len(a)]
	gw2 = gw2[:len(a)]
	gb1 := g[p*h : p*h+len(a)]
	for k, v := range a {
		// v ≥ 0: an inactive unit adds r·(+0) = ±0, which leaves the sum as
		// it is, and gets a zero derivative through a mask (no branch on
		// the sign, which is unpredictable).
		gw2[k] += r * v
		b := math.Float64bits(v)
		mask := -((b | -b) >> 63) // all ones where v ≠ 0
		d := math.Float64frombits(math.Float64bits(r*w2[k]) & mask)
		a[k] = d
		gb1[k] += d
	}
	g[p*h+2*h] += r
}

// forward returns f(x) for one row; a is scratch of length H.
func (m *BNN) forward(xr, th, a []float64) float64 {
	p, h := m.p, m.h
	copy(a, th[p*h:p*h+h])
	for j, xj := range xr {
		floats.AddScaled(a, xj, th[j*h:j*h+h])
	}
	return reluDot(a, th[p*h+h:p*h+2*h], th[p*h+2*h])
}

// finish turns the accumulated likelihood sums into log p and ∇log p:
// grad[:d−2] holds Σ r ∂f/∂weights, sse = Σ r² over count rows, and scale is
// N/count (1 for the full data).
func (m *BNN) finish(x, grad []float64, sse float64, count int, scale float64) float64 {
	d := m.Dim()
	nw := d - 2
	lg, ll := x[d-2], x[d-1]
	gamma, lambda := math.Exp(lg), math.Exp(ll)
	floats.Scale(gamma*scale, grad[:nw])
	c := float64(count)
	lp := scale * (0.5*c*(lg-math.Log(2*math.Pi)) - 0.5*gamma*sse)
	grad[d-2] = scale * (0.5*c - 0.5*gamma*sse)
	grad[d-1] = 0

	// Prior: weights ~ N(0, λ⁻¹), log γ and log λ from Gamma(A0, B0).
	w := x[:nw]
	ss := floats.Dot(w, w)
	floats.AddScaled(grad[:nw], -lambda, w)
	lp += 0.5*float64(nw)*(ll-math.Log(2*math.Pi)) - 0.5*lambda*ss
	grad[d-1] += 0.5*float64(nw) - 0.5*lambda*ss
	lpG, dG := logGammaPriorLog(lg, m.A0, m.B0)
	lpL, dL := logGammaPriorLog(ll, m.A0, m.B0)
	grad[d-2] += dG
	grad[d-1] += dL
	return lp + lpG + lpL
}

// finishGrad is finish without the log density: the same operations on
// grad, so the same bits (the derivatives of the Gamma priors are those of
// logGammaPriorLog, a − b·eˢ with eˢ the γ and λ computed here).
func (m *BNN) finishGrad(x, grad []float64, sse float64, count int, scale float64) {
	d := m.Dim()
	nw := d - 2
	lg, ll := x[d-2], x[d-1]
	gamma, lambda := math.Exp(lg), math.Exp(ll)
	floats.Scale(gamma*scale, grad[:nw])
	c := float64(count)
	grad[d-2] = scale * (0.5*c - 0.5*gamma*sse)
	grad[d-1] = 0
	w := x[:nw]
	ss := floats.Dot(w, w)
	floats.AddScaled(grad[:nw], -lambda, w)
	grad[d-1] += 0.5*float64(nw) - 0.5*lambda*ss
	grad[d-2] += m.A0 - m.B0*gamma
	grad[d-1] += m.A0 - m.B0*lambda
}

// bnnChunkRows is the number of rows of one chunk of a full-data gradient:
// its hidden layer (256×H) stays in the level-2 cache.
const bnnChunkRows = 256

// bnnScratch is the state of one full-data gradient: per worker a chunk's
// hidden layer and outputs, per chunk of rows its partial sums (the
// first-layer gradient p×H, then those of b1, w2 and b2, then Σr²), each
// padded to whole cache lines. Workers take chunks from a shared counter;
// the partials are added in chunk order, so the result does not depend on
// the number of workers or on which worker took which chunk.
type bnnScratch struct {
	m       *BNN
	th      []float64
	workers int
	nchunks int
	stride  int       // of a chunk's partial
	parts   []float64 // nchunks × stride
	a       []float64 // per worker bnnChunkRows×H plus padding
	f       []float64 // per worker bnnChunkRows plus padding
	next    atomic.Int64
	wg      sync.WaitGroup
}

func (s *bnnScratch) run(k int) {
	m := s.m
	p, h := m.p, m.h
	a := s.a[k*(bnnChunkRows*h+8):]
	f := s.f[k*(bnnChunkRows+8) : k*(bnnChunkRows+8)+bnnChunkRows]
	w1, b1, w2 := s.th[:p*h], s.th[p*h:p*h+h], s.th[p*h+h:p*h+2*h]
	b2 := s.th[p*h+2*h]
	xt := m.transposed()
	for {
		c := int(s.next.Add(1)) - 1
		if c >= s.nchunks {
			return
		}
		lo := c * bnnChunkRows
		hi := min(lo+bnnChunkRows, m.n)
		rows := hi - lo
		g := s.parts[c*s.stride : c*s.stride+p*h+2*h+2]
		clear(g[p*h:])
		// Hidden layer X_c·W1 + b1, ReLU and outputs, residuals, the
		// backward pass, then the first-layer gradient X_cᵀ·Δ.
		dense.MulNN(rows, h, p, 1, m.x.Data[lo*m.x.Stride:], m.x.Stride, w1, h, a, h)
		fr := f[:rows]
		for r := range fr {
			fr[r] = b2
		}
		dense.ReLURows(a, h, rows, h, b1, w2, fr)
		var sse, gb2 float64
		for r, v := range fr {
			v = m.y[lo+r] - v
			fr[r] = v
			sse += v * v
		}
		dense.ReLUBackRows(a, h, rows, h, fr, w2, g[p*h+h:p*h+2*h], g[p*h:p*h+h])
		for _, v := range fr {
			gb2 += v
		}
		g[p*h+2*h] = gb2
		g[p*h+2*h+1] = sse
		dense.MulNN(p, h, rows, 1, xt[lo:], m.n, a, h, g[:p*h], h)
	}
}

// transposed returns Xᵀ (p×N, row-major), computed on first use.
func (m *BNN) transposed() []float64 {
	m.xtOnce.Do(func() {
		xt := make([]float64, m.p*m.n)
		for i := 0; i < m.n; i++ {
			for j, v := range m.x.Data[i*m.x.Stride : i*m.x.Stride+m.p] {
				xt[j*m.n+i] = v
			}
		}
		m.xt = xt
	})
	return m.xt
}

func (m *BNN) getScratch(workers int) *bnnScratch {
	s, _ := m.scratch.Get().(*bnnScratch)
	if s == nil {
		nchunks := max(1, (m.n+bnnChunkRows-1)/bnnChunkRows)
		stride := (m.p*m.h+2*m.h+2+7)/8*8 + 8
		s = &bnnScratch{m: m, nchunks: nchunks, stride: stride, parts: make([]float64, nchunks*stride)}
	}
	if s.workers < workers {
		s.a = make([]float64, workers*(bnnChunkRows*m.h+8))
		s.f = make([]float64, workers*(bnnChunkRows+8))
		s.workers = workers
	}
	return s
}

// LogProbGrad returns log p(θ) (normalised prior plus log-likelihood) and
// writes ∇log p(θ), by backpropagation, into grad. The rows are cut into
// chunks of 256; per chunk the hidden layer is one product X_c·W1 and the
// first-layer gradient one product X_cᵀ·Δ (pkg/dense), the chunks
// taken in turn by Workers goroutines and their sums added in chunk order,
// so the result is the same whatever the number of workers.
func (m *BNN) LogProbGrad(x, grad []float64) float64 {
	d := m.Dim()
	if len(x) != d || len(grad) != d {
		panic("model: dimension mismatch")
	}
	workers := workerCount(m.Workers, m.n, bnnMinRows)
	s := m.getScratch(workers)
	s.th = x
	s.next.Store(0)
	parallel(workers, s, &s.wg)
	nw := d - 2
	copy(grad[:nw], s.parts[:nw])
	sse := s.parts[nw]
	for c := 1; c < s.nchunks; c++ {
		part := s.parts[c*s.stride : c*s.stride+nw+1]
		floats.Add(grad[:nw], part[:nw])
		sse += part[nw]
	}
	s.th = nil
	m.scratch.Put(s)
	return m.finish(x, grad, sse, m.n, 1)
}

// MinibatchLogProbGrad writes the unbiased estimate ∇log p₀(θ) +
// (N/|B|) Σ_{b∈B} ∇log L(d_b | θ) into grad and returns the matching
// estimate of log p(θ). It allocates nothing in steady state.
func (m *BNN) MinibatchLogProbGrad(x, grad []float64, batch []int) float64 {
	d := m.Dim()
	if len(x) != d || len(grad) != d {
		panic("model: dimension mismatch")
	}
	if len(batch) == 0 {
		panic("model: empty minibatch")
	}
	s := m.getScratch(1)
	a := s.a[:m.h]
	for j := range grad {
		grad[j] = 0
	}
	var sse float64
	for _, i := range batch {
		r := m.rowGrad(m.x.Data[i*m.x.Stride:i*m.x.Stride+m.p], m.y[i], x, grad, a)
		sse += r * r
	}
	m.scratch.Put(s)
	return m.finish(x, grad, sse, len(batch), float64(m.n)/float64(len(batch)))
}

// bnnBatchWork is the smallest |B|·n·H·p (multiply-adds of one product) of
// a batched minibatch evaluation worth a second goroutine.
const bnnBatchWork = 1 << 15

// bnnBatchScratch is the state of one MinibatchLogProbGradBatch call: the
// gathered batch rows and labels, and per worker the packed first-layer
// weights, the hidden layers and the first-layer gradients of one chunk of
// particles, each worker's region padded by a cache line. Workers take
// chunks of particles (as many as keep a chunk's hidden layers within 192
// columns) in turn from a shared counter, so that a worker delayed by the
// scheduler does not hold up the call; every particle is computed the same
// way whichever worker takes it.
type bnnBatchScratch struct {
	m *BNN
	batchRows
	chunk   int       // particles per chunk
	w, gw   []float64 // per worker p×(chunk·H) plus padding
	a       []float64 // per worker |B|×(chunk·H) plus padding
	sse     []float64 // per worker chunk plus padding
	res     []float64 // per worker |B| outputs, then residuals, plus padding
	xs, gs  blas64.General
	lp      []float64
	nb, n   int
	next    atomic.Int64
	workers int
	wg      sync.WaitGroup
	job     bnnTeamJob
}

func (s *bnnBatchScratch) run(k int) {
	for {
		lo := (int(s.next.Add(1)) - 1) * s.chunk
		if lo >= s.n {
			return
		}
		s.block(k, lo, min(lo+s.chunk, s.n))
	}
}

// block evaluates particles lo ≤ i < hi on worker k's buffers.
func (s *bnnBatchScratch) block(k, lo, hi int) {
	m := s.m
	p, h, nb := m.p, m.h, s.nb
	nk := hi - lo
	nh := nk * h
	ch := s.chunk * h
	W := blas64.General{Rows: p, Cols: nh, Stride: nh, Data: s.w[k*(p*ch+8):]}
	GW := blas64.General{Rows: p, Cols: nh, Stride: nh, Data: s.gw[k*(p*ch+8):]}
	A := blas64.General{Rows: nb, Cols: nh, Stride: nh, Data: s.a[k*(nb*ch+8):]}
	Xb := blas64.General{Rows: nb, Cols: p, Stride: s.ldx, Data: s.xb}
	sse := s.sse[k*(s.chunk+8) : k*(s.chunk+8)+nk]
	th := func(i int) []float64 { return s.xs.Data[(lo+i)*s.xs.Stride:] }
	gr := func(i int) []float64 { return s.gs.Data[(lo+i)*s.gs.Stride:] }
	for i := 0; i < nk; i++ {
		t := th(i)
		for j := 0; j < p; j++ {
			copy(W.Data[j*nh+i*h:j*nh+i*h+h], t[j*h:j*h+h])
		}
		g := gr(i)[:m.Dim()]
		for j := range g {
			g[j] = 0
		}
		sse[i] = 0
	}
	// The pre-activations Xb·W (pkg/dense's product on this goroutine)
	// plus b1.
	dense.MulNN(nb, nh, p, 1, Xb.Data, Xb.Stride, W.Data, nh, A.Data, nh)
	// Per particle, the forward pass over all rows (pkg/dense, four
	// rows at a time), the residuals, then the backward pass (four units at
	// a time). Every sum keeps the order of the row-by-row loop of
	// MinibatchLogProbGrad: f over the units of a row, the gradient sums
	// over the rows.
	res := s.res[k*(nb+8) : k*(nb+8)+nb]
	for i := 0; i < nk; i++ {
		t, g := th(i), gr(i)
		b1, w2 := t[p*h:p*h+h], t[p*h+h:p*h+2*h]
		b2 := t[p*h+2*h]
		for r := range res {
			res[r] = b2
		}
		dense.ReLURows(A.Data[i*h:], nh, nb, h, b1, w2, res)
		var e, gb2 float64
		for r, f := range res {
			v := s.yb[r] - f
			res[r] = v
			e += v * v
		}
		sse[i] = e
		dense.ReLUBackRows(A.Data[i*h:], nh, nb, h, res, w2, g[p*h+h:p*h+2*h], g[p*h:p*h+h])
		for _, v := range res {
			gb2 += v
		}
		g[p*h+2*h] = gb2
	}
	dense.MulNN(p, nh, nb, 1, s.xbt, s.ldt, A.Data, nh, GW.Data, nh)
	scale := float64(m.n) / float64(nb)
	d := m.Dim()
	for i := 0; i < nk; i++ {
		g := gr(i)[:d]
		for j := 0; j < p; j++ {
			copy(g[j*h:j*h+h], GW.Data[j*nh+i*h:j*nh+i*h+h])
		}
		if s.lp == nil {
			m.finishGrad(th(i)[:d], g, sse[i], nb, scale)
			continue
		}
		s.lp[lo+i] = m.finish(th(i)[:d], g, sse[i], nb, scale)
	}
}

// MinibatchLogProbGradBatch writes into row i of grads and into lp[i] what
// MinibatchLogProbGrad gives for row i of xs (n×d), all particles on the
// same batch. The batch rows are gathered once into a |B|×p block Xb; the
// hidden layers of a chunk of particles are one product Xb·[W1ᵢ …] and
// their first-layer gradients one product Xbᵀ·[Δᵢ …], the chunks taken in
// turn by Workers goroutines. It allocates nothing in steady state.
func (m *BNN) MinibatchLogProbGradBatch(xs, grads *mat.Dense, lp []float64, batch []int) {
	if n, _ := xs.Dims(); len(lp) != n {
		panic("model: dimension mismatch")
	}
	m.minibatchBatch(false, nil, nil, xs, grads, lp, batch)
}

// MinibatchGradBatch writes into row i of grads what
// MinibatchLogProbGradBatch writes there, bit for bit, without the log
// densities (the Gaussian and Gamma normalising terms and their
// logarithms). It allocates nothing in steady state.
func (m *BNN) MinibatchGradBatch(xs, grads *mat.Dense, batch []int) {
	m.minibatchBatch(false, nil, nil, xs, grads, nil, batch)
}

// Prefetch asks the processor to bring the data rows named by batch into
// its caches ahead of a minibatch pass on them. It changes no result and
// allocates nothing; indices outside [0, N) make it do nothing.
func (m *BNN) Prefetch(batch []int) { prefetchBatch(m.x, batch) }

// MinibatchGradBatchOn is MinibatchGradBatch with the work split over
// team's goroutines instead of the package's own: the chunks of particles
// are taken in turn, and side.Run(0), when side is not nil, runs once as
// one more part of that job (the caller's work that does not depend on the
// result; it must not touch xs or grads). Every particle is computed as
// MinibatchGradBatch computes it, so the gradients have the same bits
// with any team, nil included (the caller alone). It allocates nothing in
// steady state.
func (m *BNN) MinibatchGradBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, batch []int) {
	m.minibatchBatch(true, team, side, xs, grads, nil, batch)
}

// bnnTeamJob is the chunks of a minibatch pass as the parts of a team job,
// with side as one more part.
type bnnTeamJob struct {
	s    *bnnBatchScratch
	side par.Runner
}

func (j *bnnTeamJob) Run(k int) {
	if j.side != nil {
		if k == 0 {
			j.side.Run(0)
			return
		}
		k--
	}
	s := j.s
	lo := k * s.chunk
	s.block(k, lo, min(lo+s.chunk, s.n))
}

// minibatchBatch is MinibatchLogProbGradBatch (without the log densities
// when lp is nil) on the package's workers, or with onTeam on team (nil:
// the caller alone), chunk k on buffer k, with side.Run(0) as one more
// part.
func (m *BNN) minibatchBatch(onTeam bool, team *par.Team, side par.Runner, xs, grads *mat.Dense, lp []float64, batch []int) {
	n, d := xs.Dims()
	if d != m.Dim() {
		panic("model: dimension mismatch")
	}
	if r, c := grads.Dims(); r != n || c != d {
		panic("model: dimension mismatch")
	}
	if len(batch) == 0 {
		panic("model: empty minibatch")
	}
	p, h, nb := m.p, m.h, len(batch)
	chunk := bnnChunk(h)
	if onTeam && team.Workers() > 1 {
		// Half chunks, so that a team's goroutines share the parts evenly
		// (SVGD's 20 particles: 10 chunks of 2 instead of 5 of 4).
		chunk = max(1, chunk/2)
	}
	chunks := (n + chunk - 1) / chunk
	workers := min(workerCount(m.Workers, nb*n*h*p, bnnBatchWork), chunks)
	if onTeam {
		workers = chunks // one buffer per chunk
	}
	s := m.mbScratch.Swap(nil) // concurrent callers get their own
	if s == nil {
		s = &bnnBatchScratch{m: m}
	}
	s.chunk = chunk
	ch := chunk * h
	s.size(nb, p)
	if need := workers * (p*ch + 8); cap(s.w) < need {
		s.w = make([]float64, need)
		s.gw = make([]float64, need)
	}
	if need := workers * (nb*ch + 8); cap(s.a) < need {
		s.a = make([]float64, need)
	}
	if need := workers * (chunk + 8); cap(s.sse) < need {
		s.sse = make([]float64, need)
	}
	if need := workers * (nb + 8); cap(s.res) < need {
		s.res = make([]float64, need)
	}
	s.w, s.gw, s.a, s.sse, s.res = s.w[:cap(s.w)], s.gw[:cap(s.gw)], s.a[:cap(s.a)], s.sse[:cap(s.sse)], s.res[:cap(s.res)]
	gatherRows(s.xb, s.ldx, s.yb, m.x, m.y, batch)
	transposeRows(s.xbt, s.ldt, s.xb, s.ldx, p, 0, nb)
	s.xs, s.gs, s.lp = xs.RawMatrix(), grads.RawMatrix(), lp
	s.nb, s.n, s.workers = nb, n, workers
	if onTeam {
		s.job = bnnTeamJob{s: s, side: side}
		parts := chunks
		if side != nil {
			parts++
		}
		team.Do(parts, &s.job)
		s.job = bnnTeamJob{}
	} else {
		s.next.Store(0)
		parallel(workers, s, &s.wg)
	}
	s.xs, s.gs, s.lp = blas64.General{}, blas64.General{}, nil
	m.mbScratch.Store(s)
}

// SamplePrior draws γ, λ ~ Gamma(A0, rate B0) and every weight from
// N(0, λ⁻¹), and writes θ into dst.
func (m *BNN) SamplePrior(rng *rand.Rand, dst []float64) {
	d := m.Dim()
	if len(dst) != d {
		panic("model: dimension mismatch")
	}
	g := distuv.Gamma{Alpha: m.A0, Beta: m.B0, Src: rng}
	gamma := g.Rand()
	lambda := g.Rand()
	sd := 1 / math.Sqrt(lambda)
	for j := 0; j < d-2; j++ {
		dst[j] = sd * rng.NormFloat64()
	}
	dst[d-2] = math.Log(gamma)
	dst[d-1] = math.Log(lambda)
}

// Init writes into dst the starting point of the SVGD reference code for
// this network, used by SVGD and MMD-FW alike: W1 ~ N(0, 1/(p+1)) and
// w2 ~ N(0, 1/(H+1)) elementwise, b1 = 0, b2 = 0; λ is drawn from
// numpy's gamma(A0, B0), whose second argument is a scale (mean A0·B0 =
// 0.1, not the prior's mean A0/B0 = 10); γ is drawn the same way and then
// replaced by the inverse mean squared residual of this initial network on
// min(N, 1000) training rows drawn without replacement:
// log γ = −log mean((f(xᵢ) − yᵢ)²).
func (m *BNN) Init(rng *rand.Rand, dst []float64) {
	d := m.Dim()
	if len(dst) != d {
		panic("model: dimension mismatch")
	}
	p, h := m.p, m.h
	s1 := 1 / math.Sqrt(float64(p+1))
	for j := 0; j < p*h; j++ {
		dst[j] = s1 * rng.NormFloat64()
	}
	for k := 0; k < h; k++ {
		dst[p*h+k] = 0
	}
	s2 := 1 / math.Sqrt(float64(h+1))
	for k := 0; k < h; k++ {
		dst[p*h+h+k] = s2 * rng.NormFloat64()
	}
	dst[p*h+2*h] = 0
	g := distuv.Gamma{Alpha: m.A0, Beta: 1 / m.B0, Src: rng}
	_ = g.Rand() // γ's draw, overwritten below as in the reference
	dst[d-1] = math.Log(g.Rand())

	// Partial Fisher–Yates: the first k entries of idx become a uniform
	// sample without replacement.
	k := min(m.n, 1000)
	idx := make([]int, m.n)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + rng.IntN(m.n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	a := make([]float64, h)
	var mse float64
	for _, i := range idx[:k] {
		r := m.forward(m.x.Data[i*m.x.Stride:i*m.x.Stride+p], dst, a) - m.y[i]
		mse += r * r
	}
	mse /= float64(k)
	dst[d-2] = -math.Log(mse)
}

// bnnBlockRows returns the rows per block of a batched evaluation whose
// hidden layer has width nh (particles × H): the block stays near 8 MB.
func bnnBlockRows(nh, rows int) int {
	b := (1 << 20) / max(nh, 1)
	b = max(b, 16)
	return min(b, max(rows, 1))
}

// packW1 gathers the first-layer weights of every particle side by side into
// a p×(nH) matrix, so that one product X·W gives every hidden layer.
func (m *BNN) packW1(xs *mat.Dense) blas64.General {
	n, _ := xs.Dims()
	p, h := m.p, m.h
	nh := n * h
	W := blas64.General{Rows: p, Cols: nh, Stride: nh, Data: make([]float64, p*nh)}
	for i := 0; i < n; i++ {
		th := xs.RawRowView(i)
		for j := 0; j < p; j++ {
			copy(W.Data[j*nh+i*h:j*nh+i*h+h], th[j*h:j*h+h])
		}
	}
	return W
}

// LogProbGradBatch writes into row i of grads and into lp[i] what
// LogProbGrad gives for row i of xs (n×d), bit for bit: one chunked
// full-data pass per particle, each already split over Workers goroutines
// (X, N×p, stays in cache between particles). It allocates nothing in
// steady state.
func (m *BNN) LogProbGradBatch(xs, grads *mat.Dense, lp []float64) {
	n, d := xs.Dims()
	if d != m.Dim() {
		panic("model: dimension mismatch")
	}
	if r, c := grads.Dims(); r != n || c != d || len(lp) != n {
		panic("model: dimension mismatch")
	}
	for i := 0; i < n; i++ {
		lp[i] = m.LogProbGrad(xs.RawRowView(i), grads.RawRowView(i))
	}
}

// bnnPredict computes, for blocks of test rows dealt round-robin to the
// workers, the standardised outputs f_k(xₜ) of every particle into a
// block×n matrix and hands it to f. Each worker owns its buffers.
type bnnPredict struct {
	m       *BNN
	X       blas64.General
	xs      *mat.Dense
	W       blas64.General
	B       int
	nblocks int
	workers int
	f       func(lo int, F blas64.General)
	wg      sync.WaitGroup
}

func (s *bnnPredict) run(k int) {
	m := s.m
	n, _ := s.xs.Dims()
	p, h := m.p, m.h
	nh := n * h
	abuf := make([]float64, s.B*nh)
	fbuf := make([]float64, s.B*n)
	for blk := k; blk < s.nblocks; blk += s.workers {
		lo := blk * s.B
		hi := min(lo+s.B, s.X.Rows)
		A := blas64.General{Rows: hi - lo, Cols: nh, Stride: nh, Data: abuf}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, rowsView(s.X, lo, hi), s.W, 0, A)
		for r := 0; r < hi-lo; r++ {
			ar := abuf[r*nh : r*nh+nh]
			for i := 0; i < n; i++ {
				th := s.xs.RawRowView(i)
				b1 := th[p*h : p*h+h]
				w2 := th[p*h+h : p*h+2*h]
				f := th[p*h+2*h]
				for kk, v := range ar[i*h : i*h+h] {
					b := math.Float64bits(v + b1[kk])
					b &^= uint64(int64(b) >> 63) // ReLU as in reluDot
					f += w2[kk] * math.Float64frombits(b)
				}
				fbuf[r*n+i] = f
			}
		}
		s.f(lo, blas64.General{Rows: hi - lo, Cols: n, Stride: n, Data: fbuf})
	}
}

func (m *BNN) eachBlock(X, particles *mat.Dense, f func(lo int, F blas64.General)) {
	nt, p := X.Dims()
	n, d := particles.Dims()
	if p != m.p || d != m.Dim() {
		panic("model: dimension mismatch")
	}
	s := &bnnPredict{m: m, X: X.RawMatrix(), xs: particles, W: m.packW1(particles), B: bnnBlockRows(n*m.h, nt), f: f}
	s.nblocks = (nt + s.B - 1) / s.B
	s.workers = min(workerCount(m.Workers, nt, 1), s.nblocks)
	parallel(s.workers, s, &s.wg)
}

// Outputs writes the standardised network output f_k(xₜ) of every particle
// k (a row of particles) at every row t of the standardised features X into
// dst[k, t] (particles × rows of X; allocated when nil) and returns it. The
// outputs are on the model's standardised scale of y, so they compare across
// particle sets of the same split whatever their weights; as functions of
// the inputs they do not depend on the order of the hidden units.
func (m *BNN) Outputs(dst, X, particles *mat.Dense) *mat.Dense {
	nt, _ := X.Dims()
	n, _ := particles.Dims()
	if dst == nil {
		dst = mat.NewDense(n, nt, nil)
	}
	if r, c := dst.Dims(); r != n || c != nt {
		panic("model: dst dimensions do not match the particles and the rows of X")
	}
	if nt == 0 || n == 0 {
		return dst
	}
	m.eachBlock(X, particles, func(lo int, F blas64.General) {
		for r := 0; r < F.Rows; r++ {
			for k, f := range F.Data[r*F.Stride : r*F.Stride+F.Cols] {
				dst.Set(k, lo+r, f)
			}
		}
	})
	return dst
}

// Predict writes the weighted mean prediction Σₖ wₖ ŷₖ(xₜ) of every row of
// the standardised test features X on the original scale of y,
// ŷ = f(x)·ySD + yMean, into dst (allocated when nil) and returns it.
func (m *BNN) Predict(dst []float64, X, particles *mat.Dense, weights []float64, yMean, ySD float64) []float64 {
	nt, _ := X.Dims()
	if n, _ := particles.Dims(); len(weights) != n {
		panic("model: weights length does not match the particles")
	}
	if dst == nil {
		dst = make([]float64, nt)
	}
	if len(dst) != nt {
		panic("model: dst length does not match the rows of X")
	}
	if nt == 0 {
		return dst
	}
	m.eachBlock(X, particles, func(lo int, F blas64.General) {
		for r := 0; r < F.Rows; r++ {
			var s float64
			for k, f := range F.Data[r*F.Stride : r*F.Stride+F.Cols] {
				s += weights[k] * (f*ySD + yMean)
			}
			dst[lo+r] = s
		}
	})
	return dst
}

// Metrics returns, on the original scale of y (yTest in original units, X
// standardised with the training statistics yMean and ySD of y's
// standardisation applied to the outputs), the RMSE of the weighted mean
// prediction Σₖ wₖ ŷₖ(x) and the mean test log-likelihood
// meanₜ log Σₖ wₖ N(yₜ | ŷₖ(xₜ), ySD²/γₖ), summed in log space.
func (m *BNN) Metrics(X *mat.Dense, yTest []float64, particles *mat.Dense, weights []float64, yMean, ySD float64) (rmse, logLik float64) {
	nt, _ := X.Dims()
	n, _ := particles.Dims()
	if len(yTest) != nt {
		panic("model: length of y does not match the rows of X")
	}
	if len(weights) != n {
		panic("model: weights length does not match the particles")
	}
	if nt == 0 {
		return math.NaN(), math.NaN()
	}
	inv2v, lc := metricConstants(particles, ySD)
	B := bnnBlockRows(n*m.h, nt)
	nb := (nt + B - 1) / B
	sses := make([]float64, nb)
	lls := make([]float64, nb)
	m.eachBlock(X, particles, func(lo int, F blas64.General) {
		sses[lo/B], lls[lo/B] = metricsBlock(F, yTest[lo:lo+F.Rows], weights, lc, inv2v, make([]float64, n), yMean, ySD)
	})
	return metricsTotal(sses, lls, nt)
}

// metricConstants returns, per particle, 1/(2v) and −½ log 2πv for the
// predictive variance v = ySD²/γₖ on the original scale of y (log γₖ is the
// particle's next-to-last coordinate).
func metricConstants(particles *mat.Dense, ySD float64) (inv2v, lc []float64) {
	n, d := particles.Dims()
	inv2v = make([]float64, n)
	lc = make([]float64, n)
	for k := 0; k < n; k++ {
		lg := particles.At(k, d-2)
		v := ySD * ySD * math.Exp(-lg)
		inv2v[k] = 1 / (2 * v)
		lc[k] = -0.5 * math.Log(2*math.Pi*v)
	}
	return inv2v, lc
}

// metricsBlock returns the sums over the rows of F (standardised outputs,
// rows × particles, at rows with responses yt) of the squared error of the
// weighted mean prediction and of the log-likelihood of the mixture; l is
// scratch of one entry per particle.
func metricsBlock(F blas64.General, yt, weights, lc, inv2v, l []float64, yMean, ySD float64) (sse, ll float64) {
	for r := 0; r < F.Rows; r++ {
		y := yt[r]
		var mean float64
		for k, f := range F.Data[r*F.Stride : r*F.Stride+F.Cols] {
			yh := f*ySD + yMean
			mean += weights[k] * yh
			e := y - yh
			l[k] = lc[k] - e*e*inv2v[k]
		}
		e := y - mean
		sse += e * e
		ll += logWeightedSum(weights, l)
	}
	return sse, ll
}

// metricsTotal adds the blocks' sums in block order and returns the RMSE
// and the mean log-likelihood over nt rows.
func metricsTotal(sses, lls []float64, nt int) (rmse, logLik float64) {
	var sse, ll float64
	for b := range sses {
		sse += sses[b]
		ll += lls[b]
	}
	return math.Sqrt(sse / float64(nt)), ll / float64(nt)
}

// bnnChunk returns the particles per chunk of a batched minibatch pass of
// width h: the most whose hidden layers fit in 256 columns, preferring a
// count whose columns are a multiple of 8 (whole 4×8 blocks of the product
// kernel) when one exists with at least half the columns.
func bnnChunk(h int) int {
	c := max(1, 256/h)
	for k := c; k >= 1 && 2*k >= c; k-- {
		if k*h%8 == 0 {
			return k
		}
	}
	return c
}
