// Command lmostart measures where MMD-FW's linear minimisation oracle should
// start its candidates, the choice behind mmdfw.InitAuto.
//
// Candidate starts compared: "perturb" (an existing particle plus
// N(0, (noise·h)² I), h the bandwidth: the default before), "prior" (a
// draw of the target's prior, the paper's reading), "laplace" (a draw of
// N(x₁, Σ), the Laplace fit at the first particle), each of perturb and
// laplace also as the best of 5 draws by the LMO objective
// F_n(x) = Σᵢ wᵢ k(x, xᵢ) − μ_p(x) (Settings.Starts; laplace so is the
// default after wherever the run's unit is the bandwidth and it has z, as
// on these targets), and "perturb, laplace scale" (scale = "laplace",
// noise 1: the perturbation N(0, Σ), the LMO steps 0.1·√Σⱼⱼ).
//
// (1) Exact MMD² (no ½, the run's weights as solved, RBF kernel of the
// median distance h of 2,000 target draws, the run's kernel too) at
// N = 1, 50, 200 on three Gaussian targets: gauss2d and gauss10d of the
// experiments (pkg/experiment's construction, repeated here), whose
// prior draws are draws of the target itself, and a 56-dimensional one,
// the Laplace approximation N(x̂, Σ) of the Covertype logistic regression
// on the training rows of tuning split 1000 (no figure reads them), whose
// prior is the model's (α ~ Gamma(1, rate 0.01), w ~ N(0, α⁻¹ I)). MAP
// start, BQ weights with exact z, the LMO direction "self" (the default)
// and "exact" (the closed-form gradient). Mean of log₁₀ MMD² over the
// seeds ± its standard error, and the share of particles 50–200 farther
// from the target's mean than 99.9 % of its draws. At N = 1 the variants
// differ only where the first snapshot is reported before the weights
// (scale "laplace": weight 1, not the BQ weight).
//
// (2) Validation metrics of the zero Settings (MAP start, the target's
// whitened scales, Stein weights; N fixed at 200) and of fig1b's Covertype
// arm (Laplace scale, equal weights, candidate minibatch 100), whose
// candidates are already in the target's scales, with perturbed, prior
// and laplace candidates: on Covertype (tuning split 1000, the validation fifth the tuning
// experiments carve: eval.rows = "validation", fraction 0.2, seed 1) the
// held-out log-likelihood and accuracy, and on two UCI sets (split 0, the
// same carve; the zero Settings from a model.BNN.Init draw) the validation
// RMSE in units of y.
//
//	go run ./internal/probe/lmostart -data data
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

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// at are the particle counts the tables report.
var at = []int{1, 50, 200}

// valRows is the carve of the tuning experiments (eval.rows =
// "validation").
var valRows = harness.Rows{Kind: harness.RowsValidation, Fraction: 0.2, Seed: 1}

// variant is one candidate start.
type variant struct {
	name string
	set  func(*mmdfw.Settings)
	// needsZ marks the variants that compare starts by F_n.
	needsZ bool
}

var variants = []variant{
	{"perturb (before)", func(s *mmdfw.Settings) { s.CandidateInit, s.Starts = mmdfw.InitPerturb, 1 }, false},
	{"prior", func(s *mmdfw.Settings) { s.CandidateInit, s.Starts = mmdfw.InitPrior, 1 }, false},
	{"laplace", func(s *mmdfw.Settings) { s.CandidateInit, s.Starts = mmdfw.InitLaplace, 1 }, false},
	{"perturb, best of 5", func(s *mmdfw.Settings) { s.CandidateInit, s.Starts = mmdfw.InitPerturb, 5 }, true},
	{"laplace, best of 5 (after: the zero value here)", func(s *mmdfw.Settings) {}, true},
	{"perturb, laplace scale", func(s *mmdfw.Settings) {
		s.CandidateInit, s.Starts, s.Scale, s.Noise = mmdfw.InitPerturb, 1, mmdfw.ScaleLaplace, 1
	}, false},
}

func main() {
	dir := flag.String("data", "data", "data folder")
	seeds := flag.Int("seeds", 5, "seeds per Gaussian cell")
	parts := flag.String("parts", "gauss,covertype,uci", "parts to run")
	uci := flag.String("datasets", "yacht,energy", "UCI sets of part (2)")
	flag.Parse()
	if err := run(*dir, *seeds, *parts, *uci); err != nil {
		fmt.Fprintln(os.Stderr, "lmostart:", err)
		os.Exit(1)
	}
}

