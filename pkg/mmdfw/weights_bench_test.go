package mmdfw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

// BenchmarkRunPerParticle is a whole run of Stein-weighted MMD-FW on the
// Covertype-shaped synthetic logistic regression of BenchmarkRunLogistic
// (20,000 rows, d = 56, MAP start, T = 100, candidate minibatch 100), with
// each weight solver, reporting the milliseconds per added particle over
// the windows (N/2, N] that end at N = 100, 200, 400, 800 and 1,600 (the
// FISTA solver to 800 only: its run to 1,600 takes minutes), from the
// snapshots' wall clock and the process's CPU time. Run it with -benchtime
// 1x; -bench 'RunPerParticle/solver=pairwise/N=800$' -cpuprofile gives the
// weight solve's share of a run to 800.
func BenchmarkRunPerParticle(b *testing.B) {
	t := syntheticLR(20000, 54, rand.New(rand.NewPCG(3, 3)))
	for _, c := range []struct {
		solver WeightSolver
		N      int
	}{{SolverPairwise, 800}, {SolverPairwise, 1600}, {SolverFISTA, 800}} {
		b.Run(fmt.Sprintf("solver=%v/N=%d", c.solver, c.N), func(b *testing.B) {
			at := make([]time.Time, c.N+1)
			cpu := make([]float64, c.N+1)
			for b.Loop() {
				rec := particle.RecorderFunc(func(s particle.Snapshot) error {
					at[s.Step], cpu[s.Step] = time.Now(), cpuSeconds()
					return nil
				})
				mmdfwRes, err := Run(context.Background(), t, particle.Start{}, Settings{N: c.N, LMO: LMO{Batch: 100}, Weighting: Weighting{WeightSolver: c.solver}, Frame: sampler.Frame{Stop: StopFixed}}, rand.NewPCG(1, 1), rec)
				res, _ := mmdfwRes.Detail.(*Result)
				if err != nil {
					b.Fatal(err)
				}
				if r, _ := res.Set.X.Dims(); r != c.N {
					b.Fatalf("%d particles, want %d", r, c.N)
				}
				if ws := res.WeightSolve; ws.NotConverged != 0 {
					b.Fatalf("weight solves not converged: %+v", ws)
				}
			}
			for hi := 100; hi <= c.N; hi *= 2 {
				ms := at[hi].Sub(at[hi/2]).Seconds() * 1e3 / float64(hi-hi/2)
				b.ReportMetric(ms, fmt.Sprintf("ms/particle@%d-%d", hi/2, hi))
				b.ReportMetric((cpu[hi]-cpu[hi/2])*1e3/float64(hi-hi/2), fmt.Sprintf("cpu-ms/particle@%d-%d", hi/2, hi))
			}
		})
	}
}

// cpuSeconds is the process's user and system CPU time: on a machine
// shared with other jobs the wall clock also counts the time the process
// waits for a core.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// weightProblem holds the rows a run hands to the weights for N particles
// of a Covertype-shaped logistic posterior: the Stein kernel rows, the
// Gram rows and z from a pool of the same law, with the pool's ∫∫k.
type weightProblem struct {
	N          int
	stein, k   [][]float64
	z          []float64
	self, jitt float64
}

var (
	weightProblemOnce sync.Once
	weightProblemVal  *weightProblem
)

