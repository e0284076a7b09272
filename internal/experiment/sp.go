package experiment

import (
	"context"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/sp"
)

// SPConfig is the settings table of an sp method (pkg/sp). Zero fields take
// pkg/sp's defaults; the cell's particle count is the number of points.
type SPConfig struct {
	// Candidates, NelderMeadEvals, Perturb, Scale and PriorFraction drive
	// the candidate search, and C and Beta the IMQ base kernel
	// (c² + ‖x−y‖²)^β: sp.Settings' fields, with its defaults.
	Candidates      int     `toml:"candidates" json:"candidates,omitempty"`
	NelderMeadEvals int     `toml:"nelder_mead_evals" json:"nelder_mead_evals,omitempty"`
	Perturb         float64 `toml:"perturb" json:"perturb,omitempty"`
	Scale           float64 `toml:"scale" json:"scale,omitempty"`
	PriorFraction   float64 `toml:"prior_fraction" json:"prior_fraction,omitempty"`
	C               float64 `toml:"c" json:"c,omitempty"`
	Beta            float64 `toml:"beta" json:"beta,omitempty"`
	// MAP starts the first candidate pool at the MAP (its cost charged to
	// the run), as MMD-FW starts; false is the original's prior start.
	MAP bool `toml:"map" json:"map,omitempty"`
}

// Validate checks the ranges.
func (c SPConfig) Validate() error {
	switch {
	case c.Candidates < 0:
		return fieldErr("candidates", "must not be negative")
	case c.Perturb < 0:
		return fieldErr("perturb", "must not be negative")
	case c.Scale < 0:
		return fieldErr("scale", "must not be negative")
	case c.C < 0:
		return fieldErr("c", "must not be negative")
	case c.Beta != 0 && (c.Beta <= -1 || c.Beta >= 0):
		return fieldErr("beta", "%v is outside (−1, 0)", c.Beta)
	}
	return nil
}

func runSP(ctx context.Context, in harness.Input[SPConfig]) (harness.Output, error) {
	d, err := dataOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	c := in.Settings
	s := sp.Settings{
		Points: in.N, Candidates: c.Candidates, NelderMeadEvals: c.NelderMeadEvals, Perturb: c.Perturb,
		Scale: c.Scale, PriorFraction: c.PriorFraction, C: c.C, Beta: c.Beta,
	}
	rec := in.Recorder
	var m *MAP
	if c.MAP {
		if m, rec, err = startMAP(ctx, in.Env, in.Problem, rec, true); err != nil {
			return harness.Output{}, err
		}
		s.MAP = m.X
	}
	set, cost, err := sp.RunWithCost(ctx, in.Problem.Target, s, in.Src, rec)
	ms := map[string]any{"score_calls": cost.ScoreCalls}
	if n := set.Len(); n > 0 && len(cost.Objective) >= n {
		ms["ksd2_imq"] = finite(cost.KSD2(n))
	}
	return harness.Output{Set: set, Summary: summary(d, ms, m)}, err
}