func run(dir string, seeds int, parts, uci string) error {
	var cov *data.Classification
	if strings.Contains(parts, "gauss") || strings.Contains(parts, "covertype") {
		var err error
		if cov, err = data.LoadClassification(dir, "covertype", 1000); err != nil {
			return err
		}
	}
	if strings.Contains(parts, "gauss") {
		g56, err := covertypeLaplace(cov)
		if err != nil {
			return err
		}
		targets := []gaussTarget{
			{"gauss2d", newGauss(2, 2), nil},
			{"gauss10d", newGauss(10, 10), nil},
			g56,
		}
		for _, dirn := range []mmdfw.Direction{mmdfw.Self, mmdfw.Exact} {
			if err := gaussTable(targets, dirn, seeds); err != nil {
				return err
			}
		}
	}
	if strings.Contains(parts, "covertype") {
		if err := covertypeTable(cov); err != nil {
			return err
		}
	}
	if strings.Contains(parts, "uci") {
		for _, name := range strings.Split(uci, ",") {
			if err := uciTable(dir, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// gaussTarget is an exact Gaussian target with its prior.
type gaussTarget struct {
	name  string
	g     *target.Gaussian
	prior func(rng *rand.Rand, dst []float64) // nil: the target itself
}

// withPrior is a Gaussian target whose prior is not the target.
type withPrior struct {
	*target.Gaussian
	prior func(rng *rand.Rand, dst []float64)
}

func (w withPrior) SamplePrior(rng *rand.Rand, dst []float64) { w.prior(rng, dst) }

// newGauss is pkg/experiment's construction of gauss2d and gauss10d:
// m ~ N(0, I), Σ = Q diag(λ) Qᵀ, Q a random rotation, λ log-uniform on
// [1/2, 2], from the seed of the dataset.
func newGauss(d int, seed uint64) *target.Gaussian {
	rng := rand.New(rand.NewPCG(seed, 0x6761757373))
	m := make([]float64, d)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	lam := make([]float64, d)
	for i := range lam {
		lam[i] = math.Exp(math.Log(0.5) + rng.Float64()*math.Log(4))
	}
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			var v float64
			for k := 0; k < d; k++ {
				v += q.At(i, k) * lam[k] * q.At(j, k)
			}
			cov.SetSym(i, j, v)
		}
	}
	g, err := target.NewGaussian(m, cov)
	if err != nil {
		panic("lmostart: " + err.Error())
	}
	return g
}

// covertypeLaplace returns N(x̂, Σ), the Laplace approximation of the
// Covertype logistic regression on the training rows of c at its MAP (exact
// Hessian), with the model's prior.
func covertypeLaplace(c *data.Classification) (gaussTarget, error) {
	m := model.NewLogistic(c.XTrain, c.YTrain)
	d := m.Dim()
	ctx := context.Background()
	mp, err := laplace.FindMAP(ctx, m, make([]float64, d), laplace.MAPSettings{})
	if err != nil {
		return gaussTarget{}, err
	}
	var H mat.SymDense
	m.LogProbHessian(&H, mp.X)
	P := mat.NewSymDense(d, nil)
	P.ScaleSym(-1, &H)
	var ch mat.Cholesky
	if !ch.Factorize(P) {
		return gaussTarget{}, fmt.Errorf("covertype: −H at the MAP is not positive definite")
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		return gaussTarget{}, err
	}
	g, err := target.NewGaussian(mp.X, &cov)
	if err != nil {
		return gaussTarget{}, err
	}
	return gaussTarget{"covertype-laplace56", g, m.SamplePrior}, nil
}

// gaussTable prints, per target and variant, the mean log₁₀ MMD² (± its
// standard error over the seeds) at N = 1, 50, 200, the share of
// particles 50–200 outside the target's 99.9 % ellipsoid, and the seconds.
func gaussTable(targets []gaussTarget, dirn mmdfw.Direction, seeds int) error {
	dname := string(dirn)
	fmt.Printf("\n(1) Exact MMD² on the Gaussian targets, direction %s, BQ weights with exact z, MAP start, N = 200, %d seeds\n", dname, seeds)
	fmt.Println("| target | h | candidate start | log₁₀ MMD² N=1 | N=50 | N=200 | tail share 50–200 | s/run |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, tg := range targets {
		g := tg.g
		d := g.Dim()
		draws := mat.NewDense(2000, d, nil)
		g.SampleRows(rand.New(rand.NewPCG(uint64(d), 0x6d6564)), draws)
		h := kernel.MedianDistance(draws, 1000)
		emb := g.RBFEmbedding(h)
		var t target.Target = g
		if tg.prior != nil {
			t = withPrior{g, tg.prior}
		}
		// The tail: farther from the mean than 99.9 % of the target's
		// draws (Euclidean, the isotropic kernel's own distance).
		mean := g.Mean()
		dist := make([]float64, 2000)
		for i := range dist {
			dist[i] = floats.Distance(draws.RawRowView(i), mean, 2)
		}
		r999 := stat.Quantile(0.999, stat.Empirical, sortedCopy(dist), nil)
		for _, v := range variants {
			var sum, sumsq [3]float64
			var tail, secs float64
			for seed := 0; seed < seeds; seed++ {
				s := mmdfw.Settings{
					N:          200,
					KernelSpec: mmdfw.KernelSpec{Bandwidth: h},
					Weighting:  mmdfw.Weighting{Weights: mmdfw.BQ, RawWeights: true},
					Frame:      sampler.Frame{Stop: mmdfw.StopFixed},
					LMO:        mmdfw.LMO{Direction: dirn},
				}
				in := mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}
				v.set(&s)
				pools.Fill(s, &in) // the harness's samplers, as the experiments run
				var vals [3]float64
				rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
					for k, n := range at {
						if sn.Step == n {
							vals[k] = emb.MMD2(sn.X, sn.W)
						}
					}
					return nil
				})
				t0 := time.Now()
				s.Inputs = in
				mmdfwRes, err := mmdfw.Run(context.Background(), t, particle.Start{}, s, rand.NewPCG(uint64(seed), 17), rec)
				res, _ := mmdfwRes.Detail.(*mmdfw.Result)
				secs += time.Since(t0).Seconds() / float64(seeds)
				if err != nil {
					return fmt.Errorf("%s, %s, seed %d: %w", tg.name, v.name, seed, err)
				}
				for k := range vals {
					l := math.Log10(max(vals[k], 1e-300))
					sum[k] += l
					sumsq[k] += l * l
				}
				var out int
				for i := 49; i < 200; i++ {
					if floats.Distance(res.Set.X.RawRowView(i), mean, 2) > r999 {
						out++
					}
				}
				tail += float64(out) / 151 / float64(seeds)
			}
			fmt.Printf("| %s | %.3g | %s |", tg.name, h, v.name)
			for k := range sum {
				n := float64(seeds)
				mean := sum[k] / n
				se := math.Sqrt(max(sumsq[k]/n-mean*mean, 0) / max(n-1, 1))
				fmt.Printf(" %.2f ± %.2f |", mean, se)
			}
			fmt.Printf(" %.0f %% | %.2f |\n", 100*tail, secs)
		}
	}
	return nil
}

