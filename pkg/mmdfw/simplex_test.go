package mmdfw

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// solveQP adds the n particles of the symmetric n×n matrix Q (row-major)
// with b (nil: Stein, minimise wᵀQw; else MMD, wᵀQw − 2bᵀw + c) one at a
// time to a weights state of the given solver, as a run does, and returns
// it after the last.
func solveQP(t *testing.T, Q, b []float64, c float64, n int, pairwise bool, tol float64, ceil, fistaIters int) *weights {
	t.Helper()
	rule := Stein
	if b != nil {
		rule = MMD
	}
	s := newWeights(rule, n, false, 0, 1, fistaIters)
	if pairwise {
		s.usePairwise(tol, ceil, c)
	}
	row := make([]float64, n)
	for k := 0; k < n; k++ {
		copy(row, Q[k*n:k*n+k+1])
		var z float64
		if b != nil {
			z = b[k]
		}
		if err := s.add(row[:k+1], z, row[:k+1]); err != nil {
			t.Fatal(err)
		}
		checkSimplex(t, s.w[:k+1])
	}
	return s
}

// fistaRef returns the FISTA solver's weights after iters iterations from
// equal weights on all n particles of Q at once (b nil: Stein; else MMD).
func fistaRef(Q, b []float64, n, iters int) []float64 {
	rule := Stein
	if b != nil {
		rule = MMD
	}
	s := newWeights(rule, n, false, 0, 1, iters)
	copy(s.qp.q, Q)
	for i := range b {
		s.qp.nb[i] = -b[i]
	}
	s.n = n
	for i := range s.w {
		s.w[i] = 1 / float64(n)
	}
	s.fistaSolve()
	return s.w
}

// checkSimplex fails unless w is a point of the simplex (to 1e-12).
func checkSimplex(t *testing.T, w []float64) {
	t.Helper()
	var sum float64
	for i, v := range w {
		if !(v >= 0) {
			t.Fatalf("w[%d] = %v", i, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Fatalf("weights sum to 1%+.3g", sum-1)
	}
}

// objective returns F(w) = wᵀQw − 2bᵀw + c and the Frank-Wolfe gap
// 2(wᵀg − minᵢ gᵢ), g = Qw − b, computed directly from Q.
func objective(Q, b []float64, c float64, w []float64) (F, gap float64) {
	n := len(w)
	gmin := math.Inf(1)
	var wg, wb float64
	for i := 0; i < n; i++ {
		var g float64
		for j := 0; j < n; j++ {
			g += Q[i*n+j] * w[j]
		}
		if b != nil {
			g -= b[i]
			wb += w[i] * b[i]
		}
		gmin = math.Min(gmin, g)
		wg += w[i] * g
	}
	return wg - wb + c, 2 * (wg - gmin)
}

// randomPSD returns AᵀA/m for an m×n standard normal A (rank min(m, n)),
// scaled by a log-uniform factor per row and column to spread the
// diagonal over two decades, as Stein kernel matrices spread theirs.
func randomPSD(rng *rand.Rand, n, m int) []float64 {
	A := make([]float64, m*n)
	for i := range A {
		A[i] = rng.NormFloat64()
	}
	sc := make([]float64, n)
	for j := range sc {
		sc[j] = math.Exp(rng.Float64() * math.Log(100) / 2)
	}
	Q := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var v float64
			for k := 0; k < m; k++ {
				v += A[k*n+i] * A[k*n+j]
			}
			v *= sc[i] * sc[j] / float64(m)
			Q[i*n+j], Q[j*n+i] = v, v
		}
	}
	return Q
}

