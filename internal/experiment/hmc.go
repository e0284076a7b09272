package experiment

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/hmc"
)

// HMCConfig is the settings table of the hmc reference kind (pkg/hmc). Zero
// fields take pkg/hmc's defaults. The reference's particle count N, when
// given, sets the kept draws per chain to ⌈N/chains⌉.
type HMCConfig struct {
	// Chains, Warmup, Draws (kept per chain), TargetAccept, IntegrationTime,
	// Steps, MaxSteps and StepSize are hmc.Settings' fields, with its
	// defaults.
	Chains          int     `toml:"chains" json:"chains,omitempty"`
	Warmup          int     `toml:"warmup" json:"warmup,omitempty"`
	Draws           int     `toml:"draws" json:"draws,omitempty"`
	TargetAccept    float64 `toml:"target_accept" json:"target_accept,omitempty"`
	IntegrationTime float64 `toml:"integration_time" json:"integration_time,omitempty"`
	Steps           int     `toml:"steps" json:"steps,omitempty"`
	MaxSteps        int     `toml:"max_steps" json:"max_steps,omitempty"`
	StepSize        float64 `toml:"step_size" json:"step_size,omitempty"`
	// Init is "map" (chains start around the MAP), "model" (around one
	// model.BNN.Init draw), "prior" (independent prior draws) or "" (model
	// for a BNN, map otherwise); InitScale is the jitter around the point.
	Init      string  `toml:"init" json:"init,omitempty"`
	InitScale float64 `toml:"init_scale" json:"init_scale,omitempty"`
	// MaxRhat and MinESS are the flagging thresholds (1.01 and 400).
	MaxRhat float64 `toml:"max_rhat" json:"max_rhat,omitempty"`
	MinESS  float64 `toml:"min_ess" json:"min_ess,omitempty"`
}

// Validate checks the ranges.
func (c HMCConfig) Validate() error {
	for _, f := range []struct {
		key string
		v   float64
	}{{"chains", float64(c.Chains)}, {"draws", float64(c.Draws)}, {"target_accept", c.TargetAccept},
		{"integration_time", c.IntegrationTime}, {"steps", float64(c.Steps)}, {"max_steps", float64(c.MaxSteps)},
		{"step_size", c.StepSize}, {"init_scale", c.InitScale}, {"max_rhat", c.MaxRhat}, {"min_ess", c.MinESS}} {
		if f.v < 0 {
			return fieldErr(f.key, "must not be negative")
		}
	}
	if c.TargetAccept >= 1 {
		return fieldErr("target_accept", "%v is not below 1", c.TargetAccept)
	}
	return oneOf("init", c.Init, "", "map", "model", "prior")
}

// HMCChain is one chain's diagnostics in the reference summary.
type HMCChain struct {
	AcceptRate        float64 `json:"accept_rate"`
	Divergences       int     `json:"divergences"`
	WarmupDivergences int     `json:"warmup_divergences"`
	StepSize          float64 `json:"step_size"`
	MeanSteps         float64 `json:"mean_steps"`
	GradCalls         int64   `json:"grad_calls"`
	// AdaptAccept, Warmup and Draws were added later: references cached
	// before lack them (zero when decoded).
	AdaptAccept float64 `json:"adapt_accept,omitempty"`
	Warmup      int     `json:"warmup,omitempty"`
	Draws       int     `json:"draws,omitempty"`
}

// hmcCheckpoint is how often a reference saves its state (Path aside).
var hmcCheckpoint = hmc.Checkpoint{Interval: 10 * time.Second}

