// Command bnnstart measures a trained first particle for MMD-FW on the
// regression networks, on validation rows only: a seeded fifth of split
// 0's training rows is held out and the network is trained on the rest.
//
// It prints (1) the validation RMSE and log-likelihood of one network
// trained by optim.Train (Adam, batch 100) against the number of steps, and
// the early-stopped point; (2) MMD-FW started from that point (StartGiven)
// in three variants of candidate noise and LMO step, each stopped at the
// compute of the SVGD reference protocol (20 particles × 2,000 iterations
// × 100 rows = 4·10⁶ per-datapoint gradient evaluations, the training
// charged): "bandwidth" (the BNN experiments' units, noise 0.035 and step
// 0.01 of the median distance of 200 Init draws), "laplace" (a
// finite-difference Laplace fit at the point on a fixed batch of 100 rows,
// noise 0.5 and step 0.1 of its scales) and "adam-scale" (the optimiser's
// per-coordinate scales σⱼ, through a diagonal change of variables
// θ = θ₀ + σ ⊙ u that MMD-FW sees as its target, so that its RBF kernel,
// noise and steps are measured in σ units); and (3) the SVGD reference
// protocol itself (20 Init particles, 2,000 iterations, ε = 1e-3, batch
// 100).
//
//	go run ./internal/probe/bnnstart -data data -datasets yacht,bostonHousing
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// budget is the SVGD reference protocol's compute in per-datapoint
// gradient evaluations.
const budget = 20 * 2000 * 100

func main() {
	dir := flag.String("data", "data", "data folder")
	names := flag.String("datasets", "yacht,bostonHousing", "regression sets")
	seed := flag.Uint64("seed", 1, "seed of the validation carve-out and the runs")
	steps := flag.Int("steps", 4000, "largest number of training steps")
	particles := flag.Int("particles", 200, "MMD-FW particle cap (the budget usually stops it first)")
	flag.Parse()
	for _, name := range strings.Split(*names, ",") {
		if err := probe(*dir, name, *seed, *steps, *particles); err != nil {
			fmt.Fprintln(os.Stderr, "bnnstart:", err)
			os.Exit(1)
		}
	}
}

// split carves a seeded fifth of the training rows of split 0 out as
// validation rows; the rest are the training rows of the probe.
type split struct {
	m          *model.BNN
	Xva        *mat.Dense
	yva        []float64 // original scale
	yMean, ySD float64
}

func carve(dir, name string, seed uint64) (*split, error) {
	r, err := data.LoadRegression(dir, name, 0)
	if err != nil {
		return nil, err
	}
	n, p := r.XTrain.Dims()
	perm := rand.New(rand.NewPCG(seed, 0x76616c)).Perm(n)
	nva := n / 5
	Xtr := mat.NewDense(n-nva, p, nil)
	ytr := make([]float64, n-nva)
	Xva := mat.NewDense(nva, p, nil)
	yva := make([]float64, nva)
	for k, i := range perm {
		if k < nva {
			Xva.SetRow(k, r.XTrain.RawRowView(i))
			yva[k] = r.Unscale(r.YTrain[i])
		} else {
			Xtr.SetRow(k-nva, r.XTrain.RawRowView(i))
			ytr[k-nva] = r.YTrain[i]
		}
	}
	m := model.NewBNN(Xtr, ytr, 50)
	m.Workers = 1
	return &split{m: m, Xva: Xva, yva: yva, yMean: r.YMean, ySD: r.YStd}, nil
}

func (s *split) metrics(X *mat.Dense, w []float64) (rmse, ll float64) {
	return s.m.Metrics(s.Xva, s.yva, X, w, s.yMean, s.ySD)
}

func (s *split) one(x []float64) (rmse, ll float64) {
	return s.metrics(mat.NewDense(1, len(x), x), []float64{1})
}

