package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/par"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Interface checks.
var (
	_ target.Stochastic   = (*Logistic)(nil)
	_ target.Batched      = (*Logistic)(nil)
	_ target.PriorSampler = (*Logistic)(nil)
	_ target.Stochastic   = (*BNN)(nil)
	_ target.Batched      = (*BNN)(nil)
	_ target.PriorSampler = (*BNN)(nil)

	_ target.StochasticBatched = (*Logistic)(nil)
	_ target.StochasticBatched = (*BNN)(nil)
)

// fdTol is the finite-difference criterion: coordinate j passes when
// |gⱼ − fdⱼ| ≤ fdTol·max(|fdⱼ|, 1), i.e. a relative error below 1e-5 for
// derivatives of magnitude ≥ 1 and an absolute error below 1e-5 for smaller
// ones, where a relative error would measure only round-off of f/h.
const fdTol = 1e-5

// checkFD compares grad, the gradient that f reports at x, with central
// differences of f with step h in every coordinate.
func checkFD(t *testing.T, name string, f func(x, g []float64) float64, x []float64, h float64) {
	t.Helper()
	d := len(x)
	grad := make([]float64, d)
	f(x, grad)
	xp := append([]float64(nil), x...)
	scratch := make([]float64, d)
	for j := 0; j < d; j++ {
		xp[j] = x[j] + h
		fp := f(xp, scratch)
		xp[j] = x[j] - h
		fm := f(xp, scratch)
		xp[j] = x[j]
		fd := (fp - fm) / (2 * h)
		if err := math.Abs(grad[j]-fd) / math.Max(math.Abs(fd), 1); !(err < fdTol) {
			t.Errorf("%s: coordinate %d of %d: gradient %.10g, finite difference %.10g, error %.3g", name, j, d, grad[j], fd, err)
		}
	}
}

func randVec(rng *rand.Rand, d int, sd float64) []float64 {
	x := make([]float64, d)
	for j := range x {
		x[j] = sd * rng.NormFloat64()
	}
	return x
}

func TestLogisticGradFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	X, y := synthLogistic(rng, 300, 6)
	m := NewLogistic(X, y)
	m.Workers = 3 // blocks smaller than lrMinRows: one worker; forced below
	for trial := 0; trial < 5; trial++ {
		x := randVec(rng, m.Dim(), 1)
		x[m.Dim()-1] = rng.NormFloat64() // log α
		checkFD(t, "full", m.LogProbGrad, x, 1e-5)
		batch := make([]int, 17)
		for i := range batch {
			batch[i] = rng.IntN(m.NData()) // repeats allowed
		}
		checkFD(t, "minibatch", func(x, g []float64) float64 { return m.MinibatchLogProbGrad(x, g, batch) }, x, 1e-5)
	}
}

func TestLogisticGradFDParallel(t *testing.T) {
	// Enough rows that the full-data pass really splits over workers.
	rng := rand.New(rand.NewPCG(1, 2))
	X, y := synthLogistic(rng, 3*lrMinRows+5, 4)
	m := NewLogistic(X, y)
	m.Workers = 3
	x := randVec(rng, m.Dim(), 0.5)
	checkFD(t, "full, 3 workers", m.LogProbGrad, x, 1e-5)
}

// awayFromKinks redraws x until every hidden pre-activation of every
// training row is at least margin away from 0, so that a finite-difference
// step cannot cross the ReLU kink.
func awayFromKinks(rng *rand.Rand, m *BNN, margin float64) []float64 {
	p, h := m.p, m.h
	for {
		x := randVec(rng, m.Dim(), 0.8)
		x[m.Dim()-2] = rng.NormFloat64()
		x[m.Dim()-1] = rng.NormFloat64()
		ok := true
		for i := 0; i < m.n && ok; i++ {
			for k := 0; k < h; k++ {
				a := x[p*h+k]
				for j := 0; j < p; j++ {
					a += m.x.Data[i*m.x.Stride+j] * x[j*h+k]
				}
				if math.Abs(a) < margin {
					ok = false
					break
				}
			}
		}
		if ok {
			return x
		}
	}
}

func synthBNN(rng *rand.Rand, n, p int) (*mat.Dense, []float64) {
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			s += math.Sin(v * float64(j+1))
		}
		y[i] = s + 0.3*rng.NormFloat64()
	}
	return X, y
}

func TestBNNGradFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	X, y := synthBNN(rng, 60, 3)
	m := NewBNN(X, y, 5)
	for trial := 0; trial < 5; trial++ {
		x := awayFromKinks(rng, m, 1e-3)
		checkFD(t, "full", m.LogProbGrad, x, 1e-6)
		batch := make([]int, 13)
		for i := range batch {
			batch[i] = rng.IntN(m.NData())
		}
		checkFD(t, "minibatch", func(x, g []float64) float64 { return m.MinibatchLogProbGrad(x, g, batch) }, x, 1e-6)
	}
}

func TestBNNGradFDParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	X, y := synthBNN(rng, 3*bnnMinRows+7, 2)
	m := NewBNN(X, y, 4)
	m.Workers = 3
	x := awayFromKinks(rng, m, 1e-3)
	checkFD(t, "full, 3 workers", m.LogProbGrad, x, 1e-6)
}

