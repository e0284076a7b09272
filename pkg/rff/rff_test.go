package rff_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/rff"
)

var _ kernel.Kernel = (*rff.Features)(nil)

func TestMapMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d, D := 4, 7
	f := rff.New(rng, d, D, 1.3)
	X := testutil.RandDense(rng, 5, d)
	Phi := mat.NewDense(5, D, nil)
	f.MapRows(Phi, X)
	for i := 0; i < 5; i++ {
		x := X.RawRowView(i)
		phi := f.Map(nil, x)
		for j := 0; j < D; j++ {
			want := math.Sqrt(2/float64(D)) * math.Cos(mat.Dot(f.Omega().RowView(j), mat.NewVecDense(d, x))+f.Phase()[j])
			if math.Abs(phi[j]-want) > 1e-14 || math.Abs(Phi.At(i, j)-want) > 1e-14 {
				t.Fatalf("φ_%d(x_%d): Map %v, MapRows %v, want %v", j, i, phi[j], Phi.At(i, j), want)
			}
		}
		y := X.RawRowView((i + 1) % 5)
		if got, want := f.Eval(x, y), mat.Dot(mat.NewVecDense(D, phi), mat.NewVecDense(D, f.Map(nil, y))); math.Abs(got-want) > 1e-14 {
			t.Fatalf("Eval %v != φ(x)ᵀφ(y) %v", got, want)
		}
	}
}

func TestGradientsFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d, D := 5, 30
	f := rff.New(rng, d, D, 0.9)
	x, y := testutil.RandVec(rng, d, 1), testutil.RandVec(rng, d, 1)
	J := mat.NewDense(D, d, nil)
	f.Jacobian(J, x)
	g := make([]float64, d)
	for j := 0; j < D; j++ {
		if v := f.GradFeature(g, x, j); v != f.Map(nil, x)[j] {
			t.Fatalf("GradFeature value %v != φ_%d %v", v, j, f.Map(nil, x)[j])
		}
		for c := 0; c < d; c++ {
			want := testutil.CentralDiff(func(v []float64) float64 { return f.Map(nil, v)[j] }, x, c)
			if testutil.RelErr(J.At(j, c), want, 1e-8) > 1e-5 || J.At(j, c) != g[c] {
				t.Errorf("∂φ_%d/∂x_%d = %v (GradFeature %v), FD %v", j, c, J.At(j, c), g[c], want)
			}
		}
	}
	if v := f.GradX(g, x, y); math.Abs(v-f.Eval(x, y)) > 1e-15 {
		t.Fatalf("GradX value %v != Eval %v", v, f.Eval(x, y))
	}
	for c := 0; c < d; c++ {
		want := testutil.CentralDiff(func(v []float64) float64 { return f.Eval(v, y) }, x, c)
		if testutil.RelErr(g[c], want, 1e-8) > 1e-5 {
			t.Errorf("∇ₓk_D[%d] = %v, FD %v", c, g[c], want)
		}
	}
}

// TestKernelApproximationRate checks that φ(x)ᵀφ(y) is an unbiased estimate
// of the RBF kernel whose mean squared error is exactly (1 − k² + k⁴/2)/D:
// the RMS error falls like 1/√D. For each D the mean of D·e² over many
// independent feature draws and point pairs must match the closed form
// within 4 standard errors, and the RMS ratio between successive D (×4)
// must be 2 within 4 propagated standard errors.
func TestKernelApproximationRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d, h := 3, 1.1
	rbf := kernel.RBF{H: h}
	// Errors at different pairs share the features of their draw, so the
	// standard error is taken over the per-draw averages.
	const reps, pairs = 300, 5
	var rms, rmsSE []float64
	for _, D := range []int{100, 400, 1600} {
		var sum, sum2, bias, theory float64
		for r := 0; r < reps; r++ {
			f := rff.New(rng, d, D, h)
			var rv float64
			for p := 0; p < pairs; p++ {
				x, y := testutil.RandVec(rng, d, 1), testutil.RandVec(rng, d, 1)
				for i := range y {
					y[i] = x[i] + 0.8*y[i]
				}
				k := rbf.Eval(x, y)
				e := f.Eval(x, y) - k
				rv += float64(D) * e * e / pairs
				bias += e
				theory += 1 - k*k + k*k*k*k/2
			}
			sum += rv
			sum2 += rv * rv
		}
		m := float64(reps * pairs)
		mean := sum / reps
		se := math.Sqrt((sum2/reps - mean*mean) / reps)
		theory /= m
		if math.Abs(mean-theory) > 4*se {
			t.Errorf("D=%d: D·E[e²] = %v ± %v, closed form %v", D, mean, se, theory)
		}
		// Unbiased: the mean error is within 4 standard errors of zero
		// (pairs within a draw are at worst fully correlated).
		if b := bias / m; math.Abs(b) > 4*math.Sqrt(theory/float64(D)/reps) {
			t.Errorf("D=%d: mean error %v", D, b)
		}
		rmsD := math.Sqrt(mean / float64(D))
		rms = append(rms, rmsD)
		rmsSE = append(rmsSE, rmsD*0.5*se/mean) // delta method
		t.Logf("D=%4d: RMS error %.4g, D·MSE %.4f ± %.4f (closed form %.4f)", D, rmsD, mean, se, theory)
	}
	for i := 0; i+1 < len(rms); i++ {
		ratio := rms[i] / rms[i+1]
		se := ratio * math.Hypot(rmsSE[i]/rms[i], rmsSE[i+1]/rms[i+1])
		if math.Abs(ratio-2) > 4*se {
			t.Errorf("RMS ratio between D and 4D = %v ± %v, want 2", ratio, se)
		}
	}
}

func TestSteinFieldAgainstDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, d, D := 9, 4, 50
	f := rff.New(rng, d, D, 1.2)
	X, S := testutil.RandDense(rng, n, d), testutil.RandDense(rng, n, d)
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.Float64()
	}
	field := rff.NewSteinField(f)
	field.Reset(X, S, w)
	x := testutil.RandVec(rng, d, 1)
	got := make([]float64, d)
	val := field.Direction(got, x)
	want := make([]float64, d)
	g := make([]float64, d)
	var wantVal float64
	for i := 0; i < n; i++ {
		kv := f.GradX(g, X.RawRowView(i), x) // ∇_{xᵢ}k_D(xᵢ, x)
		wantVal += w[i] * kv
		for c := range want {
			want[c] += w[i] * (kv*S.At(i, c) + g[c])
		}
	}
	if math.Abs(val-wantVal) > 1e-12 {
		t.Errorf("Σwk = %v, want %v", val, wantVal)
	}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-12*(1+math.Abs(want[c])) {
			t.Errorf("direction[%d] = %v, want %v", c, got[c], want[c])
		}
	}
	if kxx, want := field.SelfKernel(), f.Eval(x, x); math.Abs(kxx-want) > 1e-12 {
		t.Errorf("SelfKernel = %v, want k_D(x, x) = %v", kxx, want)
	}
	if a := race.AllocsPerRun(t, 10, func() { field.Direction(got, x) }); a != 0 {
		t.Errorf("Direction allocates %v times", a)
	}
	// A second Reset with fewer particles replaces the summary.
	field.Reset(X.Slice(0, 1, 0, d).(*mat.Dense), S.Slice(0, 1, 0, d).(*mat.Dense), []float64{1})
	val = field.Direction(got, x)
	if want := f.Eval(X.RawRowView(0), x); math.Abs(val-want) > 1e-12 {
		t.Errorf("after Reset: Σwk = %v, want %v", val, want)
	}
}

func ExampleFeatures() {
	rng := rand.New(rand.NewPCG(1, 1))
	f := rff.New(rng, 2, 20000, 1)
	x, y := []float64{0, 0}, []float64{1, 0}
	fmt.Printf("k_D = %.2f, k = %.2f\n", f.Eval(x, y), math.Exp(-0.5))
	// Output: k_D = 0.61, k = 0.61
}

// The LMO of MMD-FW reads k_D(x, x) from the features that the direction
// at x has just computed.
func ExampleSteinField_SelfKernel() {
	rng := rand.New(rand.NewPCG(2, 3))
	f := rff.New(rng, 2, 5000, 1)
	X := mat.NewDense(1, 2, []float64{0, 0})
	S := mat.NewDense(1, 2, []float64{0, 0})
	field := rff.NewSteinField(f)
	field.Reset(X, S, []float64{1})
	x := []float64{0.5, -0.5}
	dir := make([]float64, 2)
	field.Direction(dir, x)
	fmt.Printf("k_D(x, x) = %.2f (Eval %.2f; the exact RBF kernel gives 1)\n", field.SelfKernel(), f.Eval(x, x))
	// Output: k_D(x, x) = 0.99 (Eval 0.99; the exact RBF kernel gives 1)
}

// TestSteinFieldAllocates: once Reserve has sized it, Reset and Direction
// allocate nothing, whatever the particle count up to the reserve (gonum's
// Gemm, which they replace, allocates for its goroutines).
func TestSteinFieldAllocates(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	d, D, n := 7, 200, 300
	f := rff.New(rng, d, D, 1.5)
	X, S := testutil.RandDense(rng, n, d), testutil.RandDense(rng, n, d)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	field := rff.NewSteinField(f)
	field.Reserve(n)
	x, dst := testutil.RandVec(rng, d, 1), make([]float64, d)
	for _, m := range []int{1, 70, 300} {
		Xm, Sm := X.Slice(0, m, 0, d).(*mat.Dense), S.Slice(0, m, 0, d).(*mat.Dense)
		if a := race.AllocsPerRun(t, 10, func() {
			field.Reset(Xm, Sm, w[:m])
			field.Direction(dst, x)
		}); a != 0 {
			t.Errorf("%d particles: %v allocations per Reset and Direction", m, a)
		}
	}
	phi := mat.NewDense(n, D, nil)
	if a := race.AllocsPerRun(t, 10, func() { f.MapRows(phi, X) }); a != 0 {
		t.Errorf("MapRows: %v allocations", a)
	}
}
