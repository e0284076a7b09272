package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/kernel"
)

type namedRadial struct {
	name string
	k    interface {
		kernel.Radial
		GradY(dst, x, y []float64) float64
		DivXY(x, y []float64) float64
		Stein(x, y, sx, sy []float64) float64
	}
}

func radials() []namedRadial {
	return []namedRadial{
		{"RBF h=0.8", kernel.RBF{H: 0.8}},
		{"RBF h=2.1", kernel.RBF{H: 2.1}},
		{"IMQ default", kernel.IMQ{}},
		{"IMQ c=0.7 β=-0.3", kernel.IMQ{C: 0.7, Beta: -0.3}},
		{"IMQ c=1.5 β=-0.8", kernel.IMQ{C: 1.5, Beta: -0.8}},
	}
}

func TestIMQDefaults(t *testing.T) {
	x, y := []float64{1, 2}, []float64{0, 0}
	want := 1 / math.Sqrt(1+5)
	if got := (kernel.IMQ{}).Eval(x, y); math.Abs(got-want) > 1e-15 {
		t.Fatalf("IMQ{} k = %v, want (1+r²)^(-1/2) = %v", got, want)
	}
	if got, w2 := (kernel.IMQ{C: 2, Beta: -0.3}).Eval(x, y), math.Pow(4+5, -0.3); math.Abs(got-w2) > 1e-15 {
		t.Fatalf("IMQ{2,-0.3} k = %v, want %v", got, w2)
	}
}

func TestGradientsFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, nk := range radials() {
		k := nk.k
		for _, d := range []int{1, 4, 9} {
			x := testutil.RandVec(rng, d, 1)
			y := testutil.RandVec(rng, d, 1)
			for i := range y {
				y[i] = x[i] + 0.6*y[i]
			}
			gx := make([]float64, d)
			gy := make([]float64, d)
			if v := k.GradX(gx, x, y); v != k.Eval(x, y) {
				t.Fatalf("%s: GradX value %v != Eval %v", nk.name, v, k.Eval(x, y))
			}
			if v := k.GradY(gy, x, y); v != k.Eval(x, y) {
				t.Fatalf("%s: GradY value %v != Eval %v", nk.name, v, k.Eval(x, y))
			}
			var div float64
			for j := 0; j < d; j++ {
				fx := testutil.CentralDiff(func(v []float64) float64 { return k.Eval(v, y) }, x, j)
				fy := testutil.CentralDiff(func(v []float64) float64 { return k.Eval(x, v) }, y, j)
				if e := testutil.RelErr(gx[j], fx, 1e-8); e > 1e-5 {
					t.Errorf("%s d=%d: ∇ₓk[%d] = %v, FD %v (rel %.2g)", nk.name, d, j, gx[j], fx, e)
				}
				if e := testutil.RelErr(gy[j], fy, 1e-8); e > 1e-5 {
					t.Errorf("%s d=%d: ∇ᵧk[%d] = %v, FD %v (rel %.2g)", nk.name, d, j, gy[j], fy, e)
				}
				// ∂/∂xⱼ of the analytic ∂k/∂yⱼ.
				buf := make([]float64, d)
				div += testutil.CentralDiff(func(v []float64) float64 { k.GradY(buf, v, y); return buf[j] }, x, j)
			}
			if got := k.DivXY(x, y); testutil.RelErr(got, div, 1e-8) > 1e-5 {
				t.Errorf("%s d=%d: ∇ₓ·∇ᵧk = %v, FD %v", nk.name, d, got, div)
			}
			// The profile's derivatives, against FD in r².
			r2 := 0.0
			for i := range x {
				r2 += (x[i] - y[i]) * (x[i] - y[i])
			}
			f, df, d2f := k.Profile(r2)
			if f != k.FromSqDist(r2) {
				t.Errorf("%s: Profile f %v != FromSqDist %v", nk.name, f, k.FromSqDist(r2))
			}
			fd1 := (k.FromSqDist(r2+testutil.FDStep) - k.FromSqDist(r2-testutil.FDStep)) / (2 * testutil.FDStep)
			fd2 := func() float64 {
				_, a, _ := k.Profile(r2 + testutil.FDStep)
				_, b, _ := k.Profile(r2 - testutil.FDStep)
				return (a - b) / (2 * testutil.FDStep)
			}()
			if testutil.RelErr(df, fd1, 1e-8) > 1e-5 || testutil.RelErr(d2f, fd2, 1e-8) > 1e-5 {
				t.Errorf("%s: profile f′ %v (FD %v), f″ %v (FD %v)", nk.name, df, fd1, d2f, fd2)
			}
		}
	}
}