func probe(dir, name string, seed uint64, steps, nmax int) error {
	s, err := carve(dir, name, seed)
	if err != nil {
		return err
	}
	m := s.m
	d := m.Dim()
	fmt.Printf("\n== %s: %d training rows, %d validation rows (a fifth of split 0's training rows), d = %d\n",
		name, m.NData(), len(s.yva), d)
	x0 := make([]float64, d)
	m.Init(rand.New(rand.NewPCG(seed, 1)), x0)

	// (1) The training curve, no early stopping.
	fmt.Println("steps  val_rmse  val_ll   log_lambda  log_gamma")
	curve := []int{0, 100, 250, 500, 1000, 2000, 3000, 4000}
	k := 0
	_, err = optim.Train(context.Background(), m, x0, optim.Settings{Steps: steps, Batch: 100, EvalEvery: 50, Patience: 1 << 30,
		Validate: func(x []float64) float64 {
			step := k * 50
			k++
			for _, c := range curve {
				if c == step {
					r, l := s.one(x)
					fmt.Printf("%5d  %8.4f  %7.4f  %10.3f  %9.3f\n", step, r, l, x[d-1], x[d-2])
				}
			}
			return 0
		}}, rand.NewPCG(seed, 2))
	if err != nil {
		return err
	}

	// The early-stopped point: validation RMSE every 100 steps, patience 5.
	t0 := time.Now()
	tr, err := optim.Train(context.Background(), m, x0, optim.Settings{Steps: steps, Batch: 100,
		Validate: func(x []float64) float64 { r, _ := s.one(x); return -r }}, rand.NewPCG(seed, 2))
	if err != nil {
		return err
	}
	trSec := time.Since(t0).Seconds()
	r1, l1 := s.one(tr.X)
	fmt.Printf("early-stopped: best step %d of %d, val RMSE %.4f, LL %.4f, %d gradient evaluations, %.2f s\n",
		tr.BestStep, tr.Steps, r1, l1, tr.GradEvals, trSec)
	fmt.Printf("scales σⱼ: min %.3g, median %.3g, max %.3g\n", minOf(tr.Scale), median(tr.Scale), maxOf(tr.Scale))

	// (2) MMD-FW from the trained point.
	left := int64(budget) - tr.GradEvals
	base := mmdfw.Settings{N: nmax, Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven}, LMO: mmdfw.LMO{Batch: 100}, Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}}
	baseStart := particle.Start{X0: tr.X}
	bw := base
	bw.Noise, bw.StepSize = 0.035, 0.01
	// The experiments' bandwidth: median distance of 200 Init draws.
	init := mat.NewDense(200, d, nil)
	irng := rand.New(rand.NewPCG(seed, 3))
	for i := 0; i < 200; i++ {
		m.Init(irng, init.RawRowView(i))
	}
	lap := base
	lap.Scale = mmdfw.ScaleLaplace
	lap.LaplaceBatch = 100
	fmt.Println("variant      n_at_budget  val_rmse  val_ll   grad_evals  seconds")
	for _, v := range []struct {
		name   string
		s      mmdfw.Settings
		bwFrom *mat.Dense
	}{
		{"bandwidth", bw, init},
		{"laplace", lap, nil},
	} {
		st := v.s
		if v.bwFrom != nil {
			st.Bandwidth = medianDist(v.bwFrom)
		}
		if err := runFW(s, m, baseStart, st, left, tr.GradEvals, v.name, seed); err != nil {
			return err
		}
	}
	// adam-scale: MMD-FW on u with θ = θ₀ + σ ⊙ u, σ capped at 1 (the
	// prior sd scale of the weights at λ ≈ 1) and floored at 1e-4.
	sc := make([]float64, d)
	for j, v := range tr.Scale {
		sc[j] = math.Min(1, math.Max(1e-4, v))
	}
	ut := &scaled{m: m, x0: tr.X, sc: sc}
	for _, c := range []float64{0.5, 1} {
		// Bandwidth √d in u: the median distance of N(0, I) draws is √(2d);
		// noise c σ-units and a first step of 0.1 σ-units.
		h := math.Sqrt(float64(d))
		st := mmdfw.Settings{
			N:          nmax,
			Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven, Noise: c / h},
			LMO:        mmdfw.LMO{Batch: 100, StepSize: 0.1 / h},
			Weighting:  mmdfw.Weighting{Weights: mmdfw.Stein},
			KernelSpec: mmdfw.KernelSpec{Bandwidth: h},
		}
		if err := runFWScaled(s, ut, particle.Start{X0: make([]float64, d)}, st, left, tr.GradEvals, fmt.Sprintf("adam-scale %.1f", c), seed); err != nil {
			return err
		}
	}

	// (3) The SVGD reference protocol.
	t0 = time.Now()
	sinit := mat.NewDense(20, d, nil)
	srng := rand.New(rand.NewPCG(seed, 4))
	for i := 0; i < 20; i++ {
		m.Init(srng, sinit.RawRowView(i))
	}
	set, err := sampler.Set(svgd.Run(context.Background(), m, particle.Start{Particles: sinit}, svgd.Settings{Iterations: 2000, StepSize: 1e-3, Batch: 100, Frame: sampler.Frame{Workers: 1}},
		rand.NewPCG(seed, 5), particle.Discard))
	if err != nil {
		return err
	}
	r, l := s.metrics(set.X, set.W)
	fmt.Printf("svgd reference (20 × 2000 × 100 = %d evaluations): val RMSE %.4f, LL %.4f, %.2f s\n", budget, r, l, time.Since(t0).Seconds())
	return nil
}