func sortedCopy(x []float64) []float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y
}

// pick returns the rows idx of X and y.
func pick(X *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, p := X.Dims()
	Xo := mat.NewDense(len(idx), p, nil)
	yo := make([]float64, len(idx))
	for k, i := range idx {
		Xo.SetRow(k, X.RawRowView(i))
		yo[k] = y[i]
	}
	return Xo, yo
}

// carve splits the training rows into the method's rows and the
// validation fifth of the tuning experiments.
func carve(X *mat.Dense, y []float64, name string, split int) (Xtr *mat.Dense, ytr []float64, Xva *mat.Dense, yva []float64, err error) {
	n, _ := X.Dims()
	out, err := experiment.ValidationRows(valRows, name, split, n)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	keep := make([]int, 0, n-len(out))
	for i, j := 0, 0; i < n; i++ {
		if j < len(out) && out[j] == i {
			j++
			continue
		}
		keep = append(keep, i)
	}
	Xtr, ytr = pick(X, y, keep)
	Xva, yva = pick(X, y, out)
	return Xtr, ytr, Xva, yva, nil
}

// runAt runs s on t from x0 and returns f of the snapshots at N = 1, 50,
// 200.
func runAt(t target.Target, x0 []float64, s mmdfw.Settings, seed uint64, f func(X *mat.Dense, w []float64) [2]float64) ([3][2]float64, float64, error) {
	var out [3][2]float64
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		for k, n := range at {
			if sn.Step == n {
				out[k] = f(sn.X, sn.W)
			}
		}
		return nil
	})
	t0 := time.Now()
	var in mmdfw.Inputs
	pools.Fill(s, &in) // the harness's samplers, as the experiments run
	s.Inputs = in
	_, err := sampler.Set(mmdfw.Run(context.Background(), t, particle.Start{X0: x0}, s, rand.NewPCG(seed, 23), rec))
	return out, time.Since(t0).Seconds(), err
}

// configs are the two configurations of part (2): the zero Settings (N
// fixed at 200) and fig1b's Covertype arm.
var configs = []struct {
	name string
	base mmdfw.Settings
	// covertypeOnly marks fig1b's arm.
	covertypeOnly bool
}{
	{"zero Settings (whitened, Stein)", mmdfw.Settings{N: 200, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}, false},
	{"fig1b arm (laplace scale, equal, batch 100)", mmdfw.Settings{N: 200, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace, Noise: 0.5}, Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}, LMO: mmdfw.LMO{Batch: 100}}, true},
}