// TestBNNFullGradChunks: the chunked full-data gradient on several chunks
// (the last one partial) and hidden widths on and off the four-lane blocks
// gives the same bits on 1, 2 and 3 workers, matches the row-by-row
// minibatch path run over every row, equals LogProbGradBatch's rows bit for
// bit (which allocates nothing); and finite differences on two chunks.
func TestBNNFullGradChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, h := range []int{4, 10, 50} {
		X, y := synthBNN(rng, 3*bnnChunkRows+7, 5)
		m := NewBNN(X, y, h)
		x := randVec(rng, m.Dim(), 0.8)
		d := m.Dim()
		want := make([]float64, d)
		m.Workers = 1
		lp1 := m.LogProbGrad(x, want)
		g := make([]float64, d)
		for _, w := range []int{2, 3} {
			m.Workers = w
			if lp := m.LogProbGrad(x, g); math.Float64bits(lp) != math.Float64bits(lp1) {
				t.Errorf("H=%d, %d workers: log density %v, 1 worker %v", h, w, lp, lp1)
			}
			for j := range g {
				if math.Float64bits(g[j]) != math.Float64bits(want[j]) {
					t.Fatalf("H=%d, %d workers: coordinate %d: %v, 1 worker %v", h, w, j, g[j], want[j])
				}
			}
		}
		all := make([]int, m.NData())
		for i := range all {
			all[i] = i
		}
		xs := mat.NewDense(3, d, nil)
		for i := 0; i < 3; i++ {
			xs.SetRow(i, randVec(rng, d, 0.8))
		}
		grads := mat.NewDense(3, d, nil)
		lps := make([]float64, 3)
		m.LogProbGradBatch(xs, grads, lps)
		for i := 0; i < 3; i++ {
			if lp := m.LogProbGrad(xs.RawRowView(i), g); math.Float64bits(lp) != math.Float64bits(lps[i]) {
				t.Errorf("H=%d particle %d: batched log density %v, single %v", h, i, lps[i], lp)
			}
			for j := range g {
				if math.Float64bits(g[j]) != math.Float64bits(grads.At(i, j)) {
					t.Fatalf("H=%d particle %d coordinate %d: batched %v, single %v", h, i, j, grads.At(i, j), g[j])
				}
			}
		}
		if a := race.AllocsPerRun(t, 5, func() { m.LogProbGradBatch(xs, grads, lps) }); a != 0 {
			t.Errorf("H=%d: LogProbGradBatch makes %v allocations per call, want 0", h, a)
		}
		lpr := m.MinibatchLogProbGrad(x, g, all)
		if math.Abs(lpr-lp1) > 1e-10*math.Max(1, math.Abs(lp1)) {
			t.Errorf("H=%d: log density %.15g, row by row %.15g", h, lp1, lpr)
		}
		for j := range g {
			if math.Abs(g[j]-want[j]) > 1e-9*math.Max(1, math.Abs(want[j])) {
				t.Errorf("H=%d coordinate %d: chunked %.15g, row by row %.15g", h, j, want[j], g[j])
			}
		}
	}
	// Two chunks and a width with a four-lane block and a tail.
	X, y := synthBNN(rng, bnnChunkRows+44, 3)
	m := NewBNN(X, y, 6)
	m.Workers = 2
	checkFD(t, "chunked full", m.LogProbGrad, awayFromKinks(rng, m, 1e-3), 1e-6)
}

// checkUnbiased splits a permutation of all rows into equal batches and
// checks that the average of the minibatch estimates (log density and
// gradient) equals the full-data value.
func checkUnbiased(t *testing.T, s target.Stochastic, x []float64, nb int, rng *rand.Rand) {
	t.Helper()
	n, d := s.NData(), s.Dim()
	if n%nb != 0 {
		t.Fatalf("%d rows do not split into %d batches", n, nb)
	}
	perm := rng.Perm(n)
	size := n / nb
	avg := make([]float64, d)
	g := make([]float64, d)
	var lp float64
	for b := 0; b < nb; b++ {
		lp += s.MinibatchLogProbGrad(x, g, perm[b*size:(b+1)*size]) / float64(nb)
		for j := range g {
			avg[j] += g[j] / float64(nb)
		}
	}
	full := make([]float64, d)
	want := s.LogProbGrad(x, full)
	if math.Abs(lp-want) > 1e-10*math.Max(1, math.Abs(want)) {
		t.Errorf("mean minibatch log density %.15g, full %.15g", lp, want)
	}
	for j := range full {
		if math.Abs(avg[j]-full[j]) > 1e-10*math.Max(1, math.Abs(full[j])) {
			t.Errorf("coordinate %d: mean minibatch gradient %.15g, full %.15g", j, avg[j], full[j])
		}
	}
}

func TestMinibatchUnbiased(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	X, y := synthLogistic(rng, 300, 5)
	lr := NewLogistic(X, y)
	checkUnbiased(t, lr, randVec(rng, lr.Dim(), 1), 6, rng)
	Xb, yb := synthBNN(rng, 120, 3)
	bnn := NewBNN(Xb, yb, 7)
	checkUnbiased(t, bnn, randVec(rng, bnn.Dim(), 0.7), 8, rng)
}

// TestLogisticHand checks the log density on a case worked out by hand:
// X = [[1, 1], [−2, 1]], y = [+1, −1], w = (0.5, −0.25), α = 2.
//
//	logits yᵢwᵀxᵢ = 0.25, 1.25
//	Σ log σ = −log(1+e^−0.25) − log(1+e^−1.25) = −0.827868501224216
//	log Gamma(2 | 1, 0.01) + log 2 = log 0.01 − 0.02 + log 2 = −3.93202300542815
//	Σ log N(wⱼ | 0, 1/2) = −log π − 0.3125 = −1.4572298858494
//	total −6.21712139250176
func TestLogisticHand(t *testing.T) {
	X := mat.NewDense(2, 2, []float64{1, 1, -2, 1})
	m := NewLogistic(X, []float64{1, -1})
	x := []float64{0.5, -0.25, math.Log(2)}
	g := make([]float64, 3)
	got := m.LogProbGrad(x, g)
	const want = -6.21712139250176
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("log density %.15g, want %.15g", got, want)
	}
	// The same from independent densities.
	alpha := 2.0
	indep := math.Log(1/(1+math.Exp(-0.25))) + math.Log(1/(1+math.Exp(-1.25))) +
		distuv.Gamma{Alpha: 1, Beta: 0.01}.LogProb(alpha) + math.Log(alpha) +
		distuv.Normal{Sigma: math.Sqrt(1 / alpha)}.LogProb(0.5) +
		distuv.Normal{Sigma: math.Sqrt(1 / alpha)}.LogProb(-0.25)
	if math.Abs(got-indep) > 1e-12 {
		t.Errorf("log density %.15g, independent formula %.15g", got, indep)
	}
	// Gradient by hand: ∂w = Σ yᵢσ(−uᵢ)xᵢ − αw, ∂log α = p/2 + 1 − α(‖w‖²/2 + 0.01).
	s1, s2 := 1/(1+math.Exp(0.25)), 1/(1+math.Exp(1.25))
	wantG := []float64{
		s1*1 + (-1)*s2*(-2) - alpha*0.5,
		s1 - s2 - alpha*(-0.25),
		1 + 1 - alpha*(0.3125/2+0.01),
	}
	for j := range g {
		if math.Abs(g[j]-wantG[j]) > 1e-12 {
			t.Errorf("gradient %d: %.15g, want %.15g", j, g[j], wantG[j])
		}
	}
}