func runFW(s *split, m *model.BNN, start particle.Start, st mmdfw.Settings, left, charged int64, name string, seed uint64) error {
	return fw(s, m, start, st, left, charged, name, seed, nil)
}

func runFWScaled(s *split, t *scaled, start particle.Start, st mmdfw.Settings, left, charged int64, name string, seed uint64) error {
	return fw(s, t, start, st, left, charged, name, seed, t.back)
}

// fw runs MMD-FW until the budget and prints the validation metrics of the
// last snapshot within it; back maps particles of a reparameterised target
// to θ.
func fw(s *split, t interface {
	Dim() int
	LogProbGrad(x, g []float64) float64
	NData() int
	MinibatchLogProbGrad(x, g []float64, b []int) float64
}, start particle.Start, st mmdfw.Settings, left, charged int64, name string, seed uint64, back func(*mat.Dense) *mat.Dense) error {
	var last particle.Snapshot
	var trail string
	t0 := time.Now()
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		if sn.GradEvals > left {
			return particle.ErrStop
		}
		last = particle.Snapshot{Step: sn.Step, X: mat.DenseCopyOf(sn.X), W: append([]float64(nil), sn.W...), GradEvals: sn.GradEvals}
		switch sn.Step {
		case 1, 10, 50, 100:
			X := last.X
			if back != nil {
				X = back(X)
			}
			r, l := s.metrics(X, last.W)
			trail += fmt.Sprintf(" n=%d %.4f/%.4f", sn.Step, r, l)
		}
		return nil
	})
	var in mmdfw.Inputs
	pools.Fill(st, &in) // the harness's samplers, as the experiments run
	st.Inputs = in
	_, err := sampler.Set(mmdfw.Run(context.Background(), t, start, st, rand.NewPCG(seed, 6), rec))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if last.X == nil {
		fmt.Printf("%-13s  no snapshot within the budget\n", name)
		return nil
	}
	X := last.X
	if back != nil {
		X = back(X)
	}
	r, l := s.metrics(X, last.W)
	fmt.Printf("%-13s  %11d  %8.4f  %7.4f  %10d  %7.2f  (val RMSE/LL at%s)\n", name, last.Step, r, l, last.GradEvals+charged, time.Since(t0).Seconds(), trail)
	return nil
}

// scaled is the BNN seen through θ = x0 + sc ⊙ u.
type scaled struct {
	m      *model.BNN
	x0, sc []float64
}

func (s *scaled) Dim() int   { return s.m.Dim() }
func (s *scaled) NData() int { return s.m.NData() }
func (s *scaled) theta(u []float64) []float64 {
	th := make([]float64, len(u))
	for j := range u {
		th[j] = s.x0[j] + s.sc[j]*u[j]
	}
	return th
}
func (s *scaled) LogProbGrad(u, g []float64) float64 {
	lp := s.m.LogProbGrad(s.theta(u), g)
	for j := range g {
		g[j] *= s.sc[j]
	}
	return lp
}
func (s *scaled) MinibatchLogProbGrad(u, g []float64, b []int) float64 {
	lp := s.m.MinibatchLogProbGrad(s.theta(u), g, b)
	for j := range g {
		g[j] *= s.sc[j]
	}
	return lp
}
func (s *scaled) back(U *mat.Dense) *mat.Dense {
	n, d := U.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		out.SetRow(i, s.theta(U.RawRowView(i)))
	}
	return out
}

func medianDist(X *mat.Dense) float64 { return kernel.MedianDistance(X, 0) }

func median(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c[len(c)/2]
}

func minOf(v []float64) float64 { return slices.Min(v) }

func maxOf(v []float64) float64 { return slices.Max(v) }