// benchWeightProblem returns the 1,600 particles of a default MMD-FW run
// (Stein weights, pairwise solver, T = 100, candidate minibatch 100) on the
// synthetic logistic regression, their full-data scores' Stein kernel rows
// in the run's RBF bandwidth, the Gram rows, and z and ∫∫k from the 400
// particles of a second run. Building it takes a minute.
func benchWeightProblem(b *testing.B) *weightProblem {
	weightProblemOnce.Do(func() {
		const N, P = 1600, 400
		t := syntheticLR(20000, 54, rand.New(rand.NewPCG(3, 3)))
		mmdfwRes, err := Run(context.Background(), t, particle.Start{}, Settings{N: N, LMO: LMO{Batch: 100}, Frame: sampler.Frame{Stop: StopFixed}}, rand.NewPCG(1, 1), nil)
		res, _ := mmdfwRes.Detail.(*Result)
		if err != nil {
			b.Fatal(err)
		}
		pool, err := sampler.Set(Run(context.Background(), t, particle.Start{}, Settings{N: P, LMO: LMO{Batch: 100}, Frame: sampler.Frame{Stop: StopFixed}}, rand.NewPCG(2, 2), nil))
		if err != nil {
			b.Fatal(err)
		}
		k := kernel.RBF{H: res.Bandwidth}
		X := res.Set.X
		d := t.Dim()
		S := mat.NewDense(N, d, nil)
		for i := 0; i < N; i++ {
			t.LogProbGrad(X.RawRowView(i), S.RawRowView(i))
		}
		p := &weightProblem{N: N, stein: make([][]float64, N), k: make([][]float64, N), z: make([]float64, N)}
		for n := 0; n < N; n++ {
			x := X.RawRowView(n)
			p.stein[n], p.k[n] = make([]float64, n+1), make([]float64, n+1)
			for i := 0; i <= n; i++ {
				p.stein[n][i] = kernel.Stein(k, x, X.RawRowView(i), S.RawRowView(n), S.RawRowView(i))
				p.k[n][i] = k.Eval(x, X.RawRowView(i))
			}
			for j := 0; j < P; j++ {
				p.z[n] += k.Eval(x, pool.X.RawRowView(j)) / P
			}
		}
		for i := 0; i < P; i++ {
			for j := 0; j < P; j++ {
				p.self += k.Eval(pool.X.RawRowView(i), pool.X.RawRowView(j)) / (P * P)
			}
		}
		p.jitt = DefaultJitter
		weightProblemVal = p
	})
	return weightProblemVal
}

// BenchmarkWeightsAdd is the weights' update per added particle (the rows
// given) for each rule and solver, at N = 100 … 1,600 particles of
// benchWeightProblem: the state is grown to N − 8 particles (by the
// pairwise solver for the simplex rules, so that both solvers start from
// the same near-optimal weights), then each iteration restores it and adds
// particles N − 7 … N. FISTA costs SteinIterations products over the
// support, the pairwise solver O(n) per iteration plus the occasional
// recomputed gradient, BQ one Cholesky row and two triangular solves.
func BenchmarkWeightsAdd(b *testing.B) {
	const k = 8
	for _, c := range []struct {
		rule   Rule
		solver WeightSolver
	}{{Stein, SolverPairwise}, {Stein, SolverFISTA}, {MMD, SolverPairwise}, {MMD, SolverFISTA}, {BQ, SolverAuto}} {
		for _, N := range []int{100, 200, 400, 800, 1600} {
			name := fmt.Sprintf("rule=%v/solver=%v/N=%d", c.rule, c.solver, N)
			if c.rule == BQ {
				name = fmt.Sprintf("rule=bq/N=%d", N)
			}
			b.Run(name, func(b *testing.B) {
				p := benchWeightProblem(b)
				s := newWeights(c.rule, N, c.rule != Stein, p.jitt, 1, DefaultSteinIterations)
				if c.rule.simplex() {
					s.usePairwise(DefaultWeightTol, DefaultWeightIter, p.self)
				}
				for n := 0; n < N-k; n++ {
					if err := s.add(p.k[n], p.z[n], p.stein[n]); err != nil {
						b.Fatal(err)
					}
				}
				if c.solver == SolverFISTA {
					s.qp.pairwise = false
				}
				w0 := append([]float64(nil), s.w[:N]...)
				var g0 []float64
				var pos0 []int32
				var supl0 []int
				if s.qp.pairwise {
					g0 = append([]float64(nil), s.qp.g[:N]...)
					supl0 = append([]int(nil), s.qp.sup...)
					pos0 = append([]int32(nil), s.qp.pos...)
				}
				drift, stats := s.qp.drift, s.qp.stats
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				for b.Loop() {
					s.n = N - k
					copy(s.w, w0)
					if g0 != nil {
						copy(s.qp.g, g0)
						s.qp.sup = append(s.qp.sup[:0], supl0...)
						copy(s.qp.pos, pos0)
						s.qp.drift, s.qp.stats = drift, stats
					}
					for n := N - k; n < N; n++ {
						if err := s.add(p.k[n], p.z[n], p.stein[n]); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k)/1e6, "ms/particle")
				b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N*k), "cpu-ms/particle")
				if s.qp.pairwise {
					st := s.qp.stats
					if st.NotConverged != stats.NotConverged {
						b.Fatalf("not converged: %+v", st)
					}
					b.ReportMetric(float64(st.Iterations-stats.Iterations)/float64(st.Solves-stats.Solves), "iters/solve")
					b.ReportMetric(float64(st.Refreshes-stats.Refreshes)/float64(st.Solves-stats.Solves), "refreshes/solve")
				}
			})
		}
	}
}
