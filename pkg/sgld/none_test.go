package sgld

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/setting"
)

// TestNoneValues: NoBurnIn and NoInitScale are the only negative values of
// their fields; any other is a *setting.Error naming the field.
func TestNoneValues(t *testing.T) {
	if err := (Settings{BurnIn: NoBurnIn, InitScale: NoInitScale}).Validate(); err != nil {
		t.Errorf("NoBurnIn, NoInitScale: %v", err)
	}
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{BurnIn: -2}, "burn_in"},
		{Settings{InitScale: -0.5}, "init_scale"},
		{Settings{InitScale: -2}, "init_scale"},
	} {
		e, ok := setting.As(c.s.Validate())
		if !ok || e.Field != c.field {
			t.Errorf("%+v: error %v, want one naming %s", c.s, e, c.field)
		}
	}
}
