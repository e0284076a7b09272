package metric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// gaussSet draws n points of N(0, A·diag(k²)·Aᵀ) and returns them with their
// scores under the target N(0, AAᵀ): s = −(AAᵀ)⁻¹x. Along the target's
// axis j (column j of A) the set's variance is k[j]² of the target's.
func gaussSet(rng *rand.Rand, n int, A *mat.Dense, k []float64) (X, S *mat.Dense) {
	d := len(k)
	X = mat.NewDense(n, d, nil)
	z := make([]float64, d)
	for i := range n {
		for j := range z {
			z[j] = k[j] * rng.NormFloat64()
		}
		X.RowView(i).(*mat.VecDense).MulVec(A, mat.NewVecDense(d, z))
	}
	var P mat.Dense // (AAᵀ)⁻¹
	var C mat.Dense
	C.Mul(A, A.T())
	if err := P.Inverse(&C); err != nil {
		panic(err)
	}
	S = mat.NewDense(n, d, nil)
	S.Mul(X, &P)
	S.Scale(-1, S)
	return X, S
}

// mixing returns a d×d matrix with unit diagonal and off-diagonal
// entries rho·u, u uniform on (−1, 1): correlated target axes.
func mixing(rng *rand.Rand, d int, rho float64) *mat.Dense {
	A := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			if i == j {
				A.Set(i, j, 1)
			} else {
				A.Set(i, j, rho*(2*rng.Float64()-1))
			}
		}
	}
	return A
}

func ones(d int) []float64 {
	k := make([]float64, d)
	for j := range k {
		k[j] = 1
	}
	return k
}

// On a correlated Gaussian target, the spread spectrum of many independent
// draws lies within the Marchenko–Pastur edges (1 ± √(d/n))² (d/n = 1/800
// here: 0.93–1.07); a set whose variance along one target axis is 0.3² of
// the target's has its smallest eigenvalue near 0.09; an affine map of the
// coordinates leaves the spectrum unchanged.
func TestSpreadSpectrum(t *testing.T) {
	const n, d = 4000, 5
	rng := rand.New(rand.NewPCG(3, 4))
	A := mixing(rng, d, 0.6)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	X, S := gaussSet(rng, n, A, ones(d))
	lo, hi, ok := SpreadSpectrum(X, w, S)
	if !ok || !(lo > 0.9 && hi < 1.1) {
		t.Errorf("independent draws: spectrum %.4g–%.4g (ok %v), want within 0.9–1.1", lo, hi, ok)
	}
	k := ones(d)
	k[2] = 0.3
	X, S = gaussSet(rng, n, A, k)
	lo, hi, ok = SpreadSpectrum(X, w, S)
	if !ok || math.Abs(lo-0.09) > 0.01 || !(hi > 0.9 && hi < 1.1) {
		t.Errorf("narrow along one axis (0.3 sd): spectrum %.4g–%.4g (ok %v), want lo 0.09 ± 0.01 and hi about 1", lo, hi, ok)
	}
	// y = Bx + b, scores B⁻ᵀs.
	B := mixing(rng, d, 2)
	var Binv mat.Dense
	if err := Binv.Inverse(B); err != nil {
		t.Fatal(err)
	}
	var Y, SY mat.Dense
	Y.Mul(X, B.T())
	for i := range n {
		for j := range d {
			Y.Set(i, j, Y.At(i, j)+float64(j))
		}
	}
	SY.Mul(S, &Binv)
	lo2, hi2, ok2 := SpreadSpectrum(&Y, w, &SY)
	if !ok2 || math.Abs(lo2-lo) > 1e-8 || math.Abs(hi2-hi) > 1e-8 {
		t.Errorf("affine map: spectrum %.10g–%.10g, want %.10g–%.10g", lo2, hi2, lo, hi)
	}
}