// TestBNNHand checks the log density on a case worked out by hand: p = 1,
// H = 2, X = [[1], [−2]], y = [2, 0], W1 = [1, −1], b1 = [0.5, 0.5],
// w2 = [2, −1], b2 = 0.1, γ = 4, λ = 0.5.
//
//	row 1: pre-activations (1.5, −0.5) → f = 0.1 + 2·1.5 = 3.1, r = −1.1
//	row 2: pre-activations (−1.5, 2.5) → f = 0.1 − 2.5 = −2.4, r = 2.4
//	Σ log N(rᵢ | 0, 1/4) = −14.3915827052895
//	Σ log N(θₖ | 0, 2) over the 7 weights = −10.7360848643925
//	log Gamma(4 | 1, 0.1) + log 4 = −1.31629073187415
//	log Gamma(0.5 | 1, 0.1) + log 0.5 = −3.04573227355399
//	total −29.4896905751101
func TestBNNHand(t *testing.T) {
	X := mat.NewDense(2, 1, []float64{1, -2})
	m := NewBNN(X, []float64{2, 0}, 2)
	x := []float64{1, -1, 0.5, 0.5, 2, -1, 0.1, math.Log(4), math.Log(0.5)}
	g := make([]float64, m.Dim())
	got := m.LogProbGrad(x, g)
	const want = -29.4896905751101
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("log density %.15g, want %.15g", got, want)
	}
	nrm := func(v, sd float64) float64 { return distuv.Normal{Sigma: sd}.LogProb(v) }
	indep := nrm(-1.1, 0.5) + nrm(2.4, 0.5)
	for _, w := range x[:7] {
		indep += nrm(w, math.Sqrt(2))
	}
	indep += distuv.Gamma{Alpha: 1, Beta: 0.1}.LogProb(4) + math.Log(4)
	indep += distuv.Gamma{Alpha: 1, Beta: 0.1}.LogProb(0.5) + math.Log(0.5)
	if math.Abs(got-indep) > 1e-12 {
		t.Errorf("log density %.15g, independent formula %.15g", got, indep)
	}
	// Backpropagation by hand, γ = 4, λ = 0.5: only unit 1 is active on
	// row 1 and only unit 2 on row 2.
	wantG := []float64{
		4*(-1.1*2*1) - 0.5*1,     // W1[0,0]: row 1 only, x = 1
		4*(2.4*-1*-2) - 0.5*(-1), // W1[0,1]: row 2 only, x = −2
		4*(-1.1*2) - 0.5*0.5,     // b1[0]
		4*(2.4*-1) - 0.5*0.5,     // b1[1]
		4*(-1.1*1.5) - 0.5*2,     // w2[0]
		4*(2.4*2.5) - 0.5*(-1),   // w2[1]
		4*(-1.1+2.4) - 0.5*0.1,   // b2
		1 - 2*(1.21+5.76) + 1 - 0.1*4,
		3.5 - 0.25*(1+1+0.25+0.25+4+1+0.01) + 1 - 0.1*0.5,
	}
	for j := range g {
		if math.Abs(g[j]-wantG[j]) > 1e-12 {
			t.Errorf("gradient %d: %.15g, want %.15g", j, g[j], wantG[j])
		}
	}
}

func checkBatched(t *testing.T, name string, tg interface {
	target.Target
	target.Batched
}, xs *mat.Dense) {
	t.Helper()
	n, d := xs.Dims()
	grads := mat.NewDense(n, d, nil)
	lp := make([]float64, n)
	tg.LogProbGradBatch(xs, grads, lp)
	g := make([]float64, d)
	for i := 0; i < n; i++ {
		want := tg.LogProbGrad(xs.RawRowView(i), g)
		if math.Abs(lp[i]-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%s particle %d: batched log density %.15g, single %.15g", name, i, lp[i], want)
		}
		for j := range g {
			if math.Abs(grads.At(i, j)-g[j]) > 1e-10*math.Max(1, math.Abs(g[j])) {
				t.Errorf("%s particle %d coordinate %d: batched %.15g, single %.15g", name, i, j, grads.At(i, j), g[j])
			}
		}
	}
}

func TestBatchedMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	X, y := synthLogistic(rng, 3000, 7)
	lr := NewLogistic(X, y)
	xs := mat.NewDense(9, lr.Dim(), nil)
	for i := 0; i < 9; i++ {
		xs.SetRow(i, randVec(rng, lr.Dim(), 1))
	}
	checkBatched(t, "logistic", lr, xs)

	Xb, yb := synthBNN(rng, 700, 4)
	bnn := NewBNN(Xb, yb, 6)
	xb := mat.NewDense(5, bnn.Dim(), nil)
	for i := 0; i < 5; i++ {
		xb.SetRow(i, randVec(rng, bnn.Dim(), 0.7))
	}
	checkBatched(t, "bnn", bnn, xb)
}

// checkMinibatchBatched compares MinibatchLogProbGradBatch with
// MinibatchLogProbGrad of every row of xs on the same batch.
func checkMinibatchBatched(t *testing.T, name string, tg target.StochasticBatched, xs *mat.Dense, batch []int) {
	t.Helper()
	n, d := xs.Dims()
	grads := mat.NewDense(n, d, nil)
	grads.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, grads) // must be overwritten
	lp := make([]float64, n)
	tg.MinibatchLogProbGradBatch(xs, grads, lp, batch)
	g := make([]float64, d)
	for i := 0; i < n; i++ {
		want := tg.MinibatchLogProbGrad(xs.RawRowView(i), g, batch)
		if !(math.Abs(lp[i]-want) <= 1e-10*math.Max(1, math.Abs(want))) {
			t.Errorf("%s particle %d: batched log density %.15g, single %.15g", name, i, lp[i], want)
		}
		for j := range g {
			if got := grads.At(i, j); !(math.Abs(got-g[j]) <= 1e-10*math.Max(1, math.Abs(g[j]))) {
				t.Errorf("%s particle %d coordinate %d: batched %.15g, single %.15g", name, i, j, got, g[j])
			}
		}
	}
}

