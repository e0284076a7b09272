package target_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// logisticPosterior rebuilds model.Logistic (labels ±1, θ = [w, log α],
// α ∼ Gamma(a0, rate b0), w | α ∼ N(0, α⁻¹I)) from its row log-likelihood
// log σ(yᵢ wᵀxᵢ) and its prior.
func logisticPosterior(X *mat.Dense, y []float64, a0, b0 float64) target.Posterior {
	n, p := X.Dims()
	row := func(i int, x, grad []float64) float64 {
		xi := X.RawRowView(i)
		u := y[i] * floats.Dot(xi, x[:p])
		// log σ(u) and σ(−u), without overflow.
		var ls, sn float64
		if u >= 0 {
			e := math.Exp(-u)
			ls, sn = -math.Log1p(e), e/(1+e)
		} else {
			e := math.Exp(u)
			ls, sn = u-math.Log1p(e), 1/(1+e)
		}
		floats.AddScaled(grad[:p], y[i]*sn, xi)
		return ls
	}
	lg, _ := math.Lgamma(a0)
	prior := target.Prior{LogProbGrad: func(x, grad []float64) float64 {
		w, s := x[:p], x[p]
		alpha := math.Exp(s)
		ss := floats.Dot(w, w)
		floats.AddScaled(grad[:p], -alpha, w)
		grad[p] += a0 - b0*alpha + 0.5*float64(p) - 0.5*alpha*ss
		return a0*math.Log(b0) - lg + a0*s - b0*alpha + 0.5*float64(p)*(s-math.Log(2*math.Pi)) - 0.5*alpha*ss
	}}
	return target.NewPosterior(p+1, n, row, prior)
}

func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestPosteriorMatchesLogistic compares the rebuilt posterior with
// model.Logistic on the same data: log density and gradient, full data,
// minibatch and both batched forms. The full-data sums of model.Logistic
// are taken in chunks (and with FMA kernels where the processor has them),
// so the two agree to rounding, not bit for bit.
func TestPosteriorMatchesLogistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n, p := 700, 6
	X, y := testutil.LogisticData(rng, n, p)
	ref := model.NewLogistic(X, y)
	post := logisticPosterior(X, y, ref.A0, ref.B0)
	d := p + 1
	if post.Dim() != ref.Dim() || post.NData() != ref.NData() {
		t.Fatalf("Dim/NData %d/%d, want %d/%d", post.Dim(), post.NData(), ref.Dim(), ref.NData())
	}
	const m = 5
	xs := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		copy(xs.RawRowView(i), testutil.RandVec(rng, d, 0.7))
	}
	batch := make([]int, 64)
	for i := range batch {
		batch[i] = rng.IntN(n)
	}
	g1, g2 := make([]float64, d), make([]float64, d)
	// full, minibatch, batched, minibatch batched × (lp, grad) relative to
	// max(1, |value|), and the absolute differences.
	var worst, abs [4][2]float64
	rel := func(k int, lp1, lp2 float64, a, b []float64) {
		worst[k][0] = math.Max(worst[k][0], math.Abs(lp1-lp2)/math.Max(1, math.Abs(lp2)))
		worst[k][1] = math.Max(worst[k][1], maxAbsDiff(a, b)/math.Max(1, floats.Norm(b, math.Inf(1))))
		abs[k][0] = math.Max(abs[k][0], math.Abs(lp1-lp2))
		abs[k][1] = math.Max(abs[k][1], maxAbsDiff(a, b))
	}
	for i := 0; i < m; i++ {
		x := xs.RawRowView(i)
		rel(0, post.LogProbGrad(x, g1), ref.LogProbGrad(x, g2), g1, g2)
		rel(1, post.MinibatchLogProbGrad(x, g1, batch), ref.MinibatchLogProbGrad(x, g2, batch), g1, g2)
	}
	G1, G2 := mat.NewDense(m, d, nil), mat.NewDense(m, d, nil)
	lp1, lp2 := make([]float64, m), make([]float64, m)
	post.LogProbGradBatch(xs, G1, lp1)
	ref.LogProbGradBatch(xs, G2, lp2)
	for i := 0; i < m; i++ {
		rel(2, lp1[i], lp2[i], G1.RawRowView(i), G2.RawRowView(i))
	}
	post.MinibatchLogProbGradBatch(xs, G1, lp1, batch)
	ref.MinibatchLogProbGradBatch(xs, G2, lp2, batch)
	for i := 0; i < m; i++ {
		rel(3, lp1[i], lp2[i], G1.RawRowView(i), G2.RawRowView(i))
	}
	for k, name := range []string{"full", "minibatch", "batched", "minibatch batched"} {
		t.Logf("%-17s max difference: log density %.2g (relative %.2g), gradient %.2g (relative %.2g)", name, abs[k][0], worst[k][0], abs[k][1], worst[k][1])
		if worst[k][0] > 1e-12 || worst[k][1] > 1e-12 {
			t.Errorf("%s: differs from model.Logistic by %.2g (log density), %.2g (gradient)", name, worst[k][0], worst[k][1])
		}
	}
}

func TestPosteriorGradFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n, p := 40, 4
	X, y := testutil.LogisticData(rng, n, p)
	post := logisticPosterior(X, y, 1, 0.01)
	batch := []int{3, 3, 17, 39, 0}
	for k := 0; k < 3; k++ {
		x := testutil.RandVec(rng, p+1, 0.5)
		g := make([]float64, p+1)
		post.LogProbGrad(x, g)
		testutil.CheckGrad(t, "full", func(v []float64) float64 { return post.LogProbGrad(v, make([]float64, p+1)) }, x, g)
		post.MinibatchLogProbGrad(x, g, batch)
		testutil.CheckGrad(t, "minibatch", func(v []float64) float64 {
			return post.MinibatchLogProbGrad(v, make([]float64, p+1), batch)
		}, x, g)
	}
}

// TestPosteriorMinibatchScaling checks the N/|B| rescaling exactly: on a
// Gaussian-mean likelihood, a batch of every row once equals the full
// data, and a batch of one row i is log p₀ + N log L(dᵢ).
func TestPosteriorMinibatchScaling(t *testing.T) {
	data := []float64{-1, 0.5, 2, 3.5}
	row := func(i int, x, grad []float64) float64 {
		r := data[i] - x[0]
		grad[0] += r
		return -0.5 * r * r
	}
	prior := target.Prior{LogProbGrad: func(x, grad []float64) float64 {
		grad[0] -= x[0] / 100
		return -0.5 * x[0] * x[0] / 100
	}}
	post := target.NewPosterior(1, len(data), row, prior)
	x := []float64{0.75}
	g, gb := make([]float64, 1), make([]float64, 1)
	lp := post.LogProbGrad(x, g)
	// Σ −½(dᵢ − 0.75)² = −½(3.0625 + 0.0625 + 1.5625 + 7.5625) = −6.125;
	// prior −½·0.5625/100; gradient Σ(dᵢ − 0.75) − 0.0075 = 2 − 0.0075.
	if want := -6.125 - 0.5*0.5625/100; math.Abs(lp-want) > 1e-14 || math.Abs(g[0]-(2-0.0075)) > 1e-14 {
		t.Fatalf("full: %v %v, want %v %v", lp, g[0], want, 2-0.0075)
	}
	if lpb := post.MinibatchLogProbGrad(x, gb, []int{3, 1, 0, 2}); math.Abs(lpb-lp) > 1e-14 || math.Abs(gb[0]-g[0]) > 1e-14 {
		t.Fatalf("all rows once: %v %v, full %v %v", lpb, gb[0], lp, g[0])
	}
	lp1 := post.MinibatchLogProbGrad(x, gb, []int{2})
	if want := 4*(-0.5*1.5625) - 0.5*0.5625/100; math.Abs(lp1-want) > 1e-14 || math.Abs(gb[0]-(4*1.25-0.0075)) > 1e-14 {
		t.Fatalf("one row: %v %v, want %v %v", lp1, gb[0], want, 4*1.25-0.0075)
	}
	// A flat prior is log p₀ = 0; without Sample the posterior is no
	// PriorSampler.
	flat := target.NewPosterior(1, len(data), row, target.Prior{})
	if lpf := flat.LogProbGrad(x, g); lpf != -6.125 || g[0] != 2 {
		t.Fatalf("flat prior: %v %v", lpf, g[0])
	}
	if _, ok := flat.(target.PriorSampler); ok {
		t.Fatal("posterior without Prior.Sample is a PriorSampler")
	}
	withSample := target.NewPosterior(1, len(data), row, target.Prior{Sample: func(rng *rand.Rand, dst []float64) { dst[0] = 7 }})
	ps, ok := withSample.(target.PriorSampler)
	if !ok {
		t.Fatal("posterior with Prior.Sample is not a PriorSampler")
	}
	dst := []float64{0}
	ps.SamplePrior(rand.New(rand.NewPCG(1, 1)), dst)
	if dst[0] != 7 {
		t.Fatal("SamplePrior does not call Prior.Sample")
	}
}

func TestPosteriorAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	X, y := testutil.LogisticData(rng, 50, 3)
	post := logisticPosterior(X, y, 1, 0.01)
	x, g := testutil.RandVec(rng, 4, 0.5), make([]float64, 4)
	xs, gs, lp := mat.NewDense(3, 4, nil), mat.NewDense(3, 4, nil), make([]float64, 3)
	batch := []int{1, 2, 3}
	if a := race.AllocsPerRun(t, 20, func() {
		post.LogProbGrad(x, g)
		post.MinibatchLogProbGrad(x, g, batch)
		post.LogProbGradBatch(xs, gs, lp)
		post.MinibatchLogProbGradBatch(xs, gs, lp, batch)
	}); a != 0 {
		t.Fatalf("%v allocations per call", a)
	}
}
