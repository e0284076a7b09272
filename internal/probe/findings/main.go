// Command findings measures two findings recorded in docs/DECISIONS.md.
//
// -what null: SVGD as the reference code configures it (100 prior
// particles, 6,000 iterations, ε = 0.05, batch 100) on the Covertype
// logistic regression of a split seed no figure reports (default 6),
// against a fresh HMC reference of the same posterior. The null space of
// the training design (one-hot blocks + bias, and columns that are zero on
// the rows present) is found numerically from the singular values of X;
// the particles are split into their null-space coordinates, the
// identified w coordinates and log α, and the MMD² (RBF, median-heuristic
// bandwidth of the HMC draws) is measured for the particles as they are,
// with their null coordinates replaced by those of HMC draws ("null
// fixed"), and with their identified coordinates and log α replaced
// ("identified fixed"), together with mean errors (in HMC sd) and variance
// ratios per block.
//
// -what collapse: long SVGD runs (the BNN reference protocol's settings,
// 20 Init particles, ε = 1e-3, batch 100) on a regression set's split 0,
// printing the particles' log λ, ‖w‖² and log γ against iterations beside
// the collapsed mode log λ* = log((K/2 + a₀)/b₀) and
// log γ* = log((N/2 + a₀)/(Σy²/2 + b₀)).
//
//	go run ./internal/probe/findings -what null -data data
//	go run ./internal/probe/findings -what collapse -data data -dataset bostonHousing
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

func main() {
	what := flag.String("what", "null", "null or collapse")
	dir := flag.String("data", "data", "data folder")
	seed := flag.Uint64("seed", 6, "covertype split seed (1-5 are the figures')")
	dataset := flag.String("dataset", "bostonHousing", "regression set for -what collapse")
	iters := flag.Int("iterations", 20000, "SVGD iterations for -what collapse")
	flag.Parse()
	var err error
	switch *what {
	case "null":
		if *seed >= 1 && *seed <= 5 {
			err = fmt.Errorf("seeds 1-5 are the figures' splits; choose another")
			break
		}
		err = null(*dir, *seed)
	case "collapse":
		err = collapse(*dir, *dataset, *iters)
	default:
		err = fmt.Errorf("unknown -what %q", *what)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "findings:", err)
		os.Exit(1)
	}
}

func null(dir string, seed uint64) error {
	c, err := data.LoadClassification(dir, "covertype", seed)
	if err != nil {
		return err
	}
	m := model.NewLogistic(c.XTrain, c.YTrain)
	m.Workers = 1
	n, p := c.XTrain.Dims()
	d := p + 1
	// Null space of X from its SVD.
	var svd mat.SVD
	if !svd.Factorize(c.XTrain, mat.SVDThin) {
		return fmt.Errorf("SVD failed")
	}
	sv := svd.Values(nil)
	var V mat.Dense
	svd.VTo(&V)
	var null, ident []int
	for j, s := range sv {
		if s < 1e-9*sv[0] {
			null = append(null, j)
		} else {
			ident = append(ident, j)
		}
	}
	fmt.Printf("covertype %s seed %d: %d rows, p = %d; singular values %.3g … %.3g; null space dimension %d (σ < 1e-9 σmax)\n",
		c.Label, seed, n, p, sv[0], sv[len(ident)-1], len(null))
	for _, j := range null {
		fmt.Printf("  null σ = %.3g\n", sv[j])
	}

	ctx := context.Background()
	t0 := time.Now()
	mp, err := laplace.FindMAP(ctx, m, make([]float64, d), laplace.MAPSettings{})
	if err != nil {
		return err
	}
	hmcRes, err := hmc.Run(ctx, m, particle.Start{X0: mp.X}, hmc.Settings{Chains: 4, Warmup: 500, DrawsPerChain: 500, InitScale: 0.01}, rand.NewPCG(seed, 11), nil)
	ref, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		return err
	}
	fmt.Printf("HMC: 4 chains × 500 draws after 500 warm-up, max R̂ %.4f, min ESS %.0f, flagged %v %q, %.1f s\n",
		ref.MaxRhat, ref.MinESS, ref.Flagged, ref.Reasons, time.Since(t0).Seconds())
	t0 = time.Now()
	sv2, err := sampler.Set(svgd.Run(ctx, m, particle.Start{}, svgd.Settings{N: 100, Iterations: 6000, StepSize: 0.05, Batch: 100, Frame: sampler.Frame{Workers: 1}},
		rand.NewPCG(seed, 12), particle.Discard))
	if err != nil {
		return err
	}
	fmt.Printf("SVGD reference settings: %.1f s\n", time.Since(t0).Seconds())

	// Coordinates: z = [Vᵀw (p), log α].
	rot := func(X *mat.Dense) *mat.Dense {
		r, _ := X.Dims()
		Z := mat.NewDense(r, d, nil)
		var W mat.Dense
		W.Mul(X.Slice(0, r, 0, p), &V)
		Z.Slice(0, r, 0, p).(*mat.Dense).Copy(&W)
		for i := 0; i < r; i++ {
			Z.Set(i, p, X.At(i, p))
		}
		return Z
	}
	H := rot(ref.Set.X)
	S := rot(sv2.X)
	blocks := map[string][]int{"null": null, "identified": ident, "log α": {p}}
	for _, name := range []string{"null", "identified", "log α"} {
		cols := blocks[name]
		var me, lvr float64
		for _, j := range cols {
			hm, hs := colStats(H, j)
			sm, ss := colStats(S, j)
			me += ((sm - hm) / hs) * ((sm - hm) / hs)
			lvr += math.Log(ss * ss / (hs * hs))
		}
		me = math.Sqrt(me / float64(len(cols)))
		fmt.Printf("%-10s  %2d coords: RMS mean error %.3g HMC sd, geometric-mean variance ratio SVGD/HMC %.3g\n",
			name, len(cols), me, math.Exp(lvr/float64(len(cols))))
		if name == "null" {
			for _, j := range cols {
				hm, hs := colStats(H, j)
				sm, ss := colStats(S, j)
				fmt.Printf("    null coord %d: HMC mean %.3g sd %.3g; SVGD mean %.3g sd %.3g\n", j, hm, hs, sm, ss)
			}
		}
	}
	h := kernel.MedianDistance(H, 1000)
	mm := metric.NewMMD(kernel.RBF{H: h}, H)
	full := mm.MMD2(S, nil)
	// Counterfactuals: replace one block of each SVGD particle by that of
	// an HMC draw (draw i·k for particle i, spread over the pool).
	repl := func(cols []int) *mat.Dense {
		X := mat.DenseCopyOf(S)
		r, _ := X.Dims()
		nh, _ := H.Dims()
		for i := 0; i < r; i++ {
			src := i * (nh / r)
			for _, j := range cols {
				X.Set(i, j, H.At(src, j))
			}
		}
		return X
	}
	nullFixed := mm.MMD2(repl(null), nil)
	identFixed := mm.MMD2(repl(append(append([]int(nil), ident...), p)), nil)
	// The floor: 100 HMC draws against the pool.
	nh, _ := H.Dims()
	sub := mat.NewDense(100, d, nil)
	for i := 0; i < 100; i++ {
		sub.SetRow(i, H.RawRowView(i*(nh/100)+1))
	}
	floor := mm.MMD2(sub, nil)
	fmt.Printf("MMD² against HMC (h = %.4g): SVGD %.4g; null fixed %.4g; identified and log α fixed %.4g; 100 HMC draws %.4g\n",
		h, full, nullFixed, identFixed, floor)
	acc, ll := m.Metrics(c.XTest, c.YTest, sv2.X, sv2.W)
	hacc, hll := m.Metrics(c.XTest, c.YTest, ref.Set.X, ref.Set.W)
	fmt.Printf("held-out accuracy / LL: SVGD %.4f / %.4f, HMC %.4f / %.4f\n", acc, ll, hacc, hll)
	return nil
}