// TestMinibatchBatchedMatchesSingle: the batched minibatch estimate equals the
// per-particle one, on one and two workers (a long batch for the logistic
// model's threshold), with several chunks of
// particles (the last one partial), batches longer than one serial product
// block (64 rows) and a batch with repeated indices; the logistic model with
// both its AVX2/FMA and its portable (gemm) kernels.
func TestMinibatchBatchedMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	X, y := synthLogistic(rng, 3000, 7)
	lr := NewLogistic(X, y)
	xs := mat.NewDense(200, lr.Dim(), nil)
	for i := 0; i < 200; i++ {
		xs.SetRow(i, randVec(rng, lr.Dim(), 1))
	}
	Xb, yb := synthBNN(rng, 700, 4)
	bnn := NewBNN(Xb, yb, 6)
	xb := mat.NewDense(40, bnn.Dim(), nil)
	for i := 0; i < 40; i++ {
		xb.SetRow(i, randVec(rng, bnn.Dim(), 0.7))
	}
	// 200 particles × 3200 rows × 7 features is twice lrBatchWork, so that
	// the logistic model's second worker runs too.
	for _, nb := range []int{150, 3, 3200} {
		batch := make([]int, nb)
		for k := range batch {
			batch[k] = rng.IntN(700)
		}
		batch[nb-1] = batch[0]
		for _, w := range []int{1, 2} {
			lr.Workers, bnn.Workers = w, w
			name := "batch " + itoa(nb) + " workers " + itoa(w)
			checkMinibatchBatched(t, "logistic "+name, lr, xs, batch)
			checkMinibatchBatched(t, "bnn "+name, bnn, xb, batch)
			if haveFMA {
				lrUseFMA = false
				checkMinibatchBatched(t, "logistic portable "+name, lr, xs, batch)
				lrUseFMA = true
			}
		}
	}
}

// TestMinibatchBatchedAllocatesNothing: SVGD-shaped calls reuse their
// scratch.
func TestMinibatchBatchedAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 3))
	X, y := synthLogistic(rng, 3000, 55)
	lr := NewLogistic(X, y)
	Xb, yb := synthBNN(rng, 700, 16)
	bnn := NewBNN(Xb, yb, 50)
	batch := make([]int, 100)
	for k := range batch {
		batch[k] = rng.IntN(700)
	}
	for _, c := range []struct {
		name string
		tg   target.StochasticBatched
		n    int
	}{{"logistic", lr, 100}, {"bnn", bnn, 20}} {
		d := c.tg.Dim()
		xs := mat.NewDense(c.n, d, nil)
		for i := 0; i < c.n; i++ {
			xs.SetRow(i, randVec(rng, d, 0.3))
		}
		grads := mat.NewDense(c.n, d, nil)
		lp := make([]float64, c.n)
		for _, fma := range []bool{haveFMA, false} {
			lrUseFMA = fma
			c.tg.MinibatchLogProbGradBatch(xs, grads, lp, batch)
			if a := race.AllocsPerRun(t, 20, func() { c.tg.MinibatchLogProbGradBatch(xs, grads, lp, batch) }); a != 0 {
				t.Errorf("%s (FMA kernels %v): %v allocations per call", c.name, fma, a)
			}
		}
		lrUseFMA = haveFMA
	}
}

// TestLogisticMetricsHand: test rows x = (0,1), (1,1), (−1,1) with labels
// +1, +1, −1; particle 1 has w = 0 (σ = 1/2 everywhere), particle 2 has
// w = (log 3, 0) (σ = 1/2, 3/4, 1/4); equal weights give p(+1|x) = 0.5,
// 0.625, 0.375, so the true-label probabilities are 0.5, 0.625, 0.625:
// accuracy 2/3 (0.5 is not above 1/2) and mean log-likelihood
// (log 0.5 + 2 log 0.625)/3 = −0.544384813017139.
func TestLogisticMetricsHand(t *testing.T) {
	train := mat.NewDense(1, 2, []float64{0, 1})
	m := NewLogistic(train, []float64{1})
	X := mat.NewDense(3, 2, []float64{0, 1, 1, 1, -1, 1})
	y := []float64{1, 1, -1}
	P := mat.NewDense(2, 3, []float64{0, 0, 0, math.Log(3), 0, 5})
	w := []float64{0.5, 0.5}
	prob := m.PredictProb(nil, X, P, w)
	for i, want := range []float64{0.5, 0.625, 0.375} {
		if math.Abs(prob[i]-want) > 1e-15 {
			t.Errorf("p(+1|x_%d) = %.17g, want %g", i, prob[i], want)
		}
	}
	acc, ll := m.Metrics(X, y, P, w)
	if acc != 2.0/3 {
		t.Errorf("accuracy %g, want 2/3", acc)
	}
	if math.Abs(ll-(-0.544384813017139)) > 1e-14 {
		t.Errorf("log-likelihood %.15g, want −0.544384813017139", ll)
	}
	// A logit of −800 for the true label underflows σ; the log-space path
	// returns log σ(−800) = −800 − log1p(e^−800) = −800.
	P1 := mat.NewDense(1, 3, []float64{0, -800, 0})
	_, ll = m.Metrics(mat.NewDense(1, 2, []float64{0, 1}), []float64{1}, P1, []float64{1})
	if ll != -800 {
		t.Errorf("log-likelihood at logit −800: %g, want −800", ll)
	}
}

// TestBNNMetricsHand: p = 1, H = 1; particle 1 computes f(x) = relu(x) with
// γ = 1, particle 2 computes 2 relu(x) with γ = 4; weights 1/4, 3/4;
// yMean = 10, ySD = 2. On test rows x = 1, −1 the original-scale outputs
// are (12, 14) and (10, 10); the weighted means are 13.5 and 10, so for
// yTest = (13, 11) the RMSE is √((0.25 + 1)/2) = 0.790569415042095. The
// predictive variances are 4/γ = 4 and 1, and
//
//	½[log(¼N(13|12,4) + ¾N(13|14,1)) + log(¼N(11|10,4) + ¾N(11|10,1))]
//	= −1.48949627829581.
func TestBNNMetricsHand(t *testing.T) {
	train := mat.NewDense(1, 1, []float64{0})
	m := NewBNN(train, []float64{0}, 1)
	X := mat.NewDense(2, 1, []float64{1, -1})
	P := mat.NewDense(2, 6, []float64{
		1, 0, 1, 0, 0, 0,
		1, 0, 2, 0, math.Log(4), 0,
	})
	w := []float64{0.25, 0.75}
	pred := m.Predict(nil, X, P, w, 10, 2)
	if pred[0] != 13.5 || pred[1] != 10 {
		t.Errorf("predictions %v, want [13.5 10]", pred)
	}
	rmse, ll := m.Metrics(X, []float64{13, 11}, P, w, 10, 2)
	if math.Abs(rmse-0.790569415042095) > 1e-15 {
		t.Errorf("RMSE %.15g, want 0.790569415042095", rmse)
	}
	if math.Abs(ll-(-1.48949627829581)) > 1e-13 {
		t.Errorf("log-likelihood %.15g, want −1.48949627829581", ll)
	}
}

