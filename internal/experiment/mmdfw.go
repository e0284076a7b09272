package experiment

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// MMDFWConfig is the settings table of an mmdfw method (pkg/mmdfw). Strings
// select the package's enumerations; zero fields take its defaults. The
// cell's particle count is the number of particles N.
type MMDFWConfig struct {
	// Start is the first particle: "map" (the cached MAP of the dataset
	// split, its L-BFGS cost charged to the run), "prior" (a prior draw),
	// "model" (a model.BNN.Init draw, the non-MAP start of the BNN), "svgd"
	// (the first particle of an SVGD run) or "" (model for a BNN, map
	// otherwise).
	Start string `toml:"start" json:"start,omitempty"`
	// Init is where each LMO starts: "perturb", "prior", "svgd" or ""
	// (svgd after an SVGD run, perturb otherwise).
	Init string `toml:"init" json:"init,omitempty"`
	// Pick is the particle "perturb" perturbs: "uniform" or "weight".
	Pick string `toml:"pick" json:"pick,omitempty"`
	// Noise is the perturbation sd in units of the bandwidth, or of the
	// Laplace covariance with scale "laplace".
	Noise float64 `toml:"noise" json:"noise,omitempty"`
	// Scale is the unit of noise and step_size: "bandwidth" (h in every
	// coordinate), "laplace" (the Laplace approximation at the first
	// particle, which then also sets the median heuristic; its 2d
	// gradients on laplace_batch rows, 0 = all, are charged) or ""
	// (bandwidth).
	Scale        string `toml:"scale" json:"scale,omitempty"`
	LaplaceBatch int    `toml:"laplace_batch" json:"laplace_batch,omitempty"`
	// Direction is the LMO direction: "self" (default), "frozen" (the
	// paper's literal reading) or "exact" (Gaussian targets only).
	Direction string `toml:"direction" json:"direction,omitempty"`
	// LMOSteps, StepSize (in units of h) and Batch (candidate's minibatch)
	// drive each Approx-LMO.
	LMOSteps int     `toml:"lmo_steps" json:"lmo_steps,omitempty"`
	StepSize float64 `toml:"step_size" json:"step_size,omitempty"`
	Batch    int     `toml:"batch" json:"batch,omitempty"`
	// Weights is the weight rule: "bq", "line-search", "equal", "classic",
	// "schedule", "stein" or "" (bq when z is available, else stein).
	// ScheduleC, Jitter (λ of BQ), RawWeights and SteinIterations are
	// mmdfw.Settings' fields of the weight rules.
	Weights         string  `toml:"weights" json:"weights,omitempty"`
	ScheduleC       float64 `toml:"schedule_c" json:"schedule_c,omitempty"`
	Jitter          float64 `toml:"jitter" json:"jitter,omitempty"`
	RawWeights      bool    `toml:"raw_weights" json:"raw_weights,omitempty"`
	SteinIterations int     `toml:"stein_iterations" json:"stein_iterations,omitempty"`
	// Z is the estimator of zᵢ = μ_p(xᵢ): "exact" (closed form, Gaussian
	// targets), "pool" (an SGLD pool, charged to the run) or "" (exact on a
	// Gaussian target, a pool when the weight rule needs z, none
	// otherwise). The pool runs 4 SGLD chains of PoolIterations (default
	// 2000) iterations with sgld's default burn-in (half) and thinning
	// (10), and keeps the last min(⌈PoolSize/4⌉, ⌊(T − ⌊T/2⌋)/10⌋) draws of
	// each chain, T = PoolIterations: with the defaults 400 draws, fewer
	// than PoolSize (1000).
	Z              string `toml:"z" json:"z,omitempty"`
	PoolSize       int    `toml:"pool_size" json:"pool_size,omitempty"`
	PoolIterations int    `toml:"pool_iterations" json:"pool_iterations,omitempty"`
	// Kernel is "rbf" (default) or "rff" with Features random features;
	// Bandwidth 0 is the package's median heuristic.
	Kernel      string  `toml:"kernel" json:"kernel,omitempty"`
	Features    int     `toml:"features" json:"features,omitempty"`
	Bandwidth   float64 `toml:"bandwidth" json:"bandwidth,omitempty"`
	MedianDraws int     `toml:"median_draws" json:"median_draws,omitempty"`
	// SVGDIterations and SVGDStep configure the SVGD run of the SVGD→MMD-FW
	// combination (start or init "svgd"); SVGDParticles is its particle
	// count (default N).
	SVGDIterations int     `toml:"svgd_iterations" json:"svgd_iterations,omitempty"`
	SVGDStep       float64 `toml:"svgd_step" json:"svgd_step,omitempty"`
	SVGDParticles  int     `toml:"svgd_particles" json:"svgd_particles,omitempty"`
}

