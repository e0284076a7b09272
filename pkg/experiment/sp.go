package experiment

import (
	"context"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sp"
)

// SPConfig is the settings table of an sp method: sp.Settings, decoded
// straight from the file, and the wiring's choice of start. The cell's
// particle count is the number of points.
type SPConfig struct {
	sp.Settings
	// MAPStart ("map") starts the first candidate pool at the MAP (its cost
	// charged to the run), as MMD-FW starts; false is the original's prior
	// start.
	MAPStart bool `toml:"map" json:"map,omitempty"`
}

// Validate checks the package's settings.
func (c SPConfig) Validate() error { return c.Settings.Validate() }

func runSP(ctx context.Context, in harness.Input[SPConfig]) (harness.Output, error) {
	d, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := c.Settings
	s.N = in.N
	rec := in.Recorder
	var m *MAP
	var start particle.Start
	if c.MAPStart {
		if m, rec, err = startMAP(ctx, in.Env, in.Problem, rec, true); err != nil {
			return harness.Output{}, err
		}
		start.X0 = m.X
	}
	spRes, err := sp.Run(ctx, in.Problem.Target, start, s, in.Src, rec)
	set := spRes.Set
	cost, _ := spRes.Detail.(sp.Cost)
	ms := map[string]any{"score_calls": cost.ScoreCalls}
	if n := set.Len(); n > 0 && len(cost.Objective) >= n {
		ms["ksd2_imq"] = finite(cost.KSD2(n))
	}
	return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, ms, m)}, err
}