// TestMetricsBlocks checks that the blocked, parallel metrics equal a
// direct per-row computation when the test set spans many blocks.
func TestMetricsBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	X, y := synthLogistic(rng, 9000, 5)
	m := NewLogistic(X, y)
	m.Workers = 2
	n := 70 // blocks of 3744 rows: three blocks
	P := mat.NewDense(n, m.Dim(), nil)
	w := make([]float64, n)
	for i := 0; i < n; i++ {
		P.SetRow(i, randVec(rng, m.Dim(), 1))
		w[i] = rng.Float64()
	}
	acc, ll := m.Metrics(X, y, P, w)
	var c int
	var wantLL float64
	for t := 0; t < 9000; t++ {
		var s float64
		for i := 0; i < n; i++ {
			var z float64
			for j := 0; j < 5; j++ {
				z += X.At(t, j) * P.At(i, j)
			}
			s += w[i] / (1 + math.Exp(-y[t]*z))
		}
		if s > 0.5 {
			c++
		}
		wantLL += math.Log(s)
	}
	if acc != float64(c)/9000 || math.Abs(ll-wantLL/9000) > 1e-12 {
		t.Errorf("blocked metrics (%g, %.15g), direct (%g, %.15g)", acc, ll, float64(c)/9000, wantLL/9000)
	}

	Xb, yb := synthBNN(rng, 5000, 3)
	bnn := NewBNN(Xb, yb, 8)
	bnn.Workers = 2
	nb := 40 // blocks of 3276 rows: two blocks
	Pb := mat.NewDense(nb, bnn.Dim(), nil)
	wb := make([]float64, nb)
	for i := 0; i < nb; i++ {
		Pb.SetRow(i, randVec(rng, bnn.Dim(), 0.5))
		wb[i] = 1 / float64(nb)
	}
	rmse, bll := bnn.Metrics(Xb, yb, Pb, wb, 3, 1.5)
	a := make([]float64, 8)
	var sse, wantB float64
	for t := 0; t < 5000; t++ {
		var mean, dens float64
		for i := 0; i < nb; i++ {
			yh := bnn.forward(Xb.RawRowView(t), Pb.RawRowView(i), a)*1.5 + 3
			mean += wb[i] * yh
			v := 1.5 * 1.5 / math.Exp(Pb.At(i, bnn.Dim()-2))
			dens += wb[i] * math.Exp(-(yb[t]-yh)*(yb[t]-yh)/(2*v)) / math.Sqrt(2*math.Pi*v)
		}
		sse += (yb[t] - mean) * (yb[t] - mean)
		wantB += math.Log(dens)
	}
	if math.Abs(rmse-math.Sqrt(sse/5000)) > 1e-12 || math.Abs(bll-wantB/5000) > 1e-10 {
		t.Errorf("blocked metrics (%.15g, %.15g), direct (%.15g, %.15g)", rmse, bll, math.Sqrt(sse/5000), wantB/5000)
	}
}

// TestConcurrent calls the gradients from several goroutines at once and
// requires bit-identical results to a serial call.
func TestConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	X, y := synthLogistic(rng, 2*lrMinRows+3, 5)
	lr := NewLogistic(X, y)
	lr.Workers = 2
	Xb, yb := synthBNN(rng, 2*bnnMinRows+3, 3)
	bnn := NewBNN(Xb, yb, 5)
	bnn.Workers = 2
	batch := []int{0, 5, 9, 2, 2, 100}
	for _, tg := range []target.Stochastic{lr, bnn} {
		d := tg.Dim()
		xs := make([][]float64, 4)
		want := make([][]float64, 4)
		wantMB := make([][]float64, 4)
		wantLP := make([]float64, 4)
		for k := range xs {
			xs[k] = randVec(rng, d, 0.5)
			want[k] = make([]float64, d)
			wantMB[k] = make([]float64, d)
			wantLP[k] = tg.LogProbGrad(xs[k], want[k])
			tg.MinibatchLogProbGrad(xs[k], wantMB[k], batch)
		}
		var wg sync.WaitGroup
		errs := make([]string, 8)
		for gr := 0; gr < 8; gr++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g := make([]float64, d)
				for rep := 0; rep < 10; rep++ {
					k := (gr + rep) % 4
					if lp := tg.LogProbGrad(xs[k], g); lp != wantLP[k] || !slices.Equal(g, want[k]) {
						errs[gr] = "full-data result differs"
					}
					tg.MinibatchLogProbGrad(xs[k], g, batch)
					if !slices.Equal(g, wantMB[k]) {
						errs[gr] = "minibatch result differs"
					}
				}
			}()
		}
		wg.Wait()
		for gr, e := range errs {
			if e != "" {
				t.Errorf("dim %d goroutine %d: %s", d, gr, e)
			}
		}
	}
}

