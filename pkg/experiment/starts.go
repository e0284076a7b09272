package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/setting"
)

// TrainConfig holds the keys of the "trained" start shared by the kinds
// that offer it (mmdfw start = "trained", svgd init = "trained", start
// start = "trained" and "ensemble"): the optim.Settings of its training
// (Adam; zero: optim's defaults, 2,000 steps of 0.01 on batches of 100,
// validation every 100 steps, patience 5).
type TrainConfig struct {
	TrainSteps     int     `toml:"train_steps" json:"train_steps,omitempty"`
	TrainStep      float64 `toml:"train_step" json:"train_step,omitempty"`
	TrainBatch     int     `toml:"train_batch" json:"train_batch,omitempty"`
	TrainEvalEvery int     `toml:"train_eval_every" json:"train_eval_every,omitempty"`
	TrainPatience  int     `toml:"train_patience" json:"train_patience,omitempty"`
}

// validate checks the ranges and, when the start does not train (used
// false), that no key is set; key names the selector and want the values
// that train, as the error gives them.
func (c TrainConfig) validate(used bool, key, want string) error {
	if err := setting.NonNegative("train_steps", c.TrainSteps, "train_step", c.TrainStep,
		"train_batch", c.TrainBatch, "train_eval_every", c.TrainEvalEvery, "train_patience", c.TrainPatience); err != nil {
		return err
	}
	if !used && c != (TrainConfig{}) {
		return fieldErr(key, "train_* settings need %s = %s", key, want)
	}
	return nil
}

// trained is the training problem of the "trained" start on a BNN, the one
// mechanism behind every kind that offers it: the model on the method's
// training rows less a seeded fifth (TrainValidationFraction,
// trainRowsSeed, the dataset and the split), early-stopped by the RMSE on
// that fifth (original scale of y), from model.BNN.Init draws.
type trained struct {
	d *BNNData
	// target is the BNN on the rows the training sees.
	target *model.BNN
	// settings are the training's, Validate included.
	settings optim.Settings
}

// newTrained sets up the training of the "trained" start for the cell's
// dataset and split; key names the selector in the error of a dataset that
// is not a BNN's.
func newTrained(md Model, split int, c TrainConfig, key string) (*trained, error) {
	d := md.Network()
	if d == nil || d.XTrain == nil {
		return nil, fieldErr(key, `"trained" needs a BNN dataset, not %s`, md.About().Name)
	}
	n, _ := d.XTrain.Dims()
	out, err := ValidationRows(harness.Rows{Kind: harness.RowsValidation, Fraction: TrainValidationFraction, Seed: trainRowsSeed},
		d.Name, split, n)
	if err != nil {
		return nil, err
	}
	keep := make([]int, 0, n-len(out))
	for i, j := 0, 0; i < n; i++ {
		if j < len(out) && out[j] == i {
			j++
			continue
		}
		keep = append(keep, i)
	}
	Xtr, ytr := pickRows(d.XTrain, d.YTrain, keep)
	Xva, yva := pickRows(d.XTrain, d.YTrain, out)
	for i, v := range yva {
		yva[i] = v*d.YSD + d.YMean
	}
	m := model.NewBNN(Xtr, ytr, d.BNN.Hidden())
	// One goroutine: the validation RMSE that early-stops the training
	// must not depend on the cell's thread budget (-j), or neither would
	// the stopping step.
	m.A0, m.B0, m.Workers = d.BNN.A0, d.BNN.B0, 1
	one := []float64{1}
	return &trained{d: d, target: m, settings: optim.Settings{Steps: c.TrainSteps, Step: c.TrainStep, Batch: c.TrainBatch,
		EvalEvery: c.TrainEvalEvery, Patience: c.TrainPatience,
		Validate: func(x []float64) float64 {
			r, _ := m.Metrics(Xva, yva, mat.NewDense(1, len(x), x), one, d.YMean, d.YSD)
			return -r
		}}}, nil
}

// init returns a model.BNN.Init draw from rng, a network's starting point.
func (t *trained) init(rng *rand.Rand) []float64 {
	x0 := make([]float64, t.target.Dim())
	t.d.BNN.Init(rng, x0)
	return x0
}

// train trains one network from a model.BNN.Init draw of rng, its batches
// drawn from a stream split off rng, as mmdfw.FirstTrained does with the
// same draws (so that a seeded run of either gives the same network), and
// returns the training's outcome and its seconds.
func (t *trained) train(ctx context.Context, rng *rand.Rand) (optim.Result, float64, error) {
	start := time.Now()
	x0 := t.init(rng)
	r, err := optim.Train(ctx, t.target, x0, t.settings, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	sec := time.Since(start).Seconds()
	if err != nil {
		return r, sec, fmt.Errorf("training the network: %w", err)
	}
	return r, sec, nil
}

// startMMDFW starts MMD-FW at the shared network net: its first particle
// θ* (StartGiven) and the training's scales σ (Inputs.Scales, ScaleGiven),
// exactly what StartTrained computes from the same training.
func startMMDFW(s *mmdfw.Settings, start *particle.Start, in *mmdfw.Inputs, net *Net) {
	s.First, start.X0, in.Scales = mmdfw.FirstGiven, append([]float64(nil), net.X...), append([]float64(nil), net.Scales...)
}

// trainedScales returns the training's per-coordinate scales σ clamped to
// [mmdfw.TrainedScaleMin, mmdfw.TrainedScaleMax], as MMD-FW's candidates
// read them.
func trainedScales(r optim.Result) []float64 {
	sig := make([]float64, len(r.Scale))
	for j, v := range r.Scale {
		sig[j] = min(max(v, mmdfw.TrainedScaleMin), mmdfw.TrainedScaleMax)
	}
	return sig
}

// aroundTrained returns n rows x_i = θ* + noise·σ⊙ε_i, ε_i ~ N(0, I), with
// θ* = r.X and σ = trainedScales(r).
func aroundTrained(r optim.Result, n int, noise float64, rng *rand.Rand) *mat.Dense {
	sig := trainedScales(r)
	X := mat.NewDense(n, len(r.X), nil)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		for j, v := range r.X {
			row[j] = v + noise*sig[j]*rng.NormFloat64()
		}
	}
	return X
}
