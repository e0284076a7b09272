package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// Method kinds an experiment file may name.
const (
	KindMMDFW = "mmdfw"
	KindSVGD  = "svgd"
	KindSGLD  = "sgld"
	KindSP    = "sp"
	KindHMC   = "hmc"
)

func fieldErr(key, format string, args ...any) error {
	return &harness.FieldError{Key: key, Err: fmt.Errorf(format, args...)}
}

func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fieldErr(key, "%q is not one of %q", v, allowed)
}

// finite maps NaN and ±Inf (which JSON cannot hold) to nil.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// summary is the provenance summary every method of this wiring writes:
// the dataset's entries (label, subset), the method's own diagnostics, the
// MAP the method started from (if any) and the reference its MMD² was
// measured against (if the cell evaluates mmd2; see cellReference).
func summary(ctx context.Context, env *harness.Env, d Model, method any, m *MAP) map[string]any {
	s := d.Describe()
	if method != nil {
		s["method"] = method
	}
	if m != nil {
		s["map"] = map[string]any{
			"seconds": m.Seconds, "grad_evals": m.GradEvals, "log_prob": m.LogProb,
			"grad_inf_norm": m.GradNorm, "iterations": m.Iterations, "status": m.Status,
		}
	}
	if r, err := cellReference(ctx, env, d); err != nil {
		s["reference"] = map[string]any{"error": err.Error()}
	} else if r != nil {
		s["reference"] = r
	}
	return s
}

// startMAP fetches the cell's MAP and wraps the recorder so that its cost is
// charged to the method (unless charge is false).
func startMAP(ctx context.Context, env *harness.Env, p *harness.Problem, rec particle.Recorder, charge bool) (*MAP, particle.Recorder, error) {
	d, err := modelOf(p)
	if err != nil {
		return nil, nil, err
	}
	m, err := mapOf(ctx, env, d.About(), p.Target)
	if err != nil {
		return nil, nil, err
	}
	if charge {
		rec = chargeRecorder{rec: rec, seconds: m.Seconds, grads: m.GradEvals}
	}
	return m, rec, nil
}

// SVGDConfig is the settings table of an svgd method: svgd.Settings,
// decoded straight from the file, and the wiring's choice of initial
// particles. The cell's particle count is Particles; RecordEvery 0 records
// every iteration here (the evaluation schedule decides which are scored).
type SVGDConfig struct {
	svgd.Settings
	// InitFrom ("init") is "prior" (prior draws), "model" (model.BNN.Init,
	// the SVGD reference code's start), "laplace" (draws of the Laplace
	// approximation N(x̂, (−∇²log p(x̂))⁻¹) at the cell's MAP x̂, whose
	// fit and Hessian are charged to the run), "trained" (on a BNN: draws
	// around the network θ* of MMD-FW's "trained" start, the same training
	// with the train_* settings, its seconds and gradient evaluations
	// charged to the run; see InitNoise), "reference" (the reference
	// scripts' starts, InitReference) or "" (model for a BNN, prior
	// otherwise).
	InitFrom string `toml:"init" json:"init,omitempty"`
	// InitNoise ("init_noise", init "trained" only) spreads the particles
	// around the trained network in the training's per-coordinate scales
	// σ (optim.Result.Scale, clamped as MMD-FW's candidates clamp them):
	//
	//	xᵢ = θ* + init_noise·σ⊙εᵢ,  εᵢ ~ N(0, I).
	//
	// Default DefaultInitNoise (0.3). σⱼ = √(N/(|B| v̄ⱼ)) is the
	// posterior standard deviation of coordinate j under the diagonal
	// empirical Fisher approximation, but the diagonal ignores the
	// correlations between weights: at init_noise 1 the draws lose the
	// trained network's fit (first validation RMSE 14.6 on yacht, 10.7 on
	// Boston, 7.9 on concrete, the constant predictor's range), at 0.3
	// they keep it (1.34, 3.78, 4.95; the trained networks alone score
	// 0.9–3.8 there). 0.3 is also the noise of MMD-FW's candidates in the
	// same scales that experiments/tune-bnn.toml chose.
	InitNoise float64 `toml:"init_noise" json:"init_noise,omitempty"`
	// TrainConfig holds the train_* settings of init "trained".
	TrainConfig
}

// DefaultInitNoise is SVGD's init_noise with init "trained" (see
// SVGDConfig.InitNoise).
const DefaultInitNoise = 0.3