// Validate checks the ranges and names.
func (c MMDFWConfig) Validate() error {
	for _, f := range []struct {
		key string
		v   float64
	}{{"noise", c.Noise}, {"lmo_steps", float64(c.LMOSteps)}, {"step_size", c.StepSize}, {"schedule_c", c.ScheduleC},
		{"jitter", c.Jitter}, {"stein_iterations", float64(c.SteinIterations)}, {"pool_size", float64(c.PoolSize)},
		{"pool_iterations", float64(c.PoolIterations)}, {"features", float64(c.Features)}, {"bandwidth", c.Bandwidth},
		{"median_draws", float64(c.MedianDraws)}, {"svgd_iterations", float64(c.SVGDIterations)},
		{"svgd_step", c.SVGDStep}, {"svgd_particles", float64(c.SVGDParticles)},
		{"laplace_batch", float64(c.LaplaceBatch)}} {
		if f.v < 0 {
			return fieldErr(f.key, "must not be negative")
		}
	}
	for _, e := range []error{
		oneOf("start", c.Start, "", "map", "prior", "model", "svgd"),
		oneOf("init", c.Init, "", "perturb", "prior", "svgd"),
		oneOf("pick", c.Pick, "", "uniform", "weight"),
		oneOf("scale", c.Scale, "", "bandwidth", "laplace"),
		oneOf("direction", c.Direction, "", "self", "frozen", "exact"),
		oneOf("weights", c.Weights, "", "bq", "line-search", "equal", "classic", "schedule", "stein"),
		oneOf("z", c.Z, "", "exact", "pool"),
		oneOf("kernel", c.Kernel, "", "rbf", "rff"),
	} {
		if e != nil {
			return e
		}
	}
	if c.Kernel != "rff" && c.Features != 0 {
		return fieldErr("features", `needs kernel = "rff"`)
	}
	return nil
}

var (
	mmdfwInit      = map[string]mmdfw.Init{"": mmdfw.InitAuto, "perturb": mmdfw.InitPerturb, "prior": mmdfw.InitPrior, "svgd": mmdfw.InitSVGD}
	mmdfwScale     = map[string]mmdfw.Scale{"": mmdfw.ScaleAuto, "bandwidth": mmdfw.ScaleBandwidth, "laplace": mmdfw.ScaleLaplace}
	mmdfwPick      = map[string]mmdfw.Pick{"": mmdfw.PickUniform, "uniform": mmdfw.PickUniform, "weight": mmdfw.PickByWeight}
	mmdfwDirection = map[string]mmdfw.Direction{"": mmdfw.DirectionAuto, "self": mmdfw.Self, "frozen": mmdfw.Frozen, "exact": mmdfw.Exact}
	mmdfwRule      = map[string]mmdfw.Rule{"": mmdfw.RuleAuto, "bq": mmdfw.BQ, "line-search": mmdfw.LineSearch, "equal": mmdfw.Equal,
		"classic": mmdfw.Classic, "schedule": mmdfw.Schedule, "stein": mmdfw.Stein}
)

// sgldPool draws the sample pool of the "pool" z estimator with SGLD from
// the prior: 4 chains of iterations each, half of them burn-in, the rest
// thinned so that each chain gives size/4 draws (rounded up).
func sgldPool(iterations int) mmdfw.PoolSampler {
	return mmdfw.PoolSamplerFunc(func(ctx context.Context, t target.Target, size int, rng *rand.Rand) (*mat.Dense, int64, error) {
		var grads int64
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { grads = s.GradEvals; return nil })
		keep := (size + 3) / 4
		thin := max(1, (iterations-iterations/2)/keep)
		set, err := sgld.Run(ctx, t, sgld.Settings{Iterations: iterations, Chains: 4, Keep: keep, Thin: thin},
			rand.NewPCG(rng.Uint64(), rng.Uint64()), rec)
		if err != nil {
			return nil, grads, err
		}
		return set.X, grads, nil
	})
}

