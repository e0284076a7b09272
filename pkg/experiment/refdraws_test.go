package experiment

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/report"
)

// TestSpreadRowsEveryChain: the bandwidth's subsample of 4 chains × 1000
// iteration-major draws takes 250 draws of every chain, spread over each
// chain's whole length; the pooled stride of every 4th row took one chain.
func TestSpreadRowsEveryChain(t *testing.T) {
	const chains, D, m = 4, 1000, 1000
	rows := spreadRows(chains*D, chains, m)
	if len(rows) != m {
		t.Fatalf("%d rows, want %d", len(rows), m)
	}
	count := make([]int, chains)
	maxDraw := make([]int, chains)
	seen := map[int]bool{}
	for _, r := range rows {
		if seen[r] {
			t.Fatalf("row %d twice", r)
		}
		seen[r] = true
		c := r % chains
		count[c]++
		maxDraw[c] = max(maxDraw[c], r/chains)
	}
	for c := range count {
		if count[c] != m/chains {
			t.Errorf("chain %d: %d rows, want %d", c, count[c], m/chains)
		}
		if maxDraw[c] < D-D/(m/chains) {
			t.Errorf("chain %d: last draw used %d of %d", c, maxDraw[c], D)
		}
	}
	// One chain: the stride of kernel.MedianDistance, the same bandwidth.
	rng := rand.New(rand.NewPCG(1, 1))
	Y := mat.NewDense(2500, 3, nil)
	for i := 0; i < 2500; i++ {
		for j := 0; j < 3; j++ {
			Y.Set(i, j, rng.NormFloat64()*float64(1+j))
		}
	}
	if got, want := chainBandwidth(Y, 1), kernel.MedianDistance(Y, maxMedianDraws); got != want {
		t.Errorf("one chain: bandwidth %v, MedianDistance %v", got, want)
	}
	// Chains far apart: the subsample over every chain sees the distance
	// between them; a subsample of chain 0 alone would not.
	Z := mat.NewDense(4000, 1, nil)
	for i := 0; i < 4000; i++ {
		Z.Set(i, 0, float64(10*(i%4))+rng.NormFloat64())
	}
	if h, h0 := chainBandwidth(Z, 4), kernel.MedianDistance(Z, maxMedianDraws); !(h > 5) || !(h0 < 3) {
		t.Errorf("chains at 0, 10, 20, 30: bandwidth over every chain %v (want > 5), pooled stride %v (one chain, want < 3)", h, h0)
	}
}

// TestReferenceFloorDirect: the floor is the V-statistic MMD² of the first
// half of every chain against the second half, computed here term by term
// on 2 chains × 4 draws in one dimension.
func TestReferenceFloorDirect(t *testing.T) {
	// Row i·2 + c is draw i of chain c.
	y := []float64{0, 5, 1, 6, 0.5, 4, 2, 7}
	Y := mat.NewDense(8, 1, y)
	k := kernel.RBF{H: 1.5}
	a := []float64{0, 5, 1, 6}   // draws 0, 1 of both chains
	b := []float64{0.5, 4, 2, 7} // draws 2, 3
	kf := func(u, v float64) float64 { return math.Exp(-(u - v) * (u - v) / (2 * 1.5 * 1.5)) }
	mean := func(p, q []float64) float64 {
		var s float64
		for _, u := range p {
			for _, v := range q {
				s += kf(u, v)
			}
		}
		return s / float64(len(p)*len(q))
	}
	want := mean(a, a) - 2*mean(a, b) + mean(b, b)
	if got := referenceFloor(k, Y, 2); math.Abs(got-want) > 1e-14 {
		t.Errorf("floor %v, direct %v", got, want)
	}
	if got := referenceFloor(k, mat.NewDense(2, 1, []float64{0, 1}), 2); !math.IsNaN(got) {
		t.Errorf("one draw per chain: floor %v, want NaN", got)
	}
}

// fmmdFixture is a small BNN on random inputs, a "reference" of draws from
// its initialiser in 2 chains, and a particle set.
func fmmdFixture(t *testing.T) (*model.BNN, *mat.Dense, *mat.Dense) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	const nt, p, h, nref = 12, 3, 4, 40
	X := mat.NewDense(nt, p, nil)
	for i := 0; i < nt; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	m := model.NewBNN(X, make([]float64, nt), h)
	ref := mat.NewDense(nref, m.Dim(), nil)
	for i := 0; i < nref; i++ {
		m.Init(rng, ref.RawRowView(i))
	}
	return m, X, ref
}

// TestFunctionMMDIdentical: the reference's own draws with equal weights
// score 0 (up to rounding of a sum of kernel values of order 1).
func TestFunctionMMDIdentical(t *testing.T) {
	m, X, ref := fmmdFixture(t)
	fm := newFunctionMMD(m, X, ref, 2)
	if v := fm.MMD2(ref, nil); math.Abs(v) > 1e-13 {
		t.Errorf("identical sets: fmmd2 = %v, want 0", v)
	}
	sub := ref.Slice(0, 5, 0, m.Dim()).(*mat.Dense)
	if v := fm.MMD2(sub, nil); !(v > 1e-6) {
		t.Errorf("5 of 40 draws: fmmd2 = %v, want clearly positive", v)
	}
}