func colStats(X *mat.Dense, j int) (mean, sd float64) {
	r, _ := X.Dims()
	col := mat.Col(nil, j, X)
	mean = floats.Sum(col) / float64(r)
	var s float64
	for _, v := range col {
		s += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(s / float64(r-1))
}

func collapse(dir, name string, iters int) error {
	r, err := data.LoadRegression(dir, name, 0)
	if err != nil {
		return err
	}
	m := model.NewBNN(r.XTrain, r.YTrain, 50)
	m.Workers = 1
	d := m.Dim()
	k := d - 2
	nrow := m.NData()
	lamStar := math.Log((float64(k)/2 + m.A0) / m.B0)
	yy := floats.Dot(r.YTrain, r.YTrain)
	gamStar := math.Log((float64(nrow)/2 + m.A0) / (yy/2 + m.B0))
	fmt.Printf("%s split 0: N = %d, d = %d, K = %d weights; collapsed mode log λ* = %.4f, log γ* = %.4f\n",
		name, nrow, d, k, lamStar, gamStar)
	init := mat.NewDense(20, d, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20; i++ {
		m.Init(rng, init.RawRowView(i))
	}
	fmt.Println("iteration  mean_log_lambda  min_log_lambda  mean_|w|^2  max_|w|^2  mean_log_gamma  mean_log_p")
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		var ll, lmin, ww, wmax, lg, lp float64
		lmin = math.Inf(1)
		g := make([]float64, d)
		for i := 0; i < 20; i++ {
			x := s.X.RawRowView(i)
			ll += x[d-1] / 20
			lmin = math.Min(lmin, x[d-1])
			w2 := floats.Dot(x[:k], x[:k])
			ww += w2 / 20
			wmax = math.Max(wmax, w2)
			lg += x[d-2] / 20
			lp += m.LogProbGrad(x, g) / 20
		}
		fmt.Printf("%9d  %15.4f  %14.4f  %10.4g  %9.4g  %14.4f  %10.1f\n", s.Step, ll, lmin, ww, wmax, lg, lp)
		return nil
	})
	_, err = sampler.Set(svgd.Run(context.Background(), m, particle.Start{Particles: init}, svgd.Settings{Iterations: iters, StepSize: 1e-3, Batch: 100, Frame: sampler.Frame{Workers: 1}, RecordEvery: iters / 10}, rand.NewPCG(1, 2), rec))
	return err
}
