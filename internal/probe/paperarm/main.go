// Command paperarm instruments the paper's MMD-FW arm on the BNN (table1's
// and fig2a's `mmdfw`) to find why its RMSE grows as particles are added.
//
// The arm as the harness wires it (start = "model"): the first particle a
// model.BNN.Init draw, the bandwidth h the median distance of 200 Init
// draws, a candidate an existing particle (picked uniformly) plus
// N(0, (0.035·h)² I), 100 AdaGrad LMO steps of 0.01·h along the "self"
// direction with a candidate minibatch of 100, the schedule weights
// ρₙ = 3/(n+3). Beside it, one factor changed at a time: the candidates
// drawn from the model's prior (the literal reading), Stein weights (the
// pairwise solver).
//
// At N = 1, 2, 5, 10, 20, 50, 100 (fig2a's count) it prints: the weighted set's test
// RMSE (the figure's metric, the split's test rows; nothing is chosen
// here), the RMSE of the newest particle alone, the weight of the first
// particle and the weight of the newest tenth of the particles, the
// newest particle's distance to the first and to its nearest earlier
// particle (units of h), its largest kernel value to an earlier particle,
// Σᵢ wᵢ k(x, xᵢ) over the earlier particles (the first term of the LMO's
// objective F_n; near 0 the objective reduces to −μ_p(x), i.e. the LMO
// only climbs log p), and the full-data log density per row and log γ of
// the newest particle, with the set's spread (the weighted root mean
// squared distance to the weighted mean, units of h). The candidate's
// noise is 0.035·h per coordinate, ‖ξ‖ ≈ 0.035·√d·h; the 100 LMO steps of
// a normalised AdaGrad can move each coordinate by up to 100·0.01·h = h.
//
//	go run ./internal/probe/paperarm -data data -datasets naval-propulsion-plant,bostonHousing
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

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var at = []int{1, 2, 5, 10, 20, 50, 100}

func main() {
	dir := flag.String("data", "data", "data folder")
	names := flag.String("datasets", "naval-propulsion-plant,bostonHousing", "regression sets")
	split := flag.Int("split", 0, "split")
	seed := flag.Uint64("seed", 1, "seed of the run")
	flag.Parse()
	for _, name := range strings.Split(*names, ",") {
		if err := probe(*dir, name, *split, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "paperarm:", err)
			os.Exit(1)
		}
	}
}

func probe(dir, name string, split int, seed uint64) error {
	r, err := data.LoadRegression(dir, name, split)
	if err != nil {
		return err
	}
	m := model.NewBNN(r.XTrain, r.YTrain, 50)
	m.Workers = 1
	d := m.Dim()
	yTest := make([]float64, len(r.YTest))
	for i, v := range r.YTest {
		yTest[i] = r.Unscale(v)
	}
	rmse := func(X *mat.Dense, w []float64) float64 {
		v, _ := m.Metrics(r.XTest, yTest, X, w, r.YMean, r.YStd)
		return v
	}
	// The wiring of start = "model": x₁ and the median heuristic's 200
	// draws from Init.
	rng := rand.New(rand.NewPCG(seed, 3))
	x0 := make([]float64, d)
	m.Init(rng, x0)
	draws := mat.NewDense(200, d, nil)
	for i := 0; i < 200; i++ {
		m.Init(rng, draws.RawRowView(i))
	}
	h := kernel.MedianDistance(draws, 0)
	k := kernel.RBF{H: h}
	fmt.Printf("\n== %s split %d: %d training rows, d = %d, h = %.3g (median distance of 200 Init draws); candidate noise 0.035·h per coordinate, ‖ξ‖ ≈ %.2f·h; LMO reach ≤ 100·0.01·h per coordinate\n",
		name, split, m.NData(), d, h, 0.035*math.Sqrt(float64(d)))
	base := mmdfw.Settings{
		N:          100,
		Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven, Scale: mmdfw.ScaleBandwidth, CandidateInit: mmdfw.InitPerturb, Noise: 0.035},
		KernelSpec: mmdfw.KernelSpec{Bandwidth: h},
		LMO:        mmdfw.LMO{StepSize: 0.01, Batch: 100},
		Weighting:  mmdfw.Weighting{Weights: mmdfw.Schedule},
		Frame:      sampler.Frame{Stop: mmdfw.StopFixed},
	}
	start := particle.Start{X0: x0}
	for _, v := range []struct {
		name string
		set  func(*mmdfw.Settings)
	}{
		{"paper arm: perturb, schedule", func(*mmdfw.Settings) {}},
		{"prior candidates, schedule", func(s *mmdfw.Settings) { s.CandidateInit = mmdfw.InitPrior }},
		{"perturb, Stein weights", func(s *mmdfw.Settings) { s.Weights, s.WeightSolver = mmdfw.Stein, mmdfw.SolverPairwise }},
	} {
		s := base
		v.set(&s)
		fmt.Printf("\n%s\n", v.name)
		fmt.Println("| N | RMSE set | RMSE newest | w first | w newest tenth | dist first/h | dist nearest/h | max k | Σwk | log p/row | log γ | spread/h |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
		grad := make([]float64, d)
		rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
			n := sn.Step
			if !slices.Contains(at, n) {
				return nil
			}
			X, w := sn.X, sn.W
			xn := X.RawRowView(n - 1)
			rn := rmse(mat.NewDense(1, d, xn), []float64{1})
			tenth := max(n/10, 1)
			var wt float64
			for i := n - tenth; i < n; i++ {
				wt += w[i]
			}
			near, maxk, sumk := math.Inf(1), 0.0, 0.0
			// The weights before the newest particle: the reported ones
			// of the first n − 1, renormalised.
			var wsum float64
			for i := 0; i < n-1; i++ {
				wsum += w[i]
			}
			for i := 0; i < n-1; i++ {
				xi := X.RawRowView(i)
				near = min(near, floats.Distance(xn, xi, 2))
				kv := k.Eval(xn, xi)
				maxk = max(maxk, kv)
				if wsum != 0 {
					sumk += w[i] / wsum * kv
				}
			}
			lp := m.LogProbGrad(xn, grad) / float64(m.NData())
			// Spread: weighted RMS distance to the weighted mean.
			mean := make([]float64, d)
			for i := 0; i < n; i++ {
				floats.AddScaled(mean, w[i], X.RawRowView(i))
			}
			var sp float64
			for i := 0; i < n; i++ {
				dd := floats.Distance(X.RawRowView(i), mean, 2)
				sp += w[i] * dd * dd
			}
			nearS := "–"
			if n > 1 {
				nearS = fmt.Sprintf("%.2f", near/h)
			}
			fmt.Printf("| %d | %.4g | %.4g | %.2g | %.2f | %.2f | %s | %.2g | %.2g | %.3g | %.2f | %.2f |\n",
				n, rmse(X, w), rn, w[0], wt, floats.Distance(xn, x0, 2)/h, nearS, maxk, sumk, lp, xn[d-2], math.Sqrt(sp)/h)
			return nil
		})
		var in mmdfw.Inputs
		pools.Fill(s, &in) // the harness's samplers, as the experiments run
		s.Inputs = in
		if _, err := sampler.Set(mmdfw.Run(context.Background(), m, start, s, rand.NewPCG(seed, 4), rec)); err != nil {
			return fmt.Errorf("%s %s: %w", name, v.name, err)
		}
	}
	return nil
}