func runMMDFW(ctx context.Context, in harness.Input[MMDFWConfig]) (harness.Output, error) {
	d, err := dataOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := mmdfw.Settings{
		N: in.N, Init: mmdfwInit[c.Init], Pick: mmdfwPick[c.Pick], Noise: c.Noise,
		Scale: mmdfwScale[c.Scale], LaplaceBatch: c.LaplaceBatch,
		Direction: mmdfwDirection[c.Direction], LMOSteps: c.LMOSteps, StepSize: c.StepSize, Batch: c.Batch,
		Weights: mmdfwRule[c.Weights], ScheduleC: c.ScheduleC, Jitter: c.Jitter, RawWeights: c.RawWeights,
		SteinIterations: c.SteinIterations, PoolSize: c.PoolSize, Features: c.Features,
		Bandwidth: c.Bandwidth, MedianDraws: c.MedianDraws,
	}
	if c.Kernel == "rff" {
		s.Kernel = mmdfw.RFFKernel
	}
	needZ := c.Weights == "bq" || c.Weights == "line-search"
	switch {
	case c.Z == "exact" || (c.Z == "" && d.Gauss != nil):
		if d.Gauss == nil {
			return harness.Output{}, fieldErr("z", `"exact" needs a Gaussian target`)
		}
		s.Z, s.Embed = mmdfw.ZExact, mmdfw.GaussianEmbedding(d.Gauss)
	case c.Z == "pool" || needZ:
		iters := c.PoolIterations
		if iters == 0 {
			iters = 2000
		}
		s.Z, s.PoolSampler = mmdfw.ZPool, sgldPool(iters)
	}
	start := c.Start
	if start == "" {
		start = "map"
		if d.BNN != nil {
			start = "model"
		}
	}
	rng := rand.New(in.Src)
	rec := in.Recorder
	var m *MAP
	switch start {
	case "map":
		if m, rec, err = startMAP(ctx, in.Env, in.Problem, rec, true); err != nil {
			return harness.Output{}, err
		}
		s.Start, s.X0 = mmdfw.StartGiven, m.X
	case "prior":
		s.Start = mmdfw.StartPrior
	case "model":
		if d.BNN == nil {
			return harness.Output{}, fieldErr("start", `"model" needs a BNN dataset`)
		}
		s.Start, s.X0 = mmdfw.StartGiven, make([]float64, in.Problem.Target.Dim())
		d.BNN.Init(rng, s.X0)
		if s.Bandwidth == 0 && c.Init != "svgd" && c.Scale != "laplace" {
			// The median heuristic over draws of the start's own law,
			// not over the prior's far broader draws.
			draws := c.MedianDraws
			if draws == 0 {
				draws = 200
			}
			if s.SVGDParticles, err = initParticles(d, "model", draws, in.Problem.Target.Dim(), rng); err != nil {
				return harness.Output{}, err
			}
			if s.Init == mmdfw.InitAuto {
				s.Init = mmdfw.InitPerturb
			}
		}
	}
	if start == "svgd" || c.Init == "svgd" {
		n := c.SVGDParticles
		if n == 0 {
			n = in.N
		}
		sv := &svgd.Settings{Particles: n, Iterations: c.SVGDIterations, Step: c.SVGDStep, Workers: in.Threads}
		if sv.Init, err = initParticles(d, "", n, in.Problem.Target.Dim(), rng); err != nil {
			return harness.Output{}, err
		}
		s.SVGD = sv
		if start == "svgd" {
			s.Start = mmdfw.StartAuto
		}
	}
	res, err := mmdfw.RunResult(ctx, in.Problem.Target, s, in.Src, rec)
	ms := map[string]any{
		"bandwidth": res.Bandwidth, "seconds": res.Seconds, "grad_evals": res.GradEvals,
		"map_grad_evals": res.MAPGradEvals, "pool_grad_evals": res.PoolGradEvals, "svgd_grad_evals": res.SVGDGradEvals,
		"laplace_grad_evals": res.LaplaceGradEvals,
		"start":              start,
	}
	if len(res.MMD2) > 0 {
		v := make([]any, len(res.MMD2))
		for i, x := range res.MMD2 {
			v[i] = finite(x)
		}
		ms["objective_mmd2_half"] = v
	}
	return harness.Output{Set: res.Set, Summary: summary(d, ms, m)}, err
}
