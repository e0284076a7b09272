package sp

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/setting"
)

// TestNoneValues: NoRefinement, NoBox and NoPriorDraws are the only
// negative values of their fields; any other is a *setting.Error naming
// the field.
func TestNoneValues(t *testing.T) {
	if err := (Settings{NelderMeadEvals: NoRefinement, Box: NoBox, PriorFraction: NoPriorDraws}).Validate(); err != nil {
		t.Errorf("NoRefinement, NoBox, NoPriorDraws: %v", err)
	}
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{NelderMeadEvals: -5}, "nelder_mead_evals"},
		{Settings{Box: -0.5}, "box"},
		{Settings{PriorFraction: -0.1}, "prior_fraction"},
	} {
		e, ok := setting.As(c.s.Validate())
		if !ok || e.Field != c.field {
			t.Errorf("%+v: error %v, want one naming %s", c.s, e, c.field)
		}
	}
}