func runHMC(ctx context.Context, in harness.Input[HMCConfig]) (harness.Output, error) {
	d, err := dataOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := hmc.Settings{
		Chains: c.Chains, Warmup: c.Warmup, Draws: c.Draws, TargetAccept: c.TargetAccept,
		IntegrationTime: c.IntegrationTime, Steps: c.Steps, MaxSteps: c.MaxSteps, StepSize: c.StepSize,
		InitScale: c.InitScale, MaxRhat: c.MaxRhat, MinESS: c.MinESS,
	}
	chains := c.Chains
	if chains == 0 {
		chains = 4
	}
	if s.Draws == 0 && in.N > 0 {
		s.Draws = (in.N + chains - 1) / chains
	}
	init := c.Init
	if init == "" {
		init = "map"
		if d.BNN != nil {
			init = "model"
		}
	}
	var m *MAP
	switch init {
	case "map":
		if m, _, err = startMAP(ctx, in.Env, in.Problem, in.Recorder, false); err != nil {
			return harness.Output{}, err
		}
		s.Init = m.X
	case "model":
		if d.BNN == nil {
			return harness.Output{}, fieldErr("init", `"model" needs a BNN dataset`)
		}
		s.Init = make([]float64, in.Problem.Target.Dim())
		d.BNN.Init(rand.New(in.Src), s.Init)
	}
	// A reference computed as an artefact keeps a checkpoint beside it, so
	// that an interrupted run resumes, and shows its chains' progress.
	var ckPath string
	if key, path, ok := harness.ArtefactOf(ctx); ok {
		ckPath = harness.CheckpointPath(path)
		ck := hmcCheckpoint
		ck.Path = ckPath
		s.Checkpoint = &ck
		mon := in.Env.ChainMonitor(key, chains)
		defer mon.Close()
		s.Progress = func(p hmc.ChainProgress) {
			mon.Update(harness.ChainStatus{
				Chain: p.Chain, Phase: p.Phase.String(), Iteration: p.Iteration, Total: p.Total,
				StepSize: p.StepSize, AcceptRate: p.AcceptRate, Divergences: p.Divergences,
				Done: p.Done, Remaining: p.Remaining,
			})
		}
	}
	pcg, _ := in.Src.(*rand.PCG)
	var saved []byte
	if pcg != nil {
		saved, _ = pcg.MarshalBinary()
	}
	res, err := hmc.Run(ctx, in.Problem.Target, s, in.Src, in.Recorder)
	if errors.Is(err, hmc.ErrCheckpointMismatch) && saved != nil {
		// Written under the same key by another version of the code: it
		// is never resumed, the reference starts again from the same
		// random state.
		in.Env.Log().Warn("discarding a checkpoint of another run", "path", ckPath, "reason", err)
		if rerr := os.Remove(ckPath); rerr != nil {
			return harness.Output{}, errors.Join(err, rerr)
		}
		if rerr := pcg.UnmarshalBinary(saved); rerr != nil {
			return harness.Output{}, errors.Join(err, rerr)
		}
		res, err = hmc.Run(ctx, in.Problem.Target, s, in.Src, in.Recorder)
	}
	if err != nil {
		return harness.Output{}, err
	}
	if res.ResumedAt > 0 {
		in.Env.Log().Info("reference resumed from its checkpoint", "path", ckPath, "iteration", res.ResumedAt)
	}
	sum := map[string]any{
		"kind": KindHMC, "draws": res.Set.Len(), "chains": len(res.Diagnostics), "init": init,
		"max_rhat": finite(res.MaxRhat), "min_ess": finite(res.MinESS),
		"flagged": res.Flagged, "reasons": res.Reasons,
		"seconds": res.Seconds, "grad_evals": res.GradEvals,
		"dataset_label": d.Label,
	}
	var ch []HMCChain
	for _, dg := range res.Diagnostics {
		if math.IsNaN(dg.AdaptAccept) { // no warm-up
			dg.AdaptAccept = 0
		}
		ch = append(ch, HMCChain{
			AcceptRate: dg.AcceptRate, Divergences: dg.Divergences, WarmupDivergences: dg.WarmupDivergences,
			StepSize: dg.StepSize, MeanSteps: dg.MeanSteps, GradCalls: dg.GradCalls,
			AdaptAccept: dg.AdaptAccept, Warmup: dg.Warmup, Draws: dg.Draws,
		})
	}
	sum["per_chain"] = ch
	if m != nil {
		sum["map_log_prob"] = m.LogProb
	}
	return harness.Output{Set: res.Set, Summary: sum}, nil
}