// TestSteinKernelAgainstFDPieces assembles k₀ from finite differences of k
// alone and compares it with the closed form.
func TestSteinKernelAgainstFDPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, nk := range radials() {
		k := nk.k
		d := 5
		x := testutil.RandVec(rng, d, 1)
		y := testutil.RandVec(rng, d, 1)
		for i := range y {
			y[i] = x[i] + 0.7*y[i]
		}
		sx, sy := testutil.RandVec(rng, d, 1), testutil.RandVec(rng, d, 1)
		var want float64
		const e = 1e-4
		for j := 0; j < d; j++ {
			want += testutil.CentralDiff(func(v []float64) float64 { return k.Eval(v, y) }, x, j) * sy[j]
			want += testutil.CentralDiff(func(v []float64) float64 { return k.Eval(x, v) }, y, j) * sx[j]
			// Mixed second difference ∂²k/∂xⱼ∂yⱼ.
			sh := func(a []float64, s float64) []float64 {
				b := append([]float64(nil), a...)
				b[j] += s
				return b
			}
			want += (k.Eval(sh(x, e), sh(y, e)) - k.Eval(sh(x, e), sh(y, -e)) -
				k.Eval(sh(x, -e), sh(y, e)) + k.Eval(sh(x, -e), sh(y, -e))) / (4 * e * e)
		}
		var ss float64
		for i := range sx {
			ss += sx[i] * sy[i]
		}
		want += k.Eval(x, y) * ss
		got := k.Stein(x, y, sx, sy)
		// The mixed second difference carries O(e²) truncation and
		// O(ε_mach/e²) ≈ 1e-8 round-off.
		if testutil.RelErr(got, want, 1e-3) > 1e-5 {
			t.Errorf("%s: k₀ = %v, assembled from finite differences %v", nk.name, got, want)
		}
		if g2 := kernel.Stein(k, x, y, sx, sy); g2 != got {
			t.Errorf("%s: package Stein %v != method %v", nk.name, g2, got)
		}
		// Symmetry.
		if s2 := k.Stein(y, x, sy, sx); testutil.RelErr(s2, got, 1e-12) > 1e-12 {
			t.Errorf("%s: k₀ not symmetric: %v vs %v", nk.name, got, s2)
		}
	}
}

