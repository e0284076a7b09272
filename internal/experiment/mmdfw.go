package experiment

import (
	"cmp"
	"context"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// MMDFWConfig is the settings table of an mmdfw method: mmdfw.Settings,
// decoded straight from the file (its fields' names, defaults and
// validation are the package's), with the start selector of the wiring and
// the SVGD run of the SVGD→MMD-FW combination. The cell's particle count is
// the number of particles N.
//
// Z "pool", and "" with weights "bq" or "line-search", draws the pool with
// mmdfw.SGLDPool(pool_iterations), charged to the run; "" on a Gaussian
// target is the exact embedding.
type MMDFWConfig struct {
	// Start is the first particle: "map" (the cached MAP of the dataset
	// split, its L-BFGS cost charged to the run), "prior" (a prior draw),
	// "model" (a model.BNN.Init draw, the non-MAP start of the BNN), "svgd"
	// (the first particle of an SVGD run) or "" (model for a BNN, map
	// otherwise). It shadows mmdfw.Settings.Start, which the wiring sets.
	Start string `toml:"start" json:"start,omitempty"`
	mmdfw.Settings
	// SVGDIterations and SVGDStep configure the SVGD run of the SVGD→MMD-FW
	// combination (start or init "svgd"); SVGDParticleCount is its particle
	// count (default N).
	SVGDIterations    int     `toml:"svgd_iterations" json:"svgd_iterations,omitempty"`
	SVGDStep          float64 `toml:"svgd_step" json:"svgd_step,omitempty"`
	SVGDParticleCount int     `toml:"svgd_particles" json:"svgd_particles,omitempty"`
}

// Validate checks the package's settings and the wiring's own.
func (c MMDFWConfig) Validate() error {
	if err := c.Settings.Validate(); err != nil {
		return err
	}
	if err := setting.NonNegative("svgd_iterations", c.SVGDIterations, "svgd_step", c.SVGDStep,
		"svgd_particles", c.SVGDParticleCount); err != nil {
		return err
	}
	return oneOf("start", c.Start, "", "map", "prior", "model", "svgd")
}

func runMMDFW(ctx context.Context, in harness.Input[MMDFWConfig]) (harness.Output, error) {
	d, err := dataOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := c.Settings
	s.N = in.N
	needZ := c.Weights == mmdfw.BQ || c.Weights == mmdfw.LineSearch
	switch {
	case c.Z == mmdfw.ZExact || (c.Z == mmdfw.ZAuto && d.Gauss != nil):
		if d.Gauss == nil {
			return harness.Output{}, fieldErr("z", `"exact" needs a Gaussian target`)
		}
		s.Z, s.Embed = mmdfw.ZExact, mmdfw.GaussianEmbedding(d.Gauss)
	case c.Z == mmdfw.ZPool || needZ:
		s.Z = mmdfw.ZPool // drawn by mmdfw.SGLDPool(c.PoolIterations)
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
		if s.Bandwidth == 0 && c.Init != mmdfw.InitSVGD && c.Scale != mmdfw.ScaleLaplace {
			// The median heuristic over draws of the start's own law,
			// not over the prior's far broader draws.
			draws := cmp.Or(c.MedianDraws, mmdfw.DefaultMedianDraws)
			if s.SVGDParticles, err = initParticles(d, "model", draws, in.Problem.Target.Dim(), rng); err != nil {
				return harness.Output{}, err
			}
			if s.Init == mmdfw.InitAuto {
				s.Init = mmdfw.InitPerturb
			}
		}
	}
	if start == "svgd" || c.Init == mmdfw.InitSVGD {
		n := cmp.Or(c.SVGDParticleCount, in.N)
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