// partVariants are the candidate starts of part (2), where there is no z
// and the runs are in the target's scales: there the zero value stays
// InitPerturb (in those scales), and InitLaplace draws around the first
// particle.
var partVariants = []variant{
	{"perturb (before and after: the default in these scales)", func(s *mmdfw.Settings) {}, false},
	variants[1],
	{"laplace", func(s *mmdfw.Settings) { s.CandidateInit = mmdfw.InitLaplace }, false}}

func covertypeTable(c *data.Classification) error {
	Xtr, ytr, Xva, yva, err := carve(c.XTrain, c.YTrain, "covertype", 1000)
	if err != nil {
		return err
	}
	m := model.NewLogistic(Xtr, ytr)
	fmt.Printf("\n(2) Covertype (%s), tuning split 1000: %d rows for the method, %d validation rows; held-out log-likelihood (accuracy), 2 seeds\n",
		c.Label, m.NData(), len(yva))
	fmt.Println("| configuration | candidate start | val LL N=1 | N=50 | N=200 | s/run |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, cf := range configs {
		for _, v := range partVariants {
			var sum [3][2]float64
			var secs float64
			const seeds = 2
			for seed := uint64(0); seed < seeds; seed++ {
				s := cf.base
				x0 := make([]float64, m.Dim()) // the experiments' MAP search starts at the origin
				v.set(&s)
				if s.CandidateInit == mmdfw.InitPrior && s.Scale == mmdfw.ScaleAuto {
					s.Scale = mmdfw.ScaleBandwidth // the zero Settings with prior candidates
				}
				r, sec, err := runAt(m, x0, s, seed, func(X *mat.Dense, w []float64) [2]float64 {
					acc, ll := m.Metrics(Xva, yva, X, w)
					return [2]float64{ll, acc}
				})
				if err != nil {
					return fmt.Errorf("covertype %s %s: %w", cf.name, v.name, err)
				}
				secs += sec / seeds
				for k := range r {
					sum[k][0] += r[k][0] / seeds
					sum[k][1] += r[k][1] / seeds
				}
			}
			fmt.Printf("| %s | %s |", cf.name, v.name)
			for k := range sum {
				fmt.Printf(" %.4f (%.4f) |", sum[k][0], sum[k][1])
			}
			fmt.Printf(" %.1f |\n", secs)
		}
	}
	return nil
}

func uciTable(dir, name string) error {
	r, err := data.LoadRegression(dir, name, 0)
	if err != nil {
		return err
	}
	Xtr, ytr, Xva, yva, err := carve(r.XTrain, r.YTrain, name, 0)
	if err != nil {
		return err
	}
	for i, v := range yva {
		yva[i] = r.Unscale(v)
	}
	m := model.NewBNN(Xtr, ytr, 50)
	m.Workers = 1
	fmt.Printf("\n(2) %s split 0: %d rows for the method, %d validation rows, d = %d; validation RMSE (LL), 2 seeds, zero Settings from a BNN.Init draw\n",
		name, m.NData(), len(yva), m.Dim())
	fmt.Println("| candidate start | val RMSE N=1 | N=50 | N=200 | s/run |")
	fmt.Println("|---|---|---|---|---|")
	for _, v := range partVariants {
		var sum [3][2]float64
		var secs float64
		const seeds = 2
		for seed := uint64(0); seed < seeds; seed++ {
			s := configs[0].base
			x0 := make([]float64, m.Dim())
			m.Init(rand.New(rand.NewPCG(seed, 5)), x0)
			v.set(&s)
			if s.CandidateInit == mmdfw.InitPrior {
				s.Scale = mmdfw.ScaleBandwidth
			}
			res, sec, err := runAt(m, x0, s, seed, func(X *mat.Dense, w []float64) [2]float64 {
				rm, ll := m.Metrics(Xva, yva, X, w, r.YMean, r.YStd)
				return [2]float64{rm, ll}
			})
			if err != nil {
				return fmt.Errorf("%s %s: %w", name, v.name, err)
			}
			secs += sec / seeds
			for k := range res {
				sum[k][0] += res[k][0] / seeds
				sum[k][1] += res[k][1] / seeds
			}
		}
		fmt.Printf("| %s |", v.name)
		for k := range sum {
			fmt.Printf(" %.4g (%.3f) |", sum[k][0], sum[k][1])
		}
		fmt.Printf(" %.1f |\n", secs)
	}
	return nil
}