// On random PSD problems of full rank, with and without a linear term, the
// pairwise solver meets its certificate (recomputed here from Q), its
// objective is within that certificate of the optimum of the FISTA solver
// run far past its default iterations, and its weights are within the
// strong-convexity bound √(gap/λmin) of FISTA's. On problems of deficient
// rank (whose optimum is often F* = 0, the origin in the hull, where
// Frank-Wolfe slows down) every solve either meets the certificate or is
// counted as not converged, and the final objective is within the
// certificate of FISTA's.
func TestPairwiseRandomPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	const tol = 1e-6
	for trial := 0; trial < 24; trial++ {
		n := 10 + rng.IntN(50)
		m := []int{3, n / 2, 2 * n}[trial%3]
		Q := randomPSD(rng, n, m)
		var b []float64
		var c float64
		if trial%2 == 1 {
			// MMD-shaped: b = Qv for a point v off the simplex, c = vᵀQv,
			// so that F(w) = (w − v)ᵀQ(w − v) ≥ 0.
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64() / float64(n)
			}
			b = make([]float64, n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					b[i] += Q[i*n+j] * v[j]
				}
				c += v[i] * b[i]
			}
		}
		pw := solveQP(t, Q, b, c, n, true, tol, DefaultWeightIter, 0)
		ref := fistaRef(Q, b, n, 20000)
		Fp, gp := objective(Q, b, c, pw.w[:n])
		Fr, gr := objective(Q, b, c, ref)
		slack := 128 * eps * (pw.qp.maxAbs + math.Abs(c))
		st := pw.qp.stats
		if m >= n && st.NotConverged != 0 {
			t.Fatalf("trial %d (n %d, full rank): %+v", trial, n, st)
		}
		// The certificate of the last solve, recomputed from Q:
		// min(gap, F) bounds F − min F (min F ≥ 0).
		ub := math.Min(gp, Fp)
		if st.NotConverged == 0 && ub > tol*Fp+slack {
			t.Errorf("trial %d: bound %.3g above tol·F = %.3g", trial, ub, tol*Fp)
		}
		// FISTA's optimum is no better than F − bound, and the pairwise
		// objective no worse than FISTA's plus FISTA's gap.
		if Fr < Fp-ub-slack || Fp > Fr+gr+ub+slack {
			t.Errorf("trial %d: F pairwise %.12g (gap %.3g), FISTA %.12g (gap %.3g)", trial, Fp, gp, Fr, gr)
		}
		if m >= n {
			var sym mat.EigenSym
			if !sym.Factorize(mat.NewSymDense(n, Q), false) {
				t.Fatal("eigendecomposition failed")
			}
			lmin := sym.Values(nil)[0]
			// F(w) − F(w*) ≥ (w − w*)ᵀQ(w − w*) ≥ λmin‖w − w*‖² on the
			// simplex; both solutions are within their gaps of w*.
			bound := math.Sqrt((ub+slack)/lmin) + math.Sqrt((gr+slack)/lmin)
			var d2 float64
			for i := 0; i < n; i++ {
				d2 += (pw.w[i] - ref[i]) * (pw.w[i] - ref[i])
			}
			if math.Sqrt(d2) > bound {
				t.Errorf("trial %d: ‖w − w_FISTA‖ = %.3g above the bound %.3g (λmin %.3g)", trial, math.Sqrt(d2), bound, lmin)
			}
		}
	}
}

// A diagonal Q has the optimum wᵢ ∝ 1/Qᵢᵢ, F* = 1/Σᵢ(1/Qᵢᵢ).
func TestPairwiseDiagonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	const n, tol = 60, 1e-9
	Q := make([]float64, n*n)
	var inv float64
	for i := 0; i < n; i++ {
		Q[i*n+i] = math.Exp(rng.NormFloat64())
		inv += 1 / Q[i*n+i]
	}
	s := solveQP(t, Q, nil, 0, n, true, tol, DefaultWeightIter, 0)
	F, _ := objective(Q, nil, 0, s.w[:n])
	if math.Abs(F*inv-1) > 2*tol {
		t.Errorf("F = %.15g, want %.15g", F, 1/inv)
	}
	// F(w) − F* = Σ Qᵢᵢ(wᵢ − wᵢ*)² ≤ tol·F.
	for i := 0; i < n; i++ {
		want := 1 / (Q[i*n+i] * inv)
		if d := math.Abs(s.w[i] - want); d > math.Sqrt(2*tol*F/Q[i*n+i]) {
			t.Errorf("w[%d] = %.12g, want %.12g", i, s.w[i], want)
		}
	}
}

