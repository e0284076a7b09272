package experiment

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// HMCConfig is the settings table of the hmc reference kind: hmc.Settings,
// decoded straight from the file, and the wiring's choice of start. The
// reference's particle count N, when given and draws_per_chain is not, sets the kept
// draws per chain to ⌈N/chains⌉.
type HMCConfig struct {
	hmc.Settings
	// InitFrom ("init") is "map" (chains start around the MAP), "model"
	// (around one model.BNN.Init draw), "prior" (independent prior draws)
	// or "" (model for a BNN, map otherwise); init_scale is the jitter
	// around the point.
	InitFrom string `toml:"init" json:"init,omitempty"`
}

// Validate checks the package's settings and the wiring's own.
func (c HMCConfig) Validate() error {
	if err := c.Settings.Validate(); err != nil {
		return err
	}
	return oneOf("init", c.InitFrom, "", "map", "model", "prior")
}

// MarshalJSON encodes hmc.Settings with the init selector where the
// start point stood when it was a field of hmc.Settings (after step_size, before init_scale): the
// order in which the cache keys of the existing references were computed.
func (c HMCConfig) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(c.Settings)
	if err != nil || c.InitFrom == "" {
		return b, err
	}
	return insertKey(b, jsonNamesAfter(reflect.TypeOf(c.Settings), "StepSize"), "init", c.InitFrom)
}

// jsonNamesAfter returns the JSON names of the fields of struct type t that
// follow the field named field.
func jsonNamesAfter(t reflect.Type, field string) map[string]bool {
	names := map[string]bool{}
	after := false
	for i := range t.NumField() {
		f := t.Field(i)
		if after {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names[name] = true
			}
		}
		after = after || f.Name == field
	}
	return names
}

// insertKey returns the JSON object obj with key: value inserted before its
// first key in before (at the end when there is none).
func insertKey(obj []byte, before map[string]bool, key string, value any) ([]byte, error) {
	var pairs []struct {
		k string
		v json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	for dec.More() {
		tk, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		pairs = append(pairs, struct {
			k string
			v json.RawMessage
		}{tk.(string), v})
	}
	vb, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	kb, _ := json.Marshal(key)
	var out bytes.Buffer
	out.WriteByte('{')
	done := false
	put := func(k, v []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	for _, p := range pairs {
		if !done && before[p.k] {
			put(kb, vb)
			done = true
		}
		pk, _ := json.Marshal(p.k)
		put(pk, p.v)
	}
	if !done {
		put(kb, vb)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
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
	d, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := c.Settings
	chains := cmp.Or(c.Chains, hmc.DefaultChains)
	if s.DrawsPerChain == 0 && in.N > 0 {
		s.DrawsPerChain = (in.N + chains - 1) / chains
	}
	init := c.InitFrom
	if init == "" {
		init = "map"
		if d.OwnStart() {
			init = "model"
		}
	}
	var m *MAP
	var start particle.Start // the zero start: prior draws
	switch init {
	case "map":
		if m, _, err = startMAP(ctx, in.Env, in.Problem, in.Recorder, false); err != nil {
			return harness.Output{}, err
		}
		start.X0 = m.X
	case "model":
		if !d.OwnStart() {
			return harness.Output{}, fieldErr("init", `"model" needs a BNN dataset`)
		}
		x0, err := d.Start("model", 1, rand.New(in.Src))
		if err != nil {
			return harness.Output{}, err
		}
		start.X0 = x0.RawRowView(0)
	}
	// A reference computed as an artefact keeps a checkpoint beside it, so
	// that an interrupted run resumes, and shows its chains' progress.
	var ckPath string
	if key, path, ok := harness.ArtefactOf(ctx); ok {
		ckPath = harness.CheckpointPath(path)
		ck := hmcCheckpoint
		ck.Path = ckPath
		// A checkpoint that cannot be written (a full disk) costs only
		// the progress since the last one: the reference goes on.
		ck.Failed = func(err error) {
			in.Env.Log().Warn("checkpoint not written; the reference goes on and tries again at the next one", "reference", key, "error", err)
		}
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
	hmcRes, err := hmc.Run(ctx, in.Problem.Target, start, s, in.Src, in.Recorder)
	res, _ := hmcRes.Detail.(*hmc.Result)
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
		hmcRes, err = hmc.Run(ctx, in.Problem.Target, start, s, in.Src, in.Recorder)
		res, _ = hmcRes.Detail.(*hmc.Result)
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
		"dataset_label": d.About().Label,
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