// TestSamplePrior checks prior moments: α, γ, λ have mean A0/B0 and
// α·wⱼ² (λ·θₖ²) is χ²₁ with mean 1, within 4 Monte Carlo standard errors.
func TestSamplePrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	const draws = 20000
	X, y := synthLogistic(rng, 10, 4)
	lr := NewLogistic(X, y)
	x := make([]float64, lr.Dim())
	var sa, sw float64
	for r := 0; r < draws; r++ {
		lr.SamplePrior(rng, x)
		a := math.Exp(x[4])
		sa += a
		for _, w := range x[:4] {
			sw += a * w * w
		}
	}
	if m, se := sa/draws, 100/math.Sqrt(draws); math.Abs(m-100) > 4*se {
		t.Errorf("mean α %g, want 100 ± %g", m, 4*se)
	}
	if m, se := sw/(4*draws), math.Sqrt(2.0/(4*draws)); math.Abs(m-1) > 4*se {
		t.Errorf("mean α w² %g, want 1 ± %g", m, 4*se)
	}
	Xb, yb := synthBNN(rng, 10, 2)
	bnn := NewBNN(Xb, yb, 3)
	d := bnn.Dim()
	xb := make([]float64, d)
	var sg, sl, sth float64
	for r := 0; r < draws; r++ {
		bnn.SamplePrior(rng, xb)
		sg += math.Exp(xb[d-2])
		l := math.Exp(xb[d-1])
		sl += l
		for _, w := range xb[:d-2] {
			sth += l * w * w
		}
	}
	se := 10 / math.Sqrt(draws)
	if m := sg / draws; math.Abs(m-10) > 4*se {
		t.Errorf("mean γ %g, want 10 ± %g", m, 4*se)
	}
	if m := sl / draws; math.Abs(m-10) > 4*se {
		t.Errorf("mean λ %g, want 10 ± %g", m, 4*se)
	}
	k := float64(d - 2)
	if m, se := sth/(k*draws), math.Sqrt(2/(k*draws)); math.Abs(m-1) > 4*se {
		t.Errorf("mean λθ² %g, want 1 ± %g", m, 4*se)
	}
}

// TestBNNInit checks the reference initialisation: with N ≤ 1000 the
// residual subset is every row, so log γ = −log mean residual² exactly;
// biases are zero; W1 and w2 have variances 1/(p+1) and 1/(H+1); λ has the
// numpy gamma(1, 0.1) mean 0.1.
func TestBNNInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	X, y := synthBNN(rng, 50, 3)
	m := NewBNN(X, y, 4)
	p, h, d := 3, 4, m.Dim()
	x := make([]float64, d)
	a := make([]float64, h)
	const inits = 4000
	var sl, s1, s2 float64
	for r := 0; r < inits; r++ {
		m.Init(rng, x)
		var mse float64
		for i := 0; i < 50; i++ {
			e := m.forward(X.RawRowView(i), x, a) - y[i]
			mse += e * e / 50
		}
		if math.Abs(x[d-2]+math.Log(mse)) > 1e-12 {
			t.Fatalf("log γ = %g, want −log %g", x[d-2], mse)
		}
		for k := 0; k < h; k++ {
			if x[p*h+k] != 0 {
				t.Fatal("b1 not zero")
			}
		}
		if x[p*h+2*h] != 0 {
			t.Fatal("b2 not zero")
		}
		for _, w := range x[:p*h] {
			s1 += w * w
		}
		for _, w := range x[p*h+h : p*h+2*h] {
			s2 += w * w
		}
		sl += math.Exp(x[d-1])
	}
	if m, se := sl/inits, 0.1/math.Sqrt(inits); math.Abs(m-0.1) > 4*se {
		t.Errorf("mean λ %g, want 0.1 ± %g", m, 4*se)
	}
	n1 := float64(inits * p * h)
	if v, se := s1/n1, math.Sqrt(2/n1)/4; math.Abs(v-0.25) > 4*se {
		t.Errorf("W1 variance %g, want 0.25 ± %g", v, 4*se)
	}
	n2 := float64(inits * h)
	if v, se := s2/n2, math.Sqrt(2/n2)/5; math.Abs(v-0.2) > 4*se {
		t.Errorf("w2 variance %g, want 0.2 ± %g", v, 4*se)
	}
}

func TestLog1p(t *testing.T) {
	for _, x := range []float64{0, 1e-300, 1e-17, 1e-16, 3e-16, 1e-10, 1e-5, 0.01, 0.3, 0.5, 0.7788007830714049, 1} {
		got, want := log1p(x), math.Log1p(x)
		if d := math.Abs(got - want); d > 4e-16*math.Abs(want) {
			t.Errorf("log1p(%g) = %.17g, math.Log1p %.17g", x, got, want)
		}
	}
	for _, u := range []float64{-800, -30, -1, -1e-9, 0, 1e-9, 1, 30, 800} {
		ls, sn := logSigmoidPair(u)
		wantLS := -math.Log1p(math.Exp(-u))
		if u < -700 {
			wantLS = u
		}
		wantSN := 1 / (1 + math.Exp(u))
		if math.Abs(ls-wantLS) > 1e-15*math.Max(1, math.Abs(wantLS)) || math.Abs(sn-wantSN) > 1e-15*wantSN {
			t.Errorf("logSigmoidPair(%g) = (%g, %g), want (%g, %g)", u, ls, sn, wantLS, wantSN)
		}
	}
}

// TestLogisticBatchedBitIdentical checks that LogProbGradBatch gives every
// particle exactly what LogProbGrad gives it, on the row kernels of this
// build and, where AVX2/FMA are used, on the portable ones too, with one
// and with two workers, on data whose rows end inside a tile and a chunk,
// and that it allocates nothing once its scratch exists.
func TestLogisticBatchedBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	X, y := synthLogistic(rng, 3*lrMinRows+lrTile+3, 9)
	lr := NewLogistic(X, y)
	n := 11
	xs := mat.NewDense(n, lr.Dim(), nil)
	for i := 0; i < n; i++ {
		xs.SetRow(i, randVec(rng, lr.Dim(), 0.5))
	}
	grads := mat.NewDense(n, lr.Dim(), nil)
	lp := make([]float64, n)
	g := make([]float64, lr.Dim())
	defer func(v bool) { lrUseFMA = v }(lrUseFMA)
	for _, fma := range []bool{false, haveFMA} {
		lrUseFMA = fma
		for _, workers := range []int{1, 2} {
			lr.Workers = workers
			lr.LogProbGradBatch(xs, grads, lp)
			for i := 0; i < n; i++ {
				want := lr.LogProbGrad(xs.RawRowView(i), g)
				if lp[i] != want {
					t.Errorf("fma=%v workers=%d particle %d: batched log density %.17g, single %.17g", fma, workers, i, lp[i], want)
				}
				for j := range g {
					if grads.At(i, j) != g[j] {
						t.Errorf("fma=%v workers=%d particle %d coordinate %d: batched %.17g, single %.17g", fma, workers, i, j, grads.At(i, j), g[j])
					}
				}
			}
			if a := race.AllocsPerRun(t, 5, func() { lr.LogProbGradBatch(xs, grads, lp) }); a != 0 {
				t.Errorf("fma=%v workers=%d: %v allocations per call, want 0", fma, workers, a)
			}
		}
	}
}