// Validate checks the package's settings and the wiring's own.
func (c SVGDConfig) Validate() error {
	if err := c.Settings.Validate(); err != nil {
		return err
	}
	if err := oneOf("init", c.InitFrom, "", "prior", "model", "laplace", "trained", InitReference); err != nil {
		return err
	}
	if err := setting.NonNegative("init_noise", c.InitNoise); err != nil {
		return err
	}
	if c.InitNoise != 0 && c.InitFrom != "trained" {
		return fieldErr("init_noise", `needs init = "trained", not %q`, c.InitFrom)
	}
	return c.TrainConfig.validate(c.InitFrom == "trained", "init", `"trained"`)
}

// laplaceStart draws n particles from the Laplace approximation at the
// cell's MAP and wraps the recorder so that the MAP's and the fit's seconds
// and gradient evaluations are charged to the method. The draws come from
// a stream split off rng.
func laplaceStart(ctx context.Context, env *harness.Env, p *harness.Problem, rec particle.Recorder, n int, rng *rand.Rand) (*mat.Dense, particle.Recorder, map[string]any, *MAP, error) {
	l, rec, info, m, err := laplaceFit(ctx, env, p, rec)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return l.Sample(n, rand.NewPCG(rng.Uint64(), rng.Uint64())), rec, info, m, nil
}

func runSVGD(ctx context.Context, in harness.Input[SVGDConfig]) (harness.Output, error) {
	d, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	n := cmp.Or(in.N, svgd.DefaultN)
	s := c.Settings
	s.N, s.Workers, s.RecordEvery = n, in.Threads, max(1, c.RecordEvery)
	rng := rand.New(in.Src)
	rec := in.Recorder
	var info map[string]any
	var m *MAP
	var start particle.Start
	switch c.InitFrom {
	case "laplace":
		if start.Particles, rec, info, m, err = laplaceStart(ctx, in.Env, in.Problem, rec, n, rng); err != nil {
			return harness.Output{}, err
		}
	case "trained":
		tr, err := newTrained(d, in.Env.Cell.Split, c.TrainConfig, "init")
		if err != nil {
			return harness.Output{}, err
		}
		net, err := tr.net(ctx, in.Env, 0)
		if err != nil {
			return harness.Output{}, err
		}
		start.Particles = aroundTrained(net.result(), n, cmp.Or(c.InitNoise, DefaultInitNoise), rng)
		rec = chargeRecorder{rec: rec, seconds: net.Seconds, grads: net.GradEvals}
		info = net.summary()
	default:
		if start.Particles, err = d.Start(c.InitFrom, n, rng); err != nil {
			return harness.Output{}, err
		}
	}
	set, err := sampler.Set(svgd.Run(ctx, in.Problem.Target, start, s, in.Src, rec))
	var method any
	if info != nil {
		method = info
	}
	return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, method, m)}, err
}

// SGLDConfig is the settings table of an sgld method: sgld.Settings,
// decoded straight from the file, and the wiring's choice of start. The
// cell's particle count N, when given, keeps the last ⌈N/chains⌉ draws of
// every chain.
type SGLDConfig struct {
	sgld.Settings
	// InitFrom ("init") is "prior" (default), "map" (the chains start at
	// the MAP plus N(0, init_scale²) noise, the MAP's cost charged to the run)
	// or "laplace" (each chain at its own draw of the Laplace
	// approximation N(x̂, (−∇²log p(x̂))⁻¹) at the cell's MAP x̂, SVGD's
	// init = "laplace", the MAP's and the fit's costs charged; it takes no
	// init_scale, and whiten = "laplace" starts its chains at such draws
	// already).
	InitFrom string `toml:"init" json:"init,omitempty"`
}

// Validate checks the package's settings and the wiring's own.
func (c SGLDConfig) Validate() error {
	s := c.Settings
	if err := s.Validate(); err != nil {
		return err
	}
	if err := oneOf("init", c.InitFrom, "", "prior", "map", "laplace"); err != nil {
		return err
	}
	if c.InitFrom == "laplace" && s.Whiten != sgld.WhitenNone {
		w := fmt.Sprintf("%q", s.Whiten)
		if s.Whiten == "" {
			w = fmt.Sprintf("%q (the default)", sgld.WhitenLaplace)
		}
		return fieldErr("init", `"laplace" needs whiten = %q: whiten = %s starts the chains at Laplace draws already`, sgld.WhitenNone, w)
	}
	if c.InitFrom == "laplace" && c.InitScale != 0 {
		return fieldErr("init_scale", `applies to init = "map", not "laplace" (the chains start at draws of the Laplace fit)`)
	}
	return nil
}