// TestFunctionMMDPermutation: permuting the hidden units of every particle
// (the columns of W1 with b1 and w2) leaves fmmd2 as it was, while the
// parameter-space MMD² to the same reference moves.
func TestFunctionMMDPermutation(t *testing.T) {
	m, X, ref := fmmdFixture(t)
	fm := newFunctionMMD(m, X, ref, 2)
	rng := rand.New(rand.NewPCG(7, 8))
	n, d := 6, m.Dim()
	P := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		m.Init(rng, P.RawRowView(i))
	}
	w := []float64{0.3, 0.1, 0.2, 0.15, 0.05, 0.2}
	p, h := m.Features(), m.Hidden()
	Q := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		perm := rng.Perm(h) // a different permutation for every particle
		src, dst := P.RawRowView(i), Q.RawRowView(i)
		copy(dst, src)
		for j, pj := range perm {
			for f := 0; f < p; f++ {
				dst[f*h+j] = src[f*h+pj]
			}
			dst[p*h+j] = src[p*h+pj]
			dst[p*h+h+j] = src[p*h+h+pj]
		}
	}
	a, b := fm.MMD2(P, w), fm.MMD2(Q, w)
	if math.Abs(a-b) > 1e-12*math.Abs(a) {
		t.Errorf("fmmd2 %v before, %v after permuting hidden units", a, b)
	}
	k := kernel.RBF{H: chainBandwidth(ref, 2)}
	pa, pb := metric.NewMMD(k, ref).MMD2(P, w), metric.NewMMD(k, ref).MMD2(Q, w)
	if math.Abs(pa-pb) < 1e-6*pa {
		t.Errorf("parameter-space MMD² %v, %v: the permutation did not move it, the test is vacuous", pa, pb)
	}
}

// TestFunctionMMDDirect: on 3 weighted particles against 4 reference draws
// at 2 inputs, fmmd2 equals the weighted V-statistic of the output vectors,
// each kernel value from its definition exp(−‖u − v‖²/(2h²)).
func TestFunctionMMDDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	X := mat.NewDense(2, 1, []float64{-0.5, 1.5})
	m := model.NewBNN(X, []float64{0, 0}, 2)
	d := m.Dim()
	ref := mat.NewDense(4, d, nil)
	P := mat.NewDense(3, d, nil)
	for i := 0; i < 4; i++ {
		m.Init(rng, ref.RawRowView(i))
	}
	for i := 0; i < 3; i++ {
		m.Init(rng, P.RawRowView(i))
	}
	w := []float64{0.5, 0.3, 0.2}
	fm := newFunctionMMD(m, X, ref, 1)
	// Outputs by hand: f(x) = Σⱼ w2ⱼ relu(W1ⱼ x + b1ⱼ) + b2.
	out := func(th []float64, x float64) float64 {
		f := th[6]
		for j := 0; j < 2; j++ {
			f += th[4+j] * math.Max(0, th[j]*x+th[2+j])
		}
		return f
	}
	vec := func(M *mat.Dense, i int) [2]float64 {
		return [2]float64{out(M.RawRowView(i), -0.5), out(M.RawRowView(i), 1.5)}
	}
	var R [4][2]float64
	var S [3][2]float64
	for i := range R {
		R[i] = vec(ref, i)
	}
	for i := range S {
		S[i] = vec(P, i)
	}
	// The median heuristic of the 6 distinct reference distances, taken on
	// the squares (kernel.MedianSq): the root of the mean of the 3rd and 4th
	// smallest squares.
	var dist []float64
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			dist = append(dist, math.Hypot(R[i][0]-R[j][0], R[i][1]-R[j][1]))
		}
	}
	sort.Float64s(dist)
	h := math.Sqrt((dist[2]*dist[2] + dist[3]*dist[3]) / 2)
	if math.Abs(fm.h-h) > 1e-12*h {
		t.Fatalf("bandwidth %v, direct median %v", fm.h, h)
	}
	kf := func(u, v [2]float64) float64 {
		return math.Exp(-((u[0]-v[0])*(u[0]-v[0]) + (u[1]-v[1])*(u[1]-v[1])) / (2 * h * h))
	}
	var xx, xy, yy float64
	for i := range S {
		for j := range S {
			xx += w[i] * w[j] * kf(S[i], S[j])
		}
		for j := range R {
			xy += w[i] * kf(S[i], R[j]) / 4
		}
	}
	for i := range R {
		for j := range R {
			yy += kf(R[i], R[j]) / 16
		}
	}
	want := xx - 2*xy + yy
	if got := fm.MMD2(P, w); math.Abs(got-want) > 1e-12 {
		t.Errorf("fmmd2 %v, direct %v", got, want)
	}
}

// TestPredictionDiag: chains drawn from one distribution pass; chains with
// different means are flagged with R̂ far above 1.01.
func TestPredictionDiag(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const chains, D, T = 4, 1000, 3
	F := mat.NewDense(chains*D, T, nil)
	G := mat.NewDense(chains*D, T, nil)
	for r := 0; r < chains*D; r++ {
		for j := 0; j < T; j++ {
			v := rng.NormFloat64()
			F.Set(r, j, v)
			G.Set(r, j, v+3*float64(r%chains))
		}
	}
	ok := predictionDiag(F, chains)
	if ok.Flagged || ok.MaxRhat == nil || *ok.MaxRhat > 1.01 || *ok.MinESS < 400 || ok.Inputs != T {
		t.Errorf("independent draws: %+v (R̂ %v, ESS %v)", ok, deref(ok.MaxRhat), deref(ok.MinESS))
	}
	bad := predictionDiag(G, chains)
	if !bad.Flagged || bad.MaxRhat == nil || *bad.MaxRhat < 2 {
		t.Errorf("separated chains: %+v (R̂ %v)", bad, deref(bad.MaxRhat))
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestFunctionInputsReport: the report's rule text names the number of
// inputs fmmd2 uses.
func TestFunctionInputsReport(t *testing.T) {
	if FunctionInputs != report.FunctionInputs {
		t.Errorf("fmmd2 uses %d inputs, the report says %d", FunctionInputs, report.FunctionInputs)
	}
}
