package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/optim"
)

// trainedVersion names the shared trained-start artefact: bump it when a
// network it holds would change for the same data, split, member and
// train_* settings.
const trainedVersion = "1"

// trainedStartVersion is the part of the cache key of every cell that
// reads a shared trained network (MMD-FW start = "trained", SVGD init =
// "trained", the start baselines "trained" and "ensemble"): see
// harness.SettingsVersioner.
const trainedStartVersion = "shared-start-" + trainedVersion

// Net is a trained network of the "trained" start as its shared artefact
// holds it: computed once per (dataset, split, member, train_* settings),
// from a seed of its own, and read by every cell that starts there, so that
// two arms from "the trained network" start from the very same network and
// are charged the very same cost.
type Net struct {
	// Key is the artefact's key (not stored: the store knows it).
	Key string `json:"-"`
	// Member is the network's index: 0 is the network of start =
	// "trained" (MMD-FW's first particle, SVGD's centre, start-trained),
	// and member k the k+1-th network of a deep ensemble.
	Member int `json:"member"`
	// X is the trained network θ*; Scales its per-coordinate scales σ,
	// clamped to [mmdfw.TrainedScaleMin, mmdfw.TrainedScaleMax].
	X      []float64 `json:"x"`
	Scales []float64 `json:"scales"`
	// Steps, BestStep, ValidationRMSE and GradEvals describe the training
	// (optim.Result); Seconds is its wall-clock time when the artefact
	// was computed, the time every cell that reads it is charged.
	Steps          int     `json:"steps"`
	BestStep       int     `json:"best_step"`
	ValidationRMSE float64 `json:"validation_rmse"`
	GradEvals      int64   `json:"grad_evals"`
	Seconds        float64 `json:"seconds"`
}

// summary is the network's entries of a cell's summary.
func (n *Net) summary() map[string]any {
	return map[string]any{
		"train_steps": n.Steps, "train_best_step": n.BestStep, "train_validation_rmse": finite(n.ValidationRMSE),
		"train_grad_evals": n.GradEvals, "train_seconds": n.Seconds, "start_artefact": n.Key,
	}
}

// result returns the network as optim.Result (X and the clamped scales).
func (n *Net) result() optim.Result {
	return optim.Result{X: n.X, Scale: n.Scales, Steps: n.Steps, BestStep: n.BestStep, Score: -n.ValidationRMSE, GradEvals: n.GradEvals}
}

// netSeed returns the seed of member k of the trained start on dataset
// name, split split: a function of these alone, never of the cell, its
// method or its experiment's seed.
func netSeed(name string, split, k int) rand.Source {
	sum := sha256.Sum256(fmt.Appendf(nil, "trained start\x00%s\x00%d\x00%d", name, split, k))
	return rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16]))
}

// key returns the artefact key of member k: the dataset's bytes, the
// split, the member, the code and artefact versions and the training's
// settings.
func (t *trained) key(split, k int) string {
	s := t.settings
	return fmt.Sprintf("trained/%s/s%d/m%d-%s-%s-v%s-steps%d-step%g-batch%d-every%d-patience%d",
		t.d.Name, split, k, t.d.Key, harness.CodeVersion, trainedVersion, s.Steps, s.Step, s.Batch, s.EvalEvery, s.Patience)
}

// net returns member k of the trained start for the cell's dataset and
// split, training it (from a model.BNN.Init draw of netSeed) only when no
// cell has yet: the shared artefact.
func (t *trained) net(ctx context.Context, env *harness.Env, k int) (*Net, error) {
	split := env.Cell.Split
	key := t.key(split, k)
	b, err := env.Artefact(ctx, key, func(ctx context.Context) ([]byte, error) {
		r, sec, err := t.train(ctx, rand.New(netSeed(t.d.Name, split, k)))
		if err != nil {
			return nil, err
		}
		if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
			return nil, fmt.Errorf("training the network: validation RMSE %v", -r.Score)
		}
		n := Net{Member: k, X: r.X, Scales: trainedScales(r), Steps: r.Steps, BestStep: r.BestStep,
			ValidationRMSE: -r.Score, GradEvals: r.GradEvals, Seconds: sec}
		return json.Marshal(n)
	})
	if err != nil {
		return nil, fmt.Errorf("trained start (network %d): %w", k+1, err)
	}
	var n Net
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("trained start artefact %s: %w", key, err)
	}
	if d := t.target.Dim(); len(n.X) != d || len(n.Scales) != d {
		return nil, fmt.Errorf("trained start artefact %s: lengths %d and %d, want %d", key, len(n.X), len(n.Scales), d)
	}
	n.Key = key
	return &n, nil
}

// SettingsVersion is the version of the shared trained start for the
// cells of start = "trained", "" for the others (see
// harness.SettingsVersioner).
func (c MMDFWConfig) SettingsVersion() string {
	if c.Start == "trained" {
		return trainedStartVersion
	}
	return ""
}

// SettingsVersion is the version of the shared trained start for the
// cells of init = "trained", "" for the others (see
// harness.SettingsVersioner).
func (c SVGDConfig) SettingsVersion() string {
	if c.InitFrom == "trained" {
		return trainedStartVersion
	}
	return ""
}