// TestBNNOutputs: Outputs agrees with the per-particle forward pass at every
// input, and with Predict for one-hot weights (ySD = 1, yMean = 0), and does
// not change when the hidden units of a particle are permuted.
func TestBNNOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nt, p, h, n = 37, 4, 7, 5
	X := mat.NewDense(nt, p, nil)
	for i := 0; i < nt; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	m := NewBNN(X, make([]float64, nt), h)
	P := mat.NewDense(n, m.Dim(), nil)
	for k := 0; k < n; k++ {
		m.Init(rng, P.RawRowView(k))
	}
	F := m.Outputs(nil, X, P)
	a := make([]float64, h)
	w := make([]float64, n)
	for k := 0; k < n; k++ {
		for i := 0; i < nt; i++ {
			if got, want := F.At(k, i), m.forward(X.RawRowView(i), P.RawRowView(k), a); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("particle %d input %d: Outputs %v, forward %v", k, i, got, want)
			}
		}
		clear(w)
		w[k] = 1
		pred := m.Predict(nil, X, P, w, 0, 1)
		for i, v := range pred {
			if math.Abs(v-F.At(k, i)) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("particle %d input %d: Outputs %v, Predict %v", k, i, F.At(k, i), v)
			}
		}
	}
	// Permute the hidden units of every particle: columns of W1, and b1
	// and w2 alike.
	perm := rng.Perm(h)
	Q := mat.NewDense(n, m.Dim(), nil)
	for k := 0; k < n; k++ {
		src, dst := P.RawRowView(k), Q.RawRowView(k)
		copy(dst, src)
		for j, pj := range perm {
			for f := 0; f < p; f++ {
				dst[f*h+j] = src[f*h+pj]
			}
			dst[m.offB1()+j] = src[m.offB1()+pj]
			dst[m.offW2()+j] = src[m.offW2()+pj]
		}
	}
	G := m.Outputs(nil, X, Q)
	if !mat.EqualApprox(F, G, 1e-12) {
		t.Error("Outputs changed under a permutation of the hidden units")
	}
	if mat.Equal(P, Q) {
		t.Error("the permutation left the parameters unchanged: the test is vacuous")
	}
}

// sideCount counts the runs of a side part.
type sideCount struct{ n int }

func (s *sideCount) Run(int) { s.n++ }

// TestMinibatchBatchOnTeamSameBits: MinibatchLogProbGradBatchOn gives the
// bits of MinibatchLogProbGradBatch on teams of one and two (GOMAXPROCS 1
// and 2), both kernel paths, shapes below and above lrTeamWork with a
// partial last chunk, runs its side part once, and allocates nothing on
// SVGD's shape.
func TestMinibatchBatchOnTeamSameBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(4, 5))
	X, y := synthLogistic(rng, 3000, 55)
	lr := NewLogistic(X, y)
	for _, c := range []struct{ n, nb int }{{100, 100}, {37, 64}, {9, 5}, {4, 100}} {
		d := lr.Dim()
		xs := mat.NewDense(c.n, d, nil)
		for i := 0; i < c.n; i++ {
			xs.SetRow(i, randVec(rng, d, 0.5))
		}
		batch := make([]int, c.nb)
		for k := range batch {
			batch[k] = rng.IntN(3000)
		}
		for _, fma := range []bool{haveFMA, false} {
			lrUseFMA = fma
			want, wantLp := mat.NewDense(c.n, d, nil), make([]float64, c.n)
			lr.MinibatchLogProbGradBatch(xs, want, wantLp, batch)
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				for _, w := range []int{1, 2} {
					team := par.NewTeam(w)
					for rep := 0; rep < 3; rep++ {
						got, lp := mat.NewDense(c.n, d, nil), make([]float64, c.n)
						var side sideCount
						lr.MinibatchLogProbGradBatchOn(team, &side, xs, got, lp, batch)
						if side.n != 1 {
							t.Fatalf("n %d, |B| %d, GOMAXPROCS %d, team %d: the side part ran %d times", c.n, c.nb, procs, w, side.n)
						}
						for i := 0; i < c.n; i++ {
							if math.Float64bits(lp[i]) != math.Float64bits(wantLp[i]) {
								t.Fatalf("n %d, |B| %d, FMA %v, GOMAXPROCS %d, team %d: lp[%d] = %v, want %v", c.n, c.nb, fma, procs, w, i, lp[i], wantLp[i])
							}
							for j := 0; j < d; j++ {
								if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(i, j)) {
									t.Fatalf("n %d, |B| %d, FMA %v, GOMAXPROCS %d, team %d: grad[%d][%d] = %v, want %v", c.n, c.nb, fma, procs, w, i, j, got.At(i, j), want.At(i, j))
								}
							}
						}
					}
					if c.n == 100 {
						got, lp := mat.NewDense(c.n, d, nil), make([]float64, c.n)
						if a := race.AllocsPerRun(t, 20, func() { lr.MinibatchLogProbGradBatchOn(team, nil, xs, got, lp, batch) }); a != 0 {
							t.Errorf("GOMAXPROCS %d, team %d: %v allocations per call", procs, w, a)
						}
					}
					team.Close()
				}
			}
		}
		lrUseFMA = haveFMA
	}
}