func runSGLD(ctx context.Context, in harness.Input[SGLDConfig]) (harness.Output, error) {
	d, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := c.Settings
	s.Workers = in.Threads
	chains := cmp.Or(c.Chains, sgld.DefaultChains)
	if in.N > 0 {
		s.Keep = (in.N + chains - 1) / chains
	}
	rec := in.Recorder
	var m *MAP
	var start particle.Start
	if c.InitFrom == "map" {
		if m, rec, err = startMAP(ctx, in.Env, in.Problem, rec, true); err != nil {
			return harness.Output{}, err
		}
		start.X0 = m.X
	}
	t, info := in.Problem.Target, map[string]any{"chains": chains, "keep": s.Keep}
	if c.InitFrom == "laplace" {
		var l *laplace.Approx
		var li map[string]any
		if l, rec, li, m, err = laplaceFit(ctx, in.Env, in.Problem, rec); err != nil {
			return harness.Output{}, err
		}
		t, info["laplace"] = laplaceChains(t, l), li["laplace"]
	}
	set, err := sampler.Set(sgld.Run(ctx, t, start, s, in.Src, rec))
	return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, info, m)}, err
}

// Register adds this wiring's datasets, metrics and method kinds to r.
// Nothing is registered by importing the package: pkg/repro's NewRegistry
// calls Register on a new registry.
func Register(r *harness.Registry) {
	for _, g := range gaussSpecs {
		r.RegisterDataset(g.name, gaussDataset(g))
	}
	registerData(r)
	registerMetrics(r)
	registerPosteriorDB(r)
	// svgd 2: the direction's products, distances and Gram exponentials and
	// the logistic minibatch scores come from pkg/dense's kernels
	// (fused multiply-adds, a vectorised exponential), which move the last
	// bits of every iteration. svgd 3: full-batch SVGD on a network reads
	// the BNN's full-data gradient, now summed over 256-row chunks in order
	// (the same bits for any worker count, other bits than before).
	harness.RegisterMethod(r, KindSVGD, "3", runSVGD)
	harness.RegisterMethod(r, KindSVGDAnchor, "1", runSVGDAnchor)
	harness.RegisterMethod(r, KindOLS, "1", runBaseline(KindOLS))
	harness.RegisterMethod(r, KindConstant, "1", runBaseline(KindConstant))
	harness.RegisterMethod(r, KindSGLD, "1", runSGLD)
	harness.RegisterMethod(r, KindSP, "1", runSP)
	harness.RegisterMethod(r, KindStart, "1", runStart)
	// mmdfw 4: the Laplace fit's full-data gradients come from the
	// logistic model's new LogProbGradBatch (equal to LogProbGrad bit for
	// bit, no longer a gonum product), the LMO's RBF distances are summed
	// in 16 chains, and RFF Gram rows and directions come from cached
	// features and one product: each moves the last bits.
	// mmdfw 5: the Laplace fit of scale "laplace" uses the logistic
	// model's exact Hessian (charged N·d/2 gradient evaluations instead
	// of 2d·N) and the first particle's snapshot is reported before the
	// fit: cells with that scale change their Laplace scales, times and
	// gradient counts.
	harness.RegisterMethod(r, KindMMDFW, "5", runMMDFW)
	// hmc 2: the dense metric carries M⁻¹p along the trajectory (one d×d
	// product per leapfrog step instead of two), which changes its draws.
	harness.RegisterMethod(r, KindHMC, "2", runHMC)
	// One name per concept across the kinds: the step is step_size, the
	// start's spread init_scale, HMC's draws per chain draws_per_chain.
	r.RenamedKey(KindSVGD, "step", "step_size")
	r.RenamedKey(KindSVGDAnchor, "step", "step_size")
	r.RenamedKey(KindMMDFW, "svgd_step", "svgd_step_size")
	r.RenamedKey(KindSGLD, "jitter", "init_scale")
	r.RenamedKey(KindHMC, "draws", "draws_per_chain")
	registerMemory(r)
	registerSteps(r)
	registerTraits(r)
}
