package experiment

import (
	"errors"
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// MMDFWConfig is the settings table of an mmdfw method: mmdfw.Settings,
// decoded straight from the file (its fields' names, defaults and
// validation are the package's), with the start selector of the wiring and
// the SVGD run of the SVGD→MMD-FW combination. The cell's particle count is
// the number of particles N.
//
// A key the file leaves out takes the package's default, as for callers of
// mmdfw.Run: scales "target", candidates "laplace", the KSD stop with the
// particle count as a ceiling, the "pairwise" weight solver. The paper's
// protocol is written out in the experiment files (scale "bandwidth" or
// "given", init "perturb", starts 1, stop "fixed", weight_solver "fista").
// The pairwise solver's statistics go into the summary as weight_solves,
// weight_iterations, weight_not_converged and weight_gap_max.
//
// Z "pool", and "" with weights "bq", "line-search" or "mmd", draws the pool with
// pools.SGLD(pool_iterations), or with pool_sampler = "hmc" an HMC
// pilot, charged to the run; "" on a Gaussian target is the exact
// embedding.
type MMDFWConfig struct {
	// Start is the first particle: "map" (the cached MAP of the dataset
	// split, its L-BFGS cost charged to the run; with map_newton_tol its
	// own cached MAP, stopped at that Newton decrement), "prior" (a prior draw),
	// "model" (a model.BNN.Init draw, the non-MAP start of the BNN),
	// "trained" (a BNN trained from a model.BNN.Init draw by optim.Train,
	// mmdfw.FirstTrained: on the method's training rows less a seeded fifth,
	// TrainValidationFraction, on which the validation RMSE early-stops
	// it; its cost charged to the run and its scales the candidates'
	// unless scale says otherwise), "svgd" (the first particle of an SVGD
	// run) or "" (model for a BNN, map otherwise). It shadows
	// mmdfw.Settings.First (key start too), which the wiring sets.
	Start string `toml:"start" json:"start,omitempty"`
	// TrainConfig holds the train_* settings of the "trained" start
	// (shared with the other kinds that offer it).
	TrainConfig
	mmdfw.Settings
	// SVGDIterations and SVGDStep configure the SVGD run of the SVGD→MMD-FW
	// combination (start or init "svgd"); SVGDParticleCount is its particle
	// count (default N).
	SVGDIterations    int     `toml:"svgd_iterations" json:"svgd_iterations,omitempty"`
	SVGDStep          float64 `toml:"svgd_step_size" json:"svgd_step_size,omitempty"`
	SVGDParticleCount int     `toml:"svgd_particles" json:"svgd_particles,omitempty"`
	// PoolSampler draws the pool of z = "pool": "sgld" or "" (the default,
	// pools.SGLD(pool_iterations)) or "hmc" (pools.HMC: an
	// independent HMC pilot with the settings PoolHMC, hmc's defaults where
	// absent — 4 chains, 1,000 warm-up iterations each — and ⌈pool_size/4⌉
	// draws per chain, started around the MAP when the run starts there).
	// Either pool's cost is charged to the run.
	PoolSampler string `toml:"pool_sampler" json:"pool_sampler,omitempty"`
	// PoolHMC is the pilot's hmc.Settings table (pool_sampler = "hmc").
	PoolHMC *hmc.Settings `toml:"pool_hmc" json:"pool_hmc,omitempty"`
}

// Validate checks the package's settings and the wiring's own.
func (c MMDFWConfig) Validate() error {
	if err := c.Settings.Validate(); err != nil {
		return err
	}
	// The wiring gives the package mmdfw.Inputs.Scales only from a trained
	// start (the training's scales, which scale "auto" takes too), so
	// scale "given" needs one.
	if c.Scale == mmdfw.ScaleGiven && c.Start != "trained" {
		return setting.Errorf("scale", c.Scale, `needs start = "trained", whose scales are the training's`)
	}
	if err := setting.NonNegative("svgd_iterations", c.SVGDIterations, "svgd_step_size", c.SVGDStep,
		"svgd_particles", c.SVGDParticleCount); err != nil {
		return err
	}
	if err := c.TrainConfig.validate(c.Start == "trained", "start", `"trained"`); err != nil {
		return err
	}
	if err := oneOf("pool_sampler", c.PoolSampler, "", "sgld", "hmc"); err != nil {
		return err
	}
	if c.PoolHMC != nil {
		if c.PoolSampler != "hmc" {
			return fieldErr("pool_hmc", `needs pool_sampler = "hmc"`)
		}
		if err := c.PoolHMC.Validate(); err != nil {
			return fmt.Errorf("pool_hmc: %w", err)
		}
	}
	if c.PoolSampler != "" && !c.needsPool() {
		return fieldErr("pool_sampler", `needs z = "pool" (or weights "bq", "line-search" or "mmd")`)
	}
	if c.Start == "trained" && c.Scale == mmdfw.ScaleBandwidth {
		return fieldErr("scale", `"bandwidth" contradicts start = "trained", whose scales are the training's`)
	}
	return oneOf("start", c.Start, "", "map", "prior", "model", "trained", "svgd")
}

// needsPool reports whether the run draws a pool for z (on a target
// without an exact embedding).
func (c MMDFWConfig) needsPool() bool {
	return c.Z == mmdfw.ZPool || (c.Z == mmdfw.ZAuto && (c.Weights == mmdfw.BQ || c.Weights == mmdfw.LineSearch || c.Weights == mmdfw.MMD))
}

// TrainValidationFraction is the share of the method's training rows that
// the "trained" start holds out to early-stop the training, and
// trainRowsSeed selects them (with the dataset name and split).
const (
	TrainValidationFraction = 0.2
	trainRowsSeed           = 1
)

func runMMDFW(ctx context.Context, in harness.Input[MMDFWConfig]) (harness.Output, error) {
	d, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := c.Settings
	s.N = in.N
	gauss, _ := d.Exact()
	var from particle.Start // the run's start
	var mi mmdfw.Inputs     // its data and samplers
	switch {
	case c.Z == mmdfw.ZExact || (c.Z == mmdfw.ZAuto && gauss != nil):
		if gauss == nil {
			return harness.Output{}, fieldErr("z", `"exact" needs a Gaussian target`)
		}
		s.Z, mi.Embed = mmdfw.ZExact, mmdfw.GaussianEmbedding(gauss)
	case c.needsPool():
		s.Z = mmdfw.ZPool // drawn by pools.SGLD(c.PoolIterations) unless pool_sampler says otherwise (below)
	}
	start := c.Start
	if start == "" {
		start = "map"
		if d.OwnStart() {
			start = "model"
		}
	}
	rng := rand.New(in.Src)
	rec := in.Recorder
	var m *MAP
	var net *Net // the shared network of start "trained"
	// An HMC pilot for the pool starts, as the references do, around the
	// MAP when the run starts there (jitter init_scale, default 0.1), else
	// from prior draws.
	var pilot hmc.Settings
	var pilotStart particle.Start
	if c.PoolHMC != nil {
		pilot = *c.PoolHMC
	}
	switch start {
	case "map":
		if c.MAPNewtonTol > 0 {
			// The cached MAP stopped by the Newton decrement, charged.
			if m, err = mapOfNewton(ctx, in.Env, d.About(), in.Problem.Target, c.MAPNewtonTol); err != nil {
				return harness.Output{}, err
			}
			rec = chargeRecorder{rec: rec, seconds: m.Seconds, grads: m.GradEvals}
		} else if m, rec, err = startMAP(ctx, in.Env, in.Problem, rec, true); err != nil {
			return harness.Output{}, err
		}
		s.First, from.X0 = mmdfw.FirstGiven, m.X
		pilotStart.X0, pilot.InitScale = m.X, cmp.Or(pilot.InitScale, 0.1)
	case "prior":
		s.First = mmdfw.FirstPrior
	case "trained":
		tr, err := newTrained(d, in.Env.Cell.Split, c.TrainConfig, "start")
		if err != nil {
			return harness.Output{}, err
		}
		if net, err = tr.net(ctx, in.Env, 0); err != nil {
			return harness.Output{}, err
		}
		startMMDFW(&s, &from, &mi, net)
		rec = chargeRecorder{rec: rec, seconds: net.Seconds, grads: net.GradEvals}
	case "model":
		if !d.OwnStart() {
			return harness.Output{}, fieldErr("start", `"model" needs a BNN dataset`)
		}
		x0, err := d.Start("model", 1, rng)
		if err != nil {
			return harness.Output{}, err
		}
		s.First, from.X0 = mmdfw.FirstGiven, x0.RawRowView(0)
		if s.Bandwidth == 0 && c.CandidateInit != mmdfw.InitSVGD && c.Scale != mmdfw.ScaleLaplace {
			// The median heuristic over draws of the start's own law,
			// not over the prior's far broader draws.
			draws := cmp.Or(c.MedianDraws, mmdfw.DefaultMedianDraws)
			if from.Particles, err = d.Start("model", draws, rng); err != nil {
				return harness.Output{}, err
			}
			if s.CandidateInit == mmdfw.InitAuto {
				s.CandidateInit = mmdfw.InitPerturb
			}
		}
	}
	if start == "svgd" || c.CandidateInit == mmdfw.InitSVGD {
		n := cmp.Or(c.SVGDParticleCount, in.N)
		sv := &svgd.Settings{N: n, Iterations: c.SVGDIterations, StepSize: c.SVGDStep, Frame: sampler.Frame{Workers: in.Threads}}
		referenceCodeSVGD(sv)
		var svStart particle.Start
		if svStart.Particles, err = d.Start("", n, rng); err != nil {
			return harness.Output{}, err
		}
		mi.SVGD = pools.SVGD(svStart, *sv)
		if start == "svgd" {
			s.First = mmdfw.FirstAuto
		}
	}
	if c.PoolSampler == "hmc" {
		mi.PoolSampler = pools.HMC(pilotStart, pilot)
	}
	pools.Fill(s, &mi)
	s.Inputs = mi
	mmdfwRes, err := mmdfw.Run(ctx, in.Problem.Target, from, s, in.Src, rec)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if res == nil {
		// The run failed before it had a result to describe.
		if err == nil {
			err = errors.New("mmdfw: no result")
		}
		return harness.Output{}, err
	}
	ms := map[string]any{
		"bandwidth": res.Bandwidth, "seconds": res.Seconds, "grad_evals": res.GradEvals,
		"map_grad_evals": res.MAPGradEvals, "pool_grad_evals": res.PoolGradEvals, "svgd_grad_evals": res.SVGDGradEvals,
		"laplace_grad_evals": res.LaplaceGradEvals, "train_grad_evals": res.TrainGradEvals,
		"start": start,
	}
	if net != nil {
		// The training is charged as a cost paid before the run, not
		// part of the package's own count.
		maps.Copy(ms, net.summary())
		ms["grad_evals"], ms["seconds"] = res.GradEvals+net.GradEvals, res.Seconds+net.Seconds
	}
	if ws := res.WeightSolve; ws.Solves > 0 { // the pairwise solver's
		ms["weight_solves"], ms["weight_iterations"] = ws.Solves, ws.Iterations
		ms["weight_not_converged"], ms["weight_gap_max"] = ws.NotConverged, finite(ws.WorstGap)
	}
	if len(res.MMD2) > 0 {
		v := make([]any, len(res.MMD2))
		for i, x := range res.MMD2 {
			v[i] = finite(x)
		}
		ms["objective_mmd2_half"] = v
	}
	return harness.Output{Set: res.Set, Summary: summary(ctx, in.Env, d, ms, m)}, err
}