// A Gram matrix of points xᵢ ∈ R² (linear kernel) gives F(w) = ‖Σwᵢxᵢ‖²,
// the squared distance from the origin to the points' hull. With x₀ =
// (−1, 1), x₁ = (1, 1), a duplicate of x₀ and the others above the line
// y = 1, the optimum is the point (0, 1): F* = 1, weight ½ on x₁ and ½ on
// x₀ and its duplicate together, none elsewhere (a sparse optimum that is
// not unique in w). A particle at the origin (a zero row) then makes
// F* = 0 at that particle alone.
func TestPairwiseSparseAndDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	const n, tol = 40, 1e-8
	pts := make([][2]float64, n)
	for i := range pts {
		pts[i] = [2]float64{4*rng.Float64() - 2, 1.2 + 3*rng.Float64()}
	}
	// The special points arrive late, as new particles do.
	pts[20] = [2]float64{-1, 1}
	pts[25] = [2]float64{1, 1}
	pts[30] = [2]float64{-1, 1}
	gram := func(m int) []float64 {
		Q := make([]float64, m*m)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				Q[i*m+j] = pts[i][0]*pts[j][0] + pts[i][1]*pts[j][1]
			}
		}
		return Q
	}
	Q := gram(n)
	s := solveQP(t, Q, nil, 0, n, true, tol, DefaultWeightIter, 0)
	F, gap := objective(Q, nil, 0, s.w[:n])
	if math.Abs(F-1) > 2*tol || gap > 2*tol {
		t.Errorf("F = %.15g (gap %.3g), want 1", F, gap)
	}
	w := s.w[:n]
	if math.Abs(w[20]+w[30]-0.5) > 1e-4 || math.Abs(w[25]-0.5) > 1e-4 {
		t.Errorf("w₂₀ + w₃₀ = %.9g, w₂₅ = %.9g, want ½ and ½", w[20]+w[30], w[25])
	}
	for i, v := range w {
		if i != 20 && i != 25 && i != 30 && v > 1e-4 {
			t.Errorf("w[%d] = %.3g, want ≈ 0", i, v)
		}
	}

	// A zero row: the particle at the origin takes all the weight.
	pts = append(pts, [2]float64{0, 0})
	Q = gram(n + 1)
	s = solveQP(t, Q, nil, 0, n+1, true, tol, DefaultWeightIter, 0)
	F, _ = objective(Q, nil, 0, s.w[:n+1])
	if F > 64*eps*s.qp.maxAbs || math.Abs(s.w[n]-1) > 1e-6 {
		t.Errorf("with a zero row: F = %.3g, w[zero] = %.12g, want 0 and 1", F, s.w[n])
	}
	if st := s.qp.stats; st.NotConverged != 0 {
		t.Errorf("with a zero row: %+v", st)
	}
}

// Duplicate particles (identical rows, κ = 0 between them) on a Stein
// kernel matrix leave the solver finite, converged and at FISTA's
// objective.
func TestPairwiseDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 4))
	const n, d, tol = 50, 3, 1e-6
	X := make([][]float64, n)
	S := make([][]float64, n)
	for i := range X {
		if i%5 == 4 {
			X[i], S[i] = X[i-3], S[i-3] // a duplicate of an earlier particle
			continue
		}
		X[i], S[i] = make([]float64, d), make([]float64, d)
		for j := range X[i] {
			X[i][j] = rng.NormFloat64()
			S[i][j] = -X[i][j]
		}
	}
	k := kernel.RBF{H: 1}
	Q := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			Q[i*n+j] = kernel.Stein(k, X[i], X[j], S[i], S[j])
		}
	}
	pw := solveQP(t, Q, nil, 0, n, true, tol, DefaultWeightIter, 0)
	Fp, gp := objective(Q, nil, 0, pw.w[:n])
	Fr, _ := objective(Q, nil, 0, fistaRef(Q, nil, n, 20000))
	if st := pw.qp.stats; st.NotConverged != 0 || gp > tol*Fp+64*eps*pw.qp.maxAbs {
		t.Fatalf("gap %.3g at F %.6g: %+v", gp, Fp, st)
	}
	if Fr < Fp-gp || Fp > Fr*(1+tol) {
		t.Errorf("F pairwise %.12g, FISTA %.12g", Fp, Fr)
	}
}

