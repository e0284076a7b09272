package testutil

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// errCounter is a testing.TB that counts Errorf calls instead of failing;
// CheckGrad calls nothing else.
type errCounter struct {
	testing.TB
	errs int
}

func (e *errCounter) Helper()               {}
func (e *errCounter) Errorf(string, ...any) { e.errs++ }

// TestCheckGrad: the checker passes the exact gradient of
// f(x) = sin(x₀) x₁² + exp(x₂) and flags exactly the coordinate of a
// gradient that is wrong by 10⁻³ in relative terms.
func TestCheckGrad(t *testing.T) {
	f := func(x []float64) float64 { return math.Sin(x[0])*x[1]*x[1] + math.Exp(x[2]) }
	x := []float64{0.3, -1.2, 0.5}
	g := []float64{math.Cos(x[0]) * x[1] * x[1], 2 * math.Sin(x[0]) * x[1], math.Exp(x[2])}
	if !CheckGrad(t, "exact", f, x, g) {
		t.Fatal("exact gradient rejected")
	}
	bad := append([]float64(nil), g...)
	bad[1] *= 1 + 1e-3
	var c errCounter
	if CheckGrad(&c, "bad", f, x, bad) || c.errs != 1 {
		t.Errorf("gradient wrong in one coordinate: %d errors, want 1", c.errs)
	}
	if x[0] != 0.3 || x[1] != -1.2 || x[2] != 0.5 {
		t.Errorf("x changed to %v", x)
	}
}

// TestLogisticData: the shape, the bias column, features in [0, 1), labels
// ±1 with both present, and the same data from the same seed.
func TestLogisticData(t *testing.T) {
	const n, p = 400, 4
	X, y := LogisticData(rand.New(rand.NewPCG(1, 2)), n, p)
	if r, c := X.Dims(); r != n || c != p || len(y) != n {
		t.Fatalf("%d×%d and %d labels, want %d×%d and %d", r, c, len(y), n, p, n)
	}
	var pos int
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		if row[p-1] != 1 {
			t.Fatalf("row %d: bias %v, want 1", i, row[p-1])
		}
		for j, v := range row[:p-1] {
			if v < 0 || v >= 1 {
				t.Fatalf("x[%d][%d] = %v outside [0, 1)", i, j, v)
			}
		}
		switch y[i] {
		case 1:
			pos++
		case -1:
		default:
			t.Fatalf("y[%d] = %v, want ±1", i, y[i])
		}
	}
	if pos == 0 || pos == n {
		t.Errorf("%d of %d labels positive: one class only", pos, n)
	}
	X2, y2 := LogisticData(rand.New(rand.NewPCG(1, 2)), n, p)
	if !mat.Equal(X, X2) || !slices.Equal(y, y2) {
		t.Error("same seed, different data")
	}
}

// TestGaussian: Σ = 0.3 AAᵀ + 0.5 I has its eigenvalues at or above 0.5.
func TestGaussian(t *testing.T) {
	g := Gaussian(t, rand.New(rand.NewPCG(3, 4)), 6)
	var eig mat.EigenSym
	if !eig.Factorize(g.Cov(), false) {
		t.Fatal("no eigendecomposition")
	}
	for _, v := range eig.Values(nil) {
		if v < 0.5-1e-12 {
			t.Errorf("eigenvalue %v below 0.5", v)
		}
	}
}

// TestMeanSE: mean and standard error of {1, 2, 3, 4}: 2.5 and √(1.25/4).
func TestMeanSE(t *testing.T) {
	m, se := MeanSE([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(se-math.Sqrt(1.25/4)) > 1e-15 {
		t.Errorf("MeanSE = %v, %v; want 2.5, %v", m, se, math.Sqrt(1.25/4))
	}
}

func TestSameBits(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{1, math.NaN(), 0, 3})
	if !SameBits(a, mat.DenseCopyOf(a)) {
		t.Error("a copy differs")
	}
	if SameBits(a, mat.NewDense(2, 2, []float64{1, math.NaN(), math.Copysign(0, -1), 3})) {
		t.Error("0 and −0 compare equal")
	}
	if SameBits(a, mat.NewDense(1, 4, []float64{1, math.NaN(), 0, 3})) {
		t.Error("a 1×4 matrix equals a 2×2 one")
	}
	// A view with a stride larger than its width compares by its elements.
	big := mat.NewDense(2, 3, []float64{1, math.NaN(), 9, 0, 3, 9})
	if !SameBits(a, big.Slice(0, 2, 0, 2).(*mat.Dense)) {
		t.Error("a strided view with the same elements differs")
	}
	if SameFloats([]float64{1}, []float64{1, 2}) || !SameFloats(nil, []float64{}) {
		t.Error("SameFloats compares lengths wrongly")
	}
}