// TestSteinIdentity checks E_{y∼p}[k₀(x, y)] = 0 by Monte Carlo on a
// Gaussian target, within 4 standard errors, and that the standard error is
// small enough for the check to catch a missing term.
func TestSteinIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	d := 3
	g := testutil.Gaussian(t, rng, d)
	const S = 40000
	ys := mat.NewDense(S, d, nil)
	scores := mat.NewDense(S, d, nil)
	g.SampleRows(rng, ys)
	for s := 0; s < S; s++ {
		g.LogProbGrad(ys.RawRowView(s), scores.RawRowView(s))
	}
	x := g.Mean()
	for i := range x {
		x[i] += 0.8 * rng.NormFloat64()
	}
	sx := make([]float64, d)
	g.LogProbGrad(x, sx)
	for _, k := range []kernel.Radial{kernel.RBF{H: 1.2}, kernel.IMQ{}, kernel.IMQ{C: 2, Beta: -0.7}} {
		var sum, sum2, abs, last float64
		for s := 0; s < S; s++ {
			v := kernel.Stein(k, x, ys.RawRowView(s), sx, scores.RawRowView(s))
			sum += v
			sum2 += v * v
			abs += math.Abs(v)
			// The k s(x)·s(y) term alone, which must not average to zero.
			var ss float64
			for i := range sx {
				ss += sx[i] * scores.At(s, i)
			}
			last += k.Eval(x, ys.RawRowView(s)) * ss
		}
		mean := sum / S
		se := math.Sqrt((sum2/S - mean*mean) / S)
		if math.Abs(mean) > 4*se {
			t.Errorf("%T%v: E[k₀(x,y)] = %v, standard error %v", k, k, mean, se)
		}
		if math.Abs(last/S) < 10*se {
			t.Errorf("%T%v: test too weak: a single term averages %v against standard error %v", k, k, last/S, se)
		}
		t.Logf("%T%v: E[k₀] = %.3g ± %.2g, E|k₀| = %.3g", k, k, mean, se, abs/S)
	}
}

func TestSteinGramAgainstPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	n, d := 9, 4
	X := testutil.RandDense(rng, n, d)
	S := testutil.RandDense(rng, n, d)
	for _, k := range []kernel.Radial{kernel.RBF{H: 1.1}, kernel.IMQ{}} {
		K0 := mat.NewDense(n, n, nil)
		kernel.SteinGram(K0, k, X, S, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := kernel.Stein(k, X.RawRowView(i), X.RawRowView(j), S.RawRowView(i), S.RawRowView(j))
				if math.Abs(K0.At(i, j)-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%T: K₀[%d,%d] = %v, want %v", k, i, j, K0.At(i, j), want)
				}
			}
		}
	}
}

func TestCrossAgainstDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	n, m, d := 6, 11, 5
	X, Y := testutil.RandDense(rng, n, d), testutil.RandDense(rng, m, d)
	for _, k := range []kernel.Radial{kernel.RBF{H: 1.4}, kernel.IMQ{}, kernel.IMQ{C: 0.5, Beta: -0.25}} {
		C := mat.NewDense(n, m, nil)
		kernel.CrossRadial(k, C, X, Y, nil, make([]float64, m))
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				want := k.Eval(X.RawRowView(i), Y.RawRowView(j))
				if math.Abs(C.At(i, j)-want) > 1e-12 {
					t.Fatalf("%T: C[%d,%d] = %v, want %v", k, i, j, C.At(i, j), want)
				}
			}
		}
	}
	sq := mat.NewDense(n, m, nil)
	kernel.CrossSqDists(sq, X, Y, nil, nil)
	var r2 float64
	for c := 0; c < d; c++ {
		r2 += (X.At(2, c) - Y.At(7, c)) * (X.At(2, c) - Y.At(7, c))
	}
	if math.Abs(sq.At(2, 7)-r2) > 1e-12*(1+r2) {
		t.Fatalf("sq[2,7] = %v, want %v", sq.At(2, 7), r2)
	}
}

type directioner interface {
	kernel.Kernel
	SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64) float64
}

func TestSteinDirectionAgainstDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	n, d := 12, 6
	big := testutil.RandDense(rng, n+3, d+2)
	X := big.Slice(1, n+1, 0, d).(*mat.Dense) // a view, as a growing particle matrix would be
	S := testutil.RandDense(rng, n, d)
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.Float64()
	}
	x := testutil.RandVec(rng, d, 1)
	for _, k := range []directioner{kernel.RBF{H: 1.7}, kernel.IMQ{}, kernel.IMQ{C: 1.3, Beta: -0.6}} {
		got := make([]float64, d)
		sum := k.SteinDirection(got, x, X, S, w)
		want := make([]float64, d)
		g := make([]float64, d)
		var wantSum float64
		for i := 0; i < n; i++ {
			kv := k.GradX(g, X.RawRowView(i), x) // ∇_{xᵢ}k(xᵢ, x)
			wantSum += w[i] * kv
			for j := range want {
				want[j] += w[i] * (kv*S.At(i, j) + g[j])
			}
		}
		if math.Abs(sum-wantSum) > 1e-12 {
			t.Errorf("%T: Σwk = %v, want %v", k, sum, wantSum)
		}
		for j := range want {
			if math.Abs(got[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
				t.Errorf("%T: φ[%d] = %v, want %v", k, j, got[j], want[j])
			}
		}
		if a := race.AllocsPerRun(t, 10, func() { k.SteinDirection(got, x, X, S, w) }); a != 0 {
			t.Errorf("%T: SteinDirection allocates %v times", k, a)
		}
	}
}

