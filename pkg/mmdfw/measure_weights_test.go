package mmdfw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestMeasureWeightSolvers compares the two solvers of the Stein weights
// on the particles of one run (the Covertype-shaped synthetic logistic
// regression of BenchmarkRunLogistic, N = 400, default settings with
// candidate minibatch 100, seed (1, 1), run with the FISTA solver): the
// particles are fed again, one at a time, to each solver, and KSD² = wᵀK₀w
// of its weights and the Frank-Wolfe gap, computed directly from K₀, are
// reported at n = 50, 100, 200, 400, with the pairwise solver's iterations.
// FISTA's figures are those the run itself had (same particles, same
// solver, same order). It asserts that the pairwise weights meet their
// certificate and are never above FISTA's KSD².
//
//	go test ./pkg/mmdfw -run TestMeasureWeightSolvers -mmdfw.measure -v
func TestMeasureWeightSolvers(t *testing.T) {
	if !*measure {
		t.Skip("measurement; run with -mmdfw.measure")
	}
	const N = 400
	tg := syntheticLR(20000, 54, rand.New(rand.NewPCG(3, 3)))
	mmdfwRes, err := Run(context.Background(), tg, particle.Start{}, Settings{N: N, LMO: LMO{Batch: 100}, Weighting: Weighting{WeightSolver: SolverFISTA}}, rand.NewPCG(1, 1), nil)
	res, _ := mmdfwRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	d := tg.Dim()
	X := res.Set.X
	S := mat.NewDense(N, d, nil)
	for i := 0; i < N; i++ {
		tg.LogProbGrad(X.RawRowView(i), S.RawRowView(i))
	}
	k := kernel.RBF{H: res.Bandwidth}
	Q := make([]float64, N*N)
	for i := 0; i < N; i++ {
		for j := 0; j <= i; j++ {
			v := kernel.Stein(k, X.RawRowView(i), X.RawRowView(j), S.RawRowView(i), S.RawRowView(j))
			Q[i*N+j], Q[j*N+i] = v, v
		}
	}
	type solver struct {
		name string
		s    *weights
	}
	var solvers []solver
	for _, c := range []struct {
		name  string
		iters int
		tol   float64
	}{{"fista, 300 iterations (the run's)", DefaultSteinIterations, 0}, {"fista, 3,000 iterations", 3000, 0},
		{"pairwise, tol 1e-4 (default)", 0, 1e-4}, {"pairwise, tol 1e-6", 0, 1e-6}} {
		s := newWeights(Stein, N, false, 0, 1, c.iters)
		if c.tol > 0 {
			s.usePairwise(c.tol, DefaultWeightIter, 0)
		}
		solvers = append(solvers, solver{c.name, s})
	}
	var b strings.Builder
	b.WriteString("\n| solver | n | KSD² | gap/KSD² | nonzero | pairwise iterations (mean, max per solve) |\n|---|---|---|---|---|---|\n")
	row := make([]float64, N)
	for n := 0; n < N; n++ {
		copy(row, Q[n*N:n*N+n+1])
		for _, sv := range solvers {
			if err := sv.s.add(nil, 0, row[:n+1]); err != nil {
				t.Fatal(err)
			}
		}
		m := n + 1
		if m != 50 && m != 100 && m != 200 && m != 400 {
			continue
		}
		sub := make([]float64, m*m)
		for i := 0; i < m; i++ {
			copy(sub[i*m:], Q[i*N:i*N+m])
		}
		var fista float64
		for i, sv := range solvers {
			F, gap := objective(sub, nil, 0, sv.s.w[:m])
			nz := 0
			for _, v := range sv.s.w[:m] {
				if v > 0 {
					nz++
				}
			}
			its := ""
			if st := sv.s.qp.stats; sv.s.qp.pairwise {
				its = fmt.Sprintf("%.1f, %d", float64(st.Iterations)/float64(st.Solves), st.MaxIterations)
				if st.NotConverged != 0 || gap > sv.s.qp.tol*F+128*eps*sv.s.qp.maxAbs {
					t.Errorf("%s, n = %d: gap %.3g at F %.6g, %+v", sv.name, m, gap, F, st)
				}
				if F > fista {
					t.Errorf("%s, n = %d: KSD² %.9g above FISTA's %.9g", sv.name, m, F, fista)
				}
			}
			if i == 0 {
				fista = F
				// The refed FISTA solver has the run's weights (which
				// the run reports divided by their sum).
				if m == N {
					for j, v := range res.Set.W {
						if math.Abs(v-sv.s.w[j]) > 1e-12 {
							t.Fatalf("w[%d] = %v, the run's %v", j, sv.s.w[j], v)
						}
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %.6g | %.2g | %d | %s |\n", sv.name, m, F, gap/F, nz, its)
		}
	}
	t.Log(b.String())
}
