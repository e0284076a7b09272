// Command mapstop measures how the L-BFGS MAP point of the Covertype
// logistic regression, MMD-FW's first particle, changes with the number of
// iterations: log p, ‖∇log p‖∞, accuracy and log-likelihood on the split's
// held-out rows, the distance to the converged point in units of its
// Laplace approximation N(x*, Σ*), Σ* = (−∇²log p(x*))⁻¹ (the exact Hessian
// of model.Logistic), the Newton decrement √(gᵀ(−H)⁻¹g) at the point (the
// same distance predicted from local information only), and the MMD² of the
// single point against N(x*, Σ*) (RBF kernel, median-heuristic bandwidth of
// 1,000 Laplace draws, exact embedding).
//
// The split seed defaults to 6: the experiment files use seeds 1-5, so no
// reported number reads these rows.
//
//	go run ./internal/probe/mapstop -data data -seed 6
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func medianSeconds(n int, f func()) float64 {
	t := make([]float64, n)
	for i := range t {
		t0 := time.Now()
		f()
		t[i] = time.Since(t0).Seconds()
	}
	slices.Sort(t)
	return t[n/2]
}

func main() {
	dir := flag.String("data", "data", "data folder")
	seed := flag.Uint64("seed", 6, "covertype split seed (1-5 are reported by the figures)")
	workers := flag.Int("workers", 1, "gradient goroutines")
	flag.Parse()
	if *seed >= 1 && *seed <= 5 {
		fmt.Fprintln(os.Stderr, "mapstop: seeds 1-5 are the figures' splits; choose another")
		os.Exit(2)
	}
	c, err := data.LoadClassification(*dir, "covertype", *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mapstop:", err)
		os.Exit(1)
	}
	m := model.NewLogistic(c.XTrain, c.YTrain)
	m.Workers = *workers
	d := m.Dim()
	ctx := context.Background()
	x0 := make([]float64, d) // the experiments' start: the origin

	t0 := time.Now()
	ref, err := laplace.FindMAP(ctx, m, x0, laplace.MAPSettings{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mapstop:", err)
		os.Exit(1)
	}
	secRef := time.Since(t0).Seconds()
	// Laplace approximation at the converged point.
	var H mat.SymDense
	m.LogProbHessian(&H, ref.X)
	P := mat.NewSymDense(d, nil)
	P.ScaleSym(-1, &H)
	var ch mat.Cholesky
	if !ch.Factorize(P) {
		fmt.Fprintln(os.Stderr, "mapstop: −H at the MAP is not positive definite")
		os.Exit(1)
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		fmt.Fprintln(os.Stderr, "mapstop:", err)
		os.Exit(1)
	}
	lap, err := target.NewGaussian(ref.X, &cov)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mapstop:", err)
		os.Exit(1)
	}
	draws := mat.NewDense(1000, d, nil)
	lap.SampleRows(rand.New(rand.NewPCG(*seed, 99)), draws)
	h := kernel.MedianDistance(draws, 1000)
	emb := lap.RBFEmbedding(h)

	// The cost of the Laplace precision at the MAP: the exact Hessian
	// against the finite-difference fit of pkg/mmdfw (2d gradients), the
	// median of 5 timings each.
	var Ht mat.SymDense
	th := medianSeconds(5, func() { m.LogProbHessian(&Ht, ref.X) })
	var lapEvals int64
	tf := medianSeconds(5, func() {
		l, err := laplace.Fit(ctx, m, ref.X, laplace.FitSettings{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "mapstop:", err)
			os.Exit(1)
		}
		lapEvals = l.GradEvals
	})
	tg := medianSeconds(21, func() { m.LogProbGrad(ref.X, make([]float64, d)) })
	fmt.Printf("Laplace precision at the MAP: exact Hessian %.4f s (%.0f gradient times), finite differences %.4f s (%d gradient evaluations, %.0f gradient times); one gradient %.5f s\n",
		th, th/tg, tf, lapEvals, tf/tg, tg)

	fmt.Printf("covertype %s, seed %d: %d training rows, %d held-out rows, d = %d, workers %d\n",
		c.Label, *seed, m.NData(), c.XTest.RawMatrix().Rows, d, *workers)
	fmt.Printf("converged: %d iterations (%s), %d gradient evaluations, %.3f s; bandwidth h = %.4g\n",
		ref.Iterations, ref.Status, ref.GradEvals, secRef, h)
	fmt.Println("iters  status              log p          |grad|inf   acc     test_ll   dist_sd  newton_dec  max|dx|/sd  mmd2_point  seconds")
	g := make([]float64, d)
	dx := make([]float64, d)
	tmp := make([]float64, d)
	for _, k := range []int{1, 2, 5, 10, 20, 50, 100, ref.Iterations} {
		t1 := time.Now()
		r, err := laplace.FindMAP(ctx, m, x0, laplace.MAPSettings{Iterations: k})
		sec := time.Since(t1).Seconds()
		if err != nil {
			fmt.Fprintln(os.Stderr, "mapstop:", err)
			os.Exit(1)
		}
		lp := m.LogProbGrad(r.X, g)
		acc, ll := m.Metrics(c.XTest, c.YTest, mat.NewDense(1, d, r.X), []float64{1})
		floats.SubTo(dx, r.X, ref.X)
		// Distance in Laplace units: √(dxᵀ P dx).
		dxv := mat.NewVecDense(d, dx)
		dist := math.Sqrt(mat.Inner(dxv, P, dxv))
		var maxsd float64
		for j := range dx {
			maxsd = math.Max(maxsd, math.Abs(dx[j])/math.Sqrt(cov.At(j, j)))
		}
		// Newton decrement with the Hessian at the point itself.
		var Hk mat.SymDense
		m.LogProbHessian(&Hk, r.X)
		Pk := mat.NewSymDense(d, nil)
		Pk.ScaleSym(-1, &Hk)
		var chk mat.Cholesky
		nd := math.NaN()
		if chk.Factorize(Pk) {
			sol := mat.NewVecDense(d, tmp)
			if err := chk.SolveVecTo(sol, mat.NewVecDense(d, g)); err == nil {
				nd = math.Sqrt(floats.Dot(g, tmp))
			}
		}
		mmd := 1 - 2*emb.Value(r.X) + emb.NormSq()
		fmt.Printf("%5d  %-18s  %12.3f  %10.3g  %.4f  %8.4f  %7.3g  %10.3g  %10.3g  %10.4g  %7.3f\n",
			r.Iterations, r.Status, lp, floats.Norm(g, math.Inf(1)), acc, ll, dist, nd, maxsd, mmd, sec)
	}
}
