package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// KindStart is the kind of the start-only baselines: the starts that the
// particle methods are offered, reported as answers of their own, so that
// every method can be credited only with what it adds to its start. It
// evaluates the same metrics through the same recorder as the other kinds,
// so budgets, development-row snapshot selection and costs apply
// unchanged.
const KindStart = "start"

// DefaultEnsemble is the number of networks of start = "ensemble" and of
// draws of start = "laplace" when the cell gives no particle count.
const DefaultEnsemble = 5

// StartConfig is the settings table of a start method:
//
//   - start = "trained": the network of the "trained" start alone (N = 1):
//     one model.BNN.Init draw trained by optim.Train on the training rows
//     less a seeded fifth, early-stopped on that fifth (the training of
//     MMD-FW's start = "trained" and SVGD's init = "trained"); its cost is
//     the training's.
//   - start = "ensemble": a deep ensemble: networks trained one after
//     another, each from an independent model.BNN.Init draw with the same
//     early-stopped training, equal weights 1/k; a snapshot after each
//     network, at the summed cost of the trainings. It stops at the cell's
//     particle count N (default DefaultEnsemble) or when the budget does.
//   - start = "map": the cell's shared MAP alone (N = 1), its L-BFGS cost
//     charged. On a BNN that MAP starts from the origin, a stationary
//     point of the network (docs/DECISIONS.md).
//   - start = "laplace": N draws (default DefaultEnsemble) of the Laplace
//     approximation N(x̂, (−∇²log p(x̂))⁻¹) at the cell's MAP x̂, equal
//     weights, the MAP and the fit charged.
//   - start = "prior": N draws (default DefaultEnsemble) of the prior,
//     equal weights, at no gradient cost: SVGD's init = "prior", SGLD's
//     chains' and MMD-FW's start = "prior" starting points, alone.
//
// The train_* keys (TrainConfig) apply to "trained" and "ensemble".
type StartConfig struct {
	// Start selects the baseline (above); it has no default.
	Start string `toml:"start" json:"start,omitempty"`
	// TrainConfig holds the train_* settings of the training.
	TrainConfig
}

// Validate checks the selector and the train_* settings.
func (c StartConfig) Validate() error {
	if c.Start == "" {
		return fieldErr("start", `is required: "trained", "ensemble", "map", "laplace" or "prior"`)
	}
	if err := oneOf("start", c.Start, "trained", "ensemble", "map", "laplace", "prior"); err != nil {
		return err
	}
	return c.TrainConfig.validate(c.Start == "trained" || c.Start == "ensemble", "start", `"trained" or "ensemble"`)
}

