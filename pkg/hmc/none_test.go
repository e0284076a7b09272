package hmc

import (
	"testing"
	"time"

	"github.com/mmdfw/mmdfw/pkg/setting"
)

// TestNoneValues: NoWarmup, NoJitter and NoInterval are the only negative
// values of their fields; any other is a *setting.Error naming the field.
func TestNoneValues(t *testing.T) {
	ok := Settings{Warmup: NoWarmup, Jitter: NoJitter, Checkpoint: &Checkpoint{Interval: NoInterval}}
	if err := ok.Validate(); err != nil {
		t.Errorf("NoWarmup, NoJitter, NoInterval: %v", err)
	}
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{Warmup: -2}, "warmup"},
		{Settings{Jitter: -0.5}, "jitter"},
		{Settings{Checkpoint: &Checkpoint{Interval: -time.Second}}, "checkpoint.interval"},
	} {
		e, ok := setting.As(c.s.Validate())
		if !ok || e.Field != c.field {
			t.Errorf("%+v: error %v, want one naming %s", c.s, e, c.field)
		}
	}
}