// A solve stopped by the ceiling says so: counted in the statistics, in
// Result.WeightSolve and as a "weights" flag of the set's diagnostics.
func TestPairwiseCeiling(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 5))
	const n = 40
	Q := randomPSD(rng, n, n)
	s := solveQP(t, Q, nil, 0, n, true, 1e-12, 1, 0)
	if st := s.qp.stats; st.NotConverged == 0 || st.FirstNotConverged == 0 || st.WorstGap <= 1e-12 {
		t.Fatalf("one iteration per solve at tol 1e-12 reported %+v", st)
	}

	g, err := target.NewGaussian([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0.3, 0.3, 1}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ceil := range []int{1, 0} {
		mmdfwRes, err := Run(context.Background(), g, particle.Start{}, Settings{
			N:          30,
			KernelSpec: KernelSpec{Bandwidth: 1},
			Weighting:  Weighting{Weights: Stein, WeightTol: 1e-12, WeightIterations: ceil},
			LMO:        LMO{LMOSteps: 20},
		}, rand.NewPCG(1, 2), nil)
		res, _ := mmdfwRes.Detail.(*Result)
		if err != nil {
			t.Fatal(err)
		}
		st := res.WeightSolve
		// The weight solver's flag (other ceilings of the run raise flags
		// of their own).
		flagged := false
		for _, f := range res.Set.Diag.Flags {
			flagged = flagged || (f.Code == "weights" && strings.Contains(f.Reason, "weight solve"))
		}
		if ceil == 1 && (st.NotConverged == 0 || !flagged) {
			t.Errorf("ceiling 1: stats %+v, diagnostics %+v", st, res.Set.Diag)
		}
		if ceil == 0 && (st.Solves != res.Set.Len()-1 || st.NotConverged != 0 || flagged) {
			t.Errorf("default ceiling: stats %+v, diagnostics %+v", st, res.Set.Diag)
		}
	}
}