func runStart(ctx context.Context, in harness.Input[StartConfig]) (harness.Output, error) {
	d, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	rng := rand.New(in.Src)
	var sw particle.Stopwatch
	sw.Start()
	switch c.Start {
	case "trained", "ensemble":
		tr, err := newTrained(d, in.Env.Cell.Split, c.TrainConfig, "start")
		if err != nil {
			return harness.Output{}, err
		}
		n := 1
		if c.Start == "ensemble" {
			n = cmp.Or(in.N, DefaultEnsemble)
		}
		return runEnsemble(ctx, in, d, tr, n, &sw)
	case "map":
		m, rec, err := startMAP(ctx, in.Env, in.Problem, in.Recorder, true)
		if err != nil {
			return harness.Output{}, err
		}
		set := particle.Set{X: mat.NewDense(1, len(m.X), append([]float64(nil), m.X...)), W: []float64{1}}
		if _, err := particle.Report(rec, &sw, particle.Snapshot{Step: 1, X: set.X, W: set.W}); err != nil {
			return harness.Output{}, err
		}
		return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, map[string]any{"start": c.Start}, m)}, nil
	case "laplace":
		n := cmp.Or(in.N, DefaultEnsemble)
		X, rec, info, m, err := laplaceStart(ctx, in.Env, in.Problem, in.Recorder, n, rng)
		if err != nil {
			return harness.Output{}, err
		}
		if err := particle.CheckFinite("start", 1, X.RawMatrix().Data); err != nil {
			return harness.Output{}, err
		}
		set := particle.Set{X: X, W: particle.Equal(n)}
		if _, err := particle.Report(rec, &sw, particle.Snapshot{Step: 1, X: set.X, W: set.W}); err != nil {
			return harness.Output{}, err
		}
		info["start"] = c.Start
		return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, info, m)}, nil
	case "prior":
		n := cmp.Or(in.N, DefaultEnsemble)
		ps, ok := in.Problem.Target.(target.PriorSampler)
		if !ok {
			return harness.Output{}, fieldErr("start", `"prior" needs a target with prior draws, not %s`, d.About().Name)
		}
		X := mat.NewDense(n, in.Problem.Target.Dim(), nil)
		for i := 0; i < n; i++ {
			ps.SamplePrior(rng, X.RawRowView(i))
		}
		if err := particle.CheckFinite("start", 1, X.RawMatrix().Data); err != nil {
			return harness.Output{}, err
		}
		set := particle.Set{X: X, W: particle.Equal(n)}
		if _, err := particle.Report(in.Recorder, &sw, particle.Snapshot{Step: 1, X: set.X, W: set.W}); err != nil {
			return harness.Output{}, err
		}
		return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, map[string]any{"start": c.Start}, nil)}, nil
	}
	return harness.Output{}, fieldErr("start", "%q is not a start", c.Start)
}

// runEnsemble reads up to n networks of the shared trained start (members
// 0, 1, …, each an artefact computed once per dataset and split, see
// trained.net), reporting after each the ensemble so far with equal
// weights, charged the summed recorded cost of its networks' trainings
// (the stopwatch sw is paused while a network is read or trained, so that
// every cell is charged a network's training once, at the time it was
// recorded).
func runEnsemble(ctx context.Context, in harness.Input[StartConfig], d Model, tr *trained, n int, sw *particle.Stopwatch) (harness.Output, error) {
	dim := tr.target.Dim()
	rows := make([]float64, 0, n*dim)
	var grads int64
	var secs float64
	nets := make([]any, 0, n)
	var set particle.Set
	for k := 1; k <= n; k++ {
		if err := ctx.Err(); err != nil {
			break
		}
		sw.Stop()
		net, err := tr.net(ctx, in.Env, k-1)
		sw.Start()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return harness.Output{}, fmt.Errorf("start: network %d: %w", k, err)
		}
		if err := particle.CheckFinite("start", k, net.X); err != nil {
			return harness.Output{}, err
		}
		grads += net.GradEvals
		secs += net.Seconds
		nets = append(nets, net.summary())
		rows = append(rows, net.X...)
		set = particle.Set{X: mat.NewDense(k, dim, rows[:k*dim:k*dim]), W: particle.Equal(k)}
		rec := chargeRecorder{rec: in.Recorder, seconds: secs, grads: grads}
		stop, err := particle.Report(rec, sw, particle.Snapshot{Step: k, X: set.X, W: set.W})
		if err != nil {
			return harness.Output{}, err
		}
		if stop {
			break
		}
	}
	ms := map[string]any{"start": in.Settings.Start, "networks": len(nets), "grad_evals": grads}
	if len(nets) == 1 {
		for k, v := range nets[0].(map[string]any) {
			ms[k] = v
		}
	} else {
		ms["trainings"] = nets
	}
	return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, ms, nil)}, ctx.Err()
}

// SettingsVersion is the version of the shared trained start for the
// baselines that read it ("trained", "ensemble"), "" for the others (see
// harness.SettingsVersioner).
func (c StartConfig) SettingsVersion() string {
	if c.Start == "trained" || c.Start == "ensemble" {
		return trainedStartVersion
	}
	return ""
}