// TestSteinDirectionZeroWeightsBits checks that the rows of zero weight,
// which the RBF direction does not read, change no bit: the same
// particles with their zero-weight rows removed give the same direction
// and sum, and a NaN in a skipped row does not reach the result.
func TestSteinDirectionZeroWeightsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	n, d := 40, 7
	X := testutil.RandDense(rng, n, d)
	S := testutil.RandDense(rng, n, d)
	w := make([]float64, n)
	var keep []int
	for i := range w {
		if rng.IntN(3) > 0 {
			w[i] = rng.Float64()
			keep = append(keep, i)
		}
	}
	Xk := mat.NewDense(len(keep), d, nil)
	Sk := mat.NewDense(len(keep), d, nil)
	wk := make([]float64, len(keep))
	for j, i := range keep {
		Xk.SetRow(j, X.RawRowView(i))
		Sk.SetRow(j, S.RawRowView(i))
		wk[j] = w[i]
	}
	for i := range w {
		if w[i] == 0 {
			X.Set(i, 0, math.NaN())
			break
		}
	}
	x := testutil.RandVec(rng, d, 1)
	k := kernel.RBF{H: 1.1}
	got, want := make([]float64, d), make([]float64, d)
	sum := k.SteinDirection(got, x, X, S, w)
	wantSum := k.SteinDirection(want, x, Xk, Sk, wk)
	if math.Float64bits(sum) != math.Float64bits(wantSum) {
		t.Errorf("Σwk = %v, without the zero-weight rows %v", sum, wantSum)
	}
	for j := range want {
		if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
			t.Errorf("φ[%d] = %v, without the zero-weight rows %v", j, got[j], want[j])
		}
	}
}

// TestSteinDirectionOverExactDraws checks the two facts behind MMD-FW's
// LMO step on a Gaussian: over exact draws yₛ (weights 1/S) the Stein
// direction averages to zero (μ̂ = μ_p, so −∇F = 0), while its driving term
// k(yₛ, x) s(yₛ) alone averages to ∇μ_p(x) (NOTES §3), each within 4
// standard errors.
func TestSteinDirectionOverExactDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	d := 2
	g := testutil.Gaussian(t, rng, d)
	h := 1.3
	emb := g.RBFEmbedding(h)
	const S = 40000
	X := mat.NewDense(S, d, nil)
	Sc := mat.NewDense(S, d, nil)
	g.SampleRows(rng, X)
	for s := 0; s < S; s++ {
		g.LogProbGrad(X.RawRowView(s), Sc.RawRowView(s))
	}
	x := g.Mean()
	x[0] += 0.9
	x[1] -= 0.6
	want := make([]float64, d)
	emb.Grad(want, x)
	k := kernel.RBF{H: h}
	one := []float64{1}
	phi := make([]float64, d)
	var sum, sum2, drv, drv2 [2]float64
	for s := 0; s < S; s++ {
		k.SteinDirection(phi, x, X.Slice(s, s+1, 0, d).(*mat.Dense), Sc.Slice(s, s+1, 0, d).(*mat.Dense), one)
		kv := k.Eval(X.RawRowView(s), x)
		for j, v := range phi {
			sum[j] += v
			sum2[j] += v * v
			u := kv * Sc.At(s, j)
			drv[j] += u
			drv2[j] += u * u
		}
	}
	for j := range want {
		mean := sum[j] / S
		se := math.Sqrt((sum2[j]/S - mean*mean) / S)
		if math.Abs(mean) > 4*se {
			t.Errorf("coord %d: mean Stein direction over exact draws %v ± %v, want 0", j, mean, se)
		}
		mean = drv[j] / S
		se = math.Sqrt((drv2[j]/S - mean*mean) / S)
		if math.Abs(mean-want[j]) > 4*se {
			t.Errorf("coord %d: E[k(y,x)s(y)] = %v ± %v, ∇μ_p %v", j, mean, se, want[j])
		}
		if math.Abs(want[j]) < 10*se {
			t.Errorf("coord %d: test too weak, ∇μ_p %v vs standard error %v", j, want[j], se)
		}
	}
}