// On a run (Stein weights of a correlated Gaussian) the pairwise weights'
// KSD² is within the tolerance of the optimum for the run's particles,
// and no worse than FISTA's 300 iterations on the same particles.
func TestPairwiseRunStein(t *testing.T) {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}))
	if err != nil {
		t.Fatal(err)
	}
	mmdfwRes, err := Run(context.Background(), g, particle.Start{}, Settings{N: 60, KernelSpec: KernelSpec{Bandwidth: 1}, Weighting: Weighting{Weights: Stein}, Candidates: Candidates{Scale: ScaleBandwidth}},
		rand.NewPCG(3, 4), nil)
	res, _ := mmdfwRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	N := res.Set.Len()
	if st := res.WeightSolve; st.Solves != N-1 || st.NotConverged != 0 {
		t.Fatalf("stats %+v", st)
	}
	S := make([][]float64, N)
	for i := range S {
		S[i] = make([]float64, 2)
		g.LogProbGrad(res.Set.X.RawRowView(i), S[i])
	}
	k := kernel.RBF{H: 1}
	Q := make([]float64, N*N)
	for i := 0; i < N; i++ {
		for j := 0; j < N; j++ {
			Q[i*N+j] = kernel.Stein(k, res.Set.X.RawRowView(i), res.Set.X.RawRowView(j), S[i], S[j])
		}
	}
	F, gap := objective(Q, nil, 0, res.Set.W)
	if gap > DefaultWeightTol*F+64*eps*maxAbs(Q) {
		t.Errorf("run weights: gap %.3g at KSD² %.6g", gap, F)
	}
	ref := solveQP(t, Q, nil, 0, N, false, 0, 0, DefaultSteinIterations)
	Fr, _ := objective(Q, nil, 0, ref.w[:N])
	if F > Fr {
		t.Errorf("KSD² pairwise %.9g above FISTA's %.9g", F, Fr)
	}
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// The MMD rule (simplex weights for ‖μ̂ − μ_p‖² with an exact z) does at
// least as well as any other simplex weights of its own particles, equal
// weights among them, with either solver, and its MMD² falls with n.
func TestMMDRule(t *testing.T) {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1}))
	if err != nil {
		t.Fatal(err)
	}
	emb := g.RBFEmbedding(1)
	for _, sv := range []WeightSolver{SolverPairwise, SolverFISTA} {
		var first, last float64
		mmdfwRes, err := Run(context.Background(), g, particle.Start{}, Settings{Inputs: Inputs{Embed: GaussianEmbedding(g)},
			N:          40,
			KernelSpec: KernelSpec{Bandwidth: 1},
			Weighting:  Weighting{Weights: MMD, WeightSolver: sv},
		}, rand.NewPCG(5, 6), nil)
		res, _ := mmdfwRes.Detail.(*Result)
		if err != nil {
			t.Fatal(err)
		}
		first, last = res.MMD2[0], res.MMD2[len(res.MMD2)-1]
		if !(last < first/10) {
			t.Errorf("%v: ½MMD² %.3g → %.3g", sv, first, last)
		}
		got := emb.MMD2(res.Set.X, res.Set.W)
		eq := emb.MMD2(res.Set.X, nil)
		if !(got <= eq) {
			t.Errorf("%v: MMD² %.6g above equal weights' %.6g", sv, got, eq)
		}
		if sv == SolverPairwise && res.WeightSolve.NotConverged != 0 {
			t.Errorf("%+v", res.WeightSolve)
		}
	}
}

// The solver's settings are checked: a relative tolerance of 1 or more,
// and one solver's settings given to the other, are refused by name.
func TestWeightSolverSettings(t *testing.T) {
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{Weighting: Weighting{WeightTol: 1}}, "weight_tol"},
		{Settings{Weighting: Weighting{WeightTol: math.NaN()}}, "weight_tol"},
		{Settings{Weighting: Weighting{WeightTol: -1e-3}}, "weight_tol"},
		{Settings{Weighting: Weighting{WeightIterations: -1}}, "weight_iterations"},
		{Settings{Weighting: Weighting{WeightSolver: SolverFISTA, WeightTol: 1e-4}}, "weight_solver"},
		{Settings{Weighting: Weighting{SteinIterations: 100}}, "stein_iterations"},
		{Settings{Weighting: Weighting{WeightSolver: SolverPairwise, SteinIterations: 100}}, "stein_iterations"},
		{Settings{Weighting: Weighting{WeightSolver: "newton"}}, "weight_solver"},
	} {
		var e *setting.Error
		if err := c.s.Validate(); !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("%+v: error %v, want one naming %s", c.s, err, c.field)
		}
	}
	for _, s := range []Settings{{Weighting: Weighting{WeightSolver: SolverFISTA, SteinIterations: 50}}, {Weighting: Weighting{WeightTol: 1e-4, WeightIterations: 10}}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	for _, v := range []WeightSolver{SolverAuto, SolverFISTA, SolverPairwise} {
		var back WeightSolver
		if err := back.UnmarshalText([]byte(v)); err != nil || back != v {
			t.Errorf("%v: text %q reads back as %v (%v)", v, v, back, err)
		}
	}
	var r Rule
	if err := r.UnmarshalText([]byte("mmd")); err != nil || r != MMD {
		t.Errorf(`"mmd" reads as %v (%v)`, r, err)
	}
}