// SpreadSpectrum computes nothing for sets it cannot whiten.
func TestSpreadSpectrumNone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	X, S := gaussSet(rng, 20, mixing(rng, 3, 0.3), ones(3))
	w := make([]float64, 20)
	for i := range w {
		w[i] = 1
	}
	for _, c := range []struct {
		name string
		X, S *mat.Dense
		w    []float64
	}{
		{"n ≤ d", X.Slice(0, 3, 0, 3).(*mat.Dense), S.Slice(0, 3, 0, 3).(*mat.Dense), w[:3]},
		{"a negative weight", X, S, append([]float64{-1}, w[1:]...)},
		{"zero weights", X, S, make([]float64, 20)},
		{"coincident points", mat.NewDense(20, 3, nil), S, w},
	} {
		if lo, hi, ok := SpreadSpectrum(c.X, c.w, c.S); ok {
			t.Errorf("%s: spectrum %g–%g, want none", c.name, lo, hi)
		}
	}
}

// DiagnoseNarrow flags no set of n = 100 independent draws of a correlated
// Gaussian in 10 dimensions (their smallest eigenvalue lies near the
// Marchenko–Pastur edge 0.47, the bound is 0.23) on 50 seeds, and flags
// every set whose sd along one target axis is 0.2 of the target's (smallest
// eigenvalue about 0.04·0.47). A set whose Kish ESS is below NarrowMinESS·d
// records its spectrum but is not judged.
func TestDiagnoseNarrow(t *testing.T) {
	const n, d = 100, 10
	rng := rand.New(rand.NewPCG(7, 8))
	A := mixing(rng, d, 0.3)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	narrow := ones(d)
	narrow[4] = 0.2
	worst, best := math.Inf(1), math.Inf(-1)
	for seed := range 50 {
		for _, c := range []struct {
			k    []float64
			flag string
		}{{ones(d), ""}, {narrow, "narrow"}} {
			X, S := gaussSet(rng, n, A, c.k)
			var dg particle.Diagnostics
			DiagnoseNarrow(&dg, "test", X, w, S)
			if got := flags(dg); got != c.flag {
				t.Errorf("seed %d, sd ratios %v: flags %q, want %q (spread_min %.3g, bound %.3g)", seed, c.k, got, c.flag,
					dg.Values["spread_min"], NarrowBound(n, d))
			}
			if c.flag == "" {
				worst = min(worst, dg.Values["spread_min"])
			} else {
				best = max(best, dg.Values["spread_min"])
			}
		}
	}
	t.Logf("smallest eigenvalue: independent draws ≥ %.3g, narrow sets ≤ %.3g, bound %.3g", worst, best, NarrowBound(n, d))

	// Kish's ESS 2·d − 1: no judgement.
	X, S := gaussSet(rng, n, A, narrow)
	wl := make([]float64, n)
	for i := range 2*d - 1 {
		wl[i] = 1
	}
	for i := 2*d - 1; i < n; i++ {
		wl[i] = 1e-12
	}
	var dg particle.Diagnostics
	DiagnoseNarrow(&dg, "test", X, wl, S)
	if _, ok := dg.Values["spread_min"]; dg.Flagged() || !ok {
		t.Errorf("Kish ESS %.3g < %d: flags %q, values %v; want the spectrum recorded and no flag",
			particle.Set{W: wl}.ESS(), NarrowMinESS*d, flags(dg), dg.Values)
	}
}

// ExampleSpreadSpectrum: a set of the target N(0, I₂) whose spread along
// the second axis is half the target's (variance ¼).
func ExampleSpreadSpectrum() {
	X := mat.NewDense(4, 2, []float64{
		1, 0.5,
		-1, 0.5,
		1, -0.5,
		-1, -0.5,
	})
	S := mat.NewDense(4, 2, nil)
	S.Scale(-1, X) // ∇log p(x) = −x
	lo, hi, ok := SpreadSpectrum(X, []float64{1, 1, 1, 1}, S)
	fmt.Printf("%.2f %.2f %v\n", lo, hi, ok)
	// Output: 0.25 1.00 true
}
