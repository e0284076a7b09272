package model

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

var _ target.Hessian = (*Logistic)(nil)

// hessFD returns the central differences of the analytic gradient, column
// j from steps of h·max(1, |θⱼ|), unsymmetrised.
func hessFD(m *Logistic, x []float64, h float64) *mat.Dense {
	d := len(x)
	H := mat.NewDense(d, d, nil)
	gp := make([]float64, d)
	gm := make([]float64, d)
	xp := append([]float64(nil), x...)
	for j := 0; j < d; j++ {
		del := h * math.Max(1, math.Abs(x[j]))
		copy(xp, x)
		xp[j] = x[j] + del
		m.LogProbGrad(xp, gp)
		xp[j] = x[j] - del
		m.LogProbGrad(xp, gm)
		for i := 0; i < d; i++ {
			H.Set(i, j, (gp[i]-gm[i])/(2*del))
		}
	}
	return H
}

// The analytic Hessian matches central differences of the analytic
// gradient in every entry. With step δ = 1e-5 the truncation error is
// O(δ²·|∂³log p|) and the round-off O(ε·|∇log p|/δ); for a few thousand
// rows both are below 1e-6·(1 + |Hᵢⱼ|), the tolerance used, while a wrong
// prior term (α, αw or α(‖w‖²/2+b₀), each of order 1 or more here) would
// miss it by orders of magnitude.
func TestLogisticHessianFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, tc := range []struct{ n, p int }{{1, 2}, {300, 5}, {5000, 8}} {
		X, y := synthLogistic(rng, tc.n, tc.p)
		m := NewLogistic(X, y)
		x := randVec(rng, m.Dim(), 0.5)
		x[tc.p] = 0.7 // α ≈ 2: the prior terms are not negligible
		var H mat.SymDense
		m.LogProbHessian(&H, x)
		F := hessFD(m, x, 1e-5)
		var worst float64
		for i := 0; i < m.Dim(); i++ {
			for j := 0; j < m.Dim(); j++ {
				h := H.At(i, j)
				err := math.Abs(h-F.At(i, j)) / (1 + math.Abs(h))
				worst = math.Max(worst, err)
				if err > 1e-6 {
					t.Errorf("n=%d p=%d: H[%d,%d] = %.10g, differences %.10g", tc.n, tc.p, i, j, h, F.At(i, j))
				}
			}
		}
		t.Logf("n=%d p=%d: worst relative error %.2g", tc.n, tc.p, worst)
		// Negative definite: log p is concave in w for fixed s, and the
		// full Hessian is negative definite near a mode; here we only need
		// the w block, −XᵀDX − αI.
		var ch mat.Cholesky
		wb := mat.NewSymDense(tc.p, nil)
		for i := 0; i < tc.p; i++ {
			for j := i; j < tc.p; j++ {
				wb.SetSym(i, j, -H.At(i, j))
			}
		}
		if !ch.Factorize(wb) {
			t.Errorf("n=%d p=%d: −∇²_w log p is not positive definite", tc.n, tc.p)
		}
	}
}

// The unsymmetrised differences are symmetric to their own accuracy, and the
// result is bit-identical whatever the number of workers, also when the
// chunks of rows outnumber them.
func TestLogisticHessianWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	X, y := synthLogistic(rng, 3*lrMinRows+17, 6)
	m := NewLogistic(X, y)
	x := randVec(rng, m.Dim(), 0.3)
	var ref mat.SymDense
	m.Workers = 1
	m.LogProbHessian(&ref, x)
	for _, w := range []int{2, 3, 8} {
		m.Workers = w
		H := mat.NewSymDense(m.Dim(), nil)
		m.LogProbHessian(H, x)
		if !mat.Equal(H, &ref) {
			t.Errorf("Workers=%d: Hessian differs from Workers=1", w)
		}
	}
	F := hessFD(m, x, 1e-5)
	for i := 0; i < m.Dim(); i++ {
		for j := 0; j < i; j++ {
			if a, b := F.At(i, j), F.At(j, i); math.Abs(a-b) > 1e-6*(1+math.Abs(a)) {
				t.Errorf("differences not symmetric at (%d,%d): %g vs %g", i, j, a, b)
			}
		}
	}
}

// Extreme logits (|u| ≫ 700) give dₙ = 0, not NaN.
func TestLogisticHessianExtreme(t *testing.T) {
	X := mat.NewDense(2, 2, []float64{1e4, 1, -1e4, 1})
	m := NewLogistic(X, []float64{1, -1})
	var H mat.SymDense
	m.LogProbHessian(&H, []float64{1, 0, 0})
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if v := H.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("H[%d,%d] = %v", i, j, v)
			}
		}
	}
	if got, want := H.At(0, 0), -1.0; got != want {
		t.Errorf("H[0,0] = %v, want −α = %v", got, want)
	}
}

func TestLogisticHessianPanics(t *testing.T) {
	X, y := synthLogistic(rand.New(rand.NewPCG(1, 1)), 10, 3)
	m := NewLogistic(X, y)
	defer func() {
		if r := recover(); r == nil {
			t.Error("no panic on a destination of the wrong size")
		}
	}()
	m.LogProbHessian(mat.NewSymDense(2, nil), make([]float64, 4))
}

// BenchmarkBLRHessian compares the analytic Hessian of a logistic
// regression the size of the training rows of the 20,000-row Covertype
// prefix (16,000 rows, 54 features and a bias column) with what the finite-difference Laplace fit spends
// on it: 2d = 112 full-data gradients, evaluated at once as FitLaplace does
// for a target.Batched ("fd112"). Each reports its time and, as
// "gradevals-equiv/op", that time in per-datapoint gradient evaluations at
// the measured speed of one full-data gradient (N per gradient).
func BenchmarkBLRHessian(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	X, y := synthLogistic(rng, 16000, covCols)
	m := NewLogistic(X, y)
	x := randVec(rng, m.Dim(), 0.1)
	grad := make([]float64, m.Dim())
	perGrad := func() float64 { // seconds of one full-data gradient
		const reps = 5
		t0 := time.Now()
		for range reps {
			m.LogProbGrad(x, grad)
		}
		return time.Since(t0).Seconds() / reps
	}
	equiv := func(b *testing.B, g float64) {
		per := b.Elapsed().Seconds() / float64(b.N)
		b.ReportMetric(per/g*float64(m.NData()), "gradevals-equiv/op")
	}
	b.Run("analytic", func(b *testing.B) {
		g := perGrad()
		H := mat.NewSymDense(m.Dim(), nil)
		m.LogProbHessian(H, x)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			m.LogProbHessian(H, x)
		}
		equiv(b, g)
	})
	b.Run("fd112", func(b *testing.B) {
		g := perGrad()
		d := m.Dim()
		pts := mat.NewDense(2*d, d, nil)
		for j := 0; j < d; j++ {
			copy(pts.RawRowView(2*j), x)
			copy(pts.RawRowView(2*j+1), x)
			pts.Set(2*j, j, x[j]+1e-4)
			pts.Set(2*j+1, j, x[j]-1e-4)
		}
		grads := mat.NewDense(2*d, d, nil)
		lp := make([]float64, 2*d)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			m.LogProbGradBatch(pts, grads, lp)
		}
		equiv(b, g)
	})
}
