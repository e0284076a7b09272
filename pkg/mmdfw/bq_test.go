package mmdfw

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// The BQ weights of the Cholesky factor grown one row per particle equal
// those of a dense Cholesky solve of (K + λI) w = z from scratch after
// every particle, to the tolerance of a backward-stable solve,
// ‖w − w_ref‖ ≤ 8n·u·κ(K + λI)·‖w_ref‖ (u = 2⁻⁵³, κ the condition number in
// the 2-norm from the eigenvalues). The particles are clustered, so that κ
// reaches the jitter's bound k(x, x)/λ; z is the Gaussian embedding of
// N(0, I).
func TestBQIncrementalEqualsDense(t *testing.T) {
	const N, d, h = 80, 2, 1.0
	rng := rand.New(rand.NewPCG(11, 12))
	k := kernel.RBF{H: h}
	X := make([][]float64, N)
	for i := range X {
		X[i] = make([]float64, d)
		for j := range X[i] {
			// Half the particles near an earlier one: an ill-conditioned K.
			X[i][j] = rng.NormFloat64()
			if i > 0 && i%2 == 0 {
				X[i][j] = X[i-1][j] + 1e-3*rng.NormFloat64()
			}
		}
	}
	// z(x) = ∫k(x, y) N(y; 0, I) dy = (h²/(h²+1))^(d/2) exp(−‖x‖²/(2(h²+1))).
	z := func(x []float64) float64 {
		var r2 float64
		for _, v := range x {
			r2 += v * v
		}
		return math.Pow(h*h/(h*h+1), d/2) * math.Exp(-r2/(2*(h*h+1)))
	}
	lambda := DefaultJitter * k.Eval(X[0], X[0])
	s := newWeights(BQ, N, true, lambda, 1, 0)
	krow := make([]float64, N)
	worst, maxCond := 0.0, 0.0
	for n := 0; n < N; n++ {
		for i := 0; i <= n; i++ {
			krow[i] = k.Eval(X[n], X[i])
		}
		if err := s.add(krow[:n+1], z(X[n]), nil); err != nil {
			t.Fatal(err)
		}
		m := n + 1
		A := mat.NewSymDense(m, nil)
		zv := mat.NewVecDense(m, nil)
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				A.SetSym(i, j, k.Eval(X[i], X[j]))
			}
			A.SetSym(i, i, A.At(i, i)+lambda)
			zv.SetVec(i, z(X[i]))
		}
		var eig mat.EigenSym
		if !eig.Factorize(A, false) {
			t.Fatal("eigendecomposition failed")
		}
		ev := eig.Values(nil)
		cond := ev[m-1] / ev[0]
		var ch mat.Cholesky
		if !ch.Factorize(A) {
			t.Fatalf("n = %d: dense Cholesky failed", m)
		}
		var ref mat.VecDense
		if err := ch.SolveVecTo(&ref, zv); err != nil {
			t.Fatal(err)
		}
		var diff, norm float64
		for i := 0; i < m; i++ {
			diff += (s.w[i] - ref.AtVec(i)) * (s.w[i] - ref.AtVec(i))
			norm += ref.AtVec(i) * ref.AtVec(i)
		}
		rel := math.Sqrt(diff / norm)
		if tol := 8 * float64(m) * eps * cond; rel > tol {
			t.Fatalf("n = %d: relative difference %.3g above %.3g (κ = %.3g)", m, rel, tol, cond)
		}
		worst, maxCond = math.Max(worst, rel), math.Max(maxCond, cond)
	}
	// The test reached the ill-conditioning it is about.
	if maxCond < 1e6 {
		t.Fatalf("largest κ %.3g: the particles do not make K ill-conditioned", maxCond)
	}
	t.Logf("largest κ %.3g, largest relative difference %.3g", maxCond, worst)
}