// TestLogPriorConstSameBits: the logistic prior with its constants taken
// once per call gives the bits of the formula through logGammaPriorLog, on
// random parameters and hyperparameters.
func TestLogPriorConstSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	X, y := synthLogistic(rng, 10, 6)
	m := NewLogistic(X, y)
	for rep := 0; rep < 2000; rep++ {
		if rep%100 == 0 {
			m.A0, m.B0 = 0.1+5*rng.Float64(), math.Exp(4*rng.NormFloat64())
		}
		x := randVec(rng, m.Dim(), 2)
		g0, g1 := randVec(rng, m.Dim(), 1), make([]float64, m.Dim())
		copy(g1, g0)
		// The formula as written before the constants were hoisted.
		p := m.p
		w, s := x[:p], x[p]
		alpha := math.Exp(s)
		ss := floats.Dot(w, w)
		lpG, dG := logGammaPriorLog(s, m.A0, m.B0)
		want := lpG + 0.5*float64(p)*(s-math.Log(2*math.Pi)) - 0.5*alpha*ss
		floats.AddScaled(g0[:p], -alpha, w)
		g0[p] += dG + 0.5*float64(p) - 0.5*alpha*ss
		got := m.logPrior(x, g1)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("log prior %v, formula %v", got, want)
		}
		for j := range g0 {
			if math.Float64bits(g0[j]) != math.Float64bits(g1[j]) {
				t.Fatalf("gradient %d: %v, formula %v", j, g1[j], g0[j])
			}
		}
	}
}

// gradBatcher is a model's gradient-only minibatch pass, plain and on a
// team.
type gradBatcher interface {
	target.StochasticBatched
	MinibatchGradBatch(xs, grads *mat.Dense, batch []int)
	MinibatchGradBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, batch []int)
}

// TestMinibatchGradBatchSameBits: the gradient-only minibatch passes of the
// logistic model and the network give the gradients of
// MinibatchLogProbGradBatch bit for bit, alone and on teams of one and two
// (GOMAXPROCS 1 and 2; nil, the caller alone), both logistic kernel paths,
// batches whose tiles end in a partial group of four, partial last chunks,
// and run their side part once.
func TestMinibatchGradBatchSameBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(4, 7))
	X, y := synthLogistic(rng, 3000, 55)
	lr := NewLogistic(X, y)
	Xb, yb := synthBNN(rng, 900, 16)
	bnn := NewBNN(Xb, yb, 50)
	for _, c := range []struct {
		name  string
		m     gradBatcher
		n, nb int
	}{
		{"logistic", lr, 100, 100}, {"logistic", lr, 37, 67}, {"logistic", lr, 9, 5}, {"logistic", lr, 4, 100},
		{"bnn", bnn, 20, 100}, {"bnn", bnn, 7, 33}, {"bnn", bnn, 1, 3},
	} {
		d := c.m.Dim()
		xs := mat.NewDense(c.n, d, nil)
		for i := 0; i < c.n; i++ {
			xs.SetRow(i, randVec(rng, d, 0.5))
		}
		batch := make([]int, c.nb)
		for k := range batch {
			batch[k] = rng.IntN(900)
		}
		for _, path := range [][2]bool{{haveFMA, have512}, {haveFMA, false}, {false, false}} {
			fma := path[0]
			lrUseFMA, lrUse512 = path[0], path[1]
			want := mat.NewDense(c.n, d, nil)
			c.m.MinibatchLogProbGradBatch(xs, want, make([]float64, c.n), batch)
			check := func(how string, got *mat.Dense) {
				t.Helper()
				for i := 0; i < c.n; i++ {
					for j := 0; j < d; j++ {
						if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(i, j)) {
							t.Fatalf("%s n %d |B| %d FMA %v %s: grad[%d][%d] = %v, want %v", c.name, c.n, c.nb, fma, how, i, j, got.At(i, j), want.At(i, j))
						}
					}
				}
			}
			got := mat.NewDense(c.n, d, nil)
			c.m.MinibatchGradBatch(xs, got, batch)
			check("alone", got)
			var side sideCount
			got = mat.NewDense(c.n, d, nil)
			c.m.MinibatchGradBatchOn(nil, &side, xs, got, batch)
			check("nil team", got)
			if side.n != 1 {
				t.Fatalf("%s nil team: the side part ran %d times", c.name, side.n)
			}
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				for _, w := range []int{1, 2} {
					team := par.NewTeam(w)
					for rep := 0; rep < 3; rep++ {
						side = sideCount{}
						got := mat.NewDense(c.n, d, nil)
						c.m.MinibatchGradBatchOn(team, &side, xs, got, batch)
						check(fmt.Sprintf("GOMAXPROCS %d team %d", procs, w), got)
						if side.n != 1 {
							t.Fatalf("%s GOMAXPROCS %d team %d: the side part ran %d times", c.name, procs, w, side.n)
						}
					}
					if c.nb == 100 {
						got := mat.NewDense(c.n, d, nil)
						if a := race.AllocsPerRun(t, 20, func() { c.m.MinibatchGradBatchOn(team, nil, xs, got, batch) }); a != 0 {
							t.Errorf("%s GOMAXPROCS %d, team %d: %v allocations per call", c.name, procs, w, a)
						}
						if a := race.AllocsPerRun(t, 20, func() { c.m.MinibatchGradBatch(xs, got, batch) }); a != 0 {
							t.Errorf("%s: %v allocations per call", c.name, a)
						}
					}
					team.Close()
				}
			}
		}
		lrUseFMA, lrUse512 = haveFMA, have512
	}
}

// TestPrefetch: a prefetch of valid rows, of none and of rows outside the
// data (ignored) leaves a later minibatch pass with its bits and allocates
// nothing.
func TestPrefetch(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 8))
	X, y := synthLogistic(rng, 500, 55)
	lr := NewLogistic(X, y)
	Xb, yb := synthBNN(rng, 500, 16)
	bnn := NewBNN(Xb, yb, 50)
	batch := []int{0, 499, 17, 250, 3}
	for _, m := range []interface {
		gradBatcher
		Prefetch([]int)
	}{lr, bnn} {
		d := m.Dim()
		xs := mat.NewDense(3, d, nil)
		for i := 0; i < 3; i++ {
			xs.SetRow(i, randVec(rng, d, 0.5))
		}
		want, got := mat.NewDense(3, d, nil), mat.NewDense(3, d, nil)
		m.MinibatchGradBatch(xs, want, batch)
		for _, b := range [][]int{batch, nil, {500}, {-1, 2}} {
			m.Prefetch(b)
		}
		m.MinibatchGradBatch(xs, got, batch)
		if !mat.Equal(got, want) {
			t.Fatalf("%T: gradients moved after a prefetch", m)
		}
		if a := race.AllocsPerRun(t, 20, func() { m.Prefetch(batch) }); a != 0 {
			t.Errorf("%T: %v allocations per prefetch", m, a)
		}
	}
}