func ExampleIMQ() {
	k := kernel.IMQ{} // c = 1, β = −1/2
	x, y := []float64{0, 0}, []float64{3, 4}
	g := make([]float64, 2)
	v := k.GradX(g, x, y)
	fmt.Printf("k = %.4f, ∇ₓk = [%.4f %.4f]\n", v, g[0], g[1])
	// Output: k = 0.1961, ∇ₓk = [0.0226 0.0302]
}

func ExampleStein() {
	// N(0, 1) in one dimension: s(x) = −x. k₀(x, x) for the IMQ kernel is
	// −2d f′(0) + f(0) s(x)² = 1 + x².
	k := kernel.IMQ{}
	x := []float64{2}
	s := []float64{-2}
	fmt.Println(kernel.Stein(k, x, x, s, s))
	// Output: 5
}

func ExampleRBF_SteinDirection() {
	// One particle at 0 with score 0 (the mode of N(0, 1)), weight 1, h = 1:
	// at x = 1 the direction is the repulsion ∇_{x₁}k(x₁, x) = (x − x₁) k.
	X := mat.NewDense(1, 1, []float64{0})
	S := mat.NewDense(1, 1, []float64{0})
	dst := make([]float64, 1)
	sum := kernel.RBF{H: 1}.SteinDirection(dst, []float64{1}, X, S, []float64{1})
	fmt.Printf("φ = %.4f, Σwk = %.4f\n", dst[0], sum)
	// Output: φ = 0.6065, Σwk = 0.6065
}

// TestSteinMethodsAllocateNothing: the concrete kernels' Stein methods sit
// in the innermost loop of Stein Points and KSD computations, so they must
// not box their receiver. The parameters are drawn at run time so that the
// compiler cannot box a constant into static data and hide an allocation.
func TestSteinMethodsAllocateNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const d = 7
	x, y := testutil.RandVec(rng, d, 1), testutil.RandVec(rng, d, 1)
	sx, sy := testutil.RandVec(rng, d, 1), testutil.RandVec(rng, d, 1)
	rbf := kernel.RBF{H: 0.5 + rng.Float64()}
	imq := kernel.IMQ{C: 0.5 + rng.Float64(), Beta: -0.2 - 0.5*rng.Float64()}
	var sink float64
	if a := race.AllocsPerRun(t, 100, func() { sink += rbf.Stein(x, y, sx, sy) }); a != 0 {
		t.Errorf("RBF.Stein: %v allocations per call, want 0", a)
	}
	if a := race.AllocsPerRun(t, 100, func() { sink += imq.Stein(x, y, sx, sy) }); a != 0 {
		t.Errorf("IMQ.Stein: %v allocations per call, want 0", a)
	}
	if want := kernel.Stein(imq, x, y, sx, sy); imq.Stein(x, y, sx, sy) != want {
		t.Errorf("IMQ.Stein %v != kernel.Stein %v", imq.Stein(x, y, sx, sy), want)
	}
	if math.IsNaN(sink) {
		t.Error("NaN Stein kernel")
	}
}
