package sgld_test

import (
	"context"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sgld"
)

// The zero settings with a start point run on every known target of
// samplertest without an error (where the target admits none) and return
// finite draws inside the support.
func TestKnownRuns(t *testing.T) {
	m := samplertest.Method{Zero: func(x0 []float64) sampler.Sampler { return sgld.Settings{Init: x0} }}
	for _, k := range samplertest.KnownTargets() {
		r := samplertest.RunKnown(context.Background(), m, k, 0)
		if r.Err != nil {
			if !k.ErrorOK {
				t.Errorf("%s: %v", k.Name, r.Err)
			}
			continue
		}
		switch {
		case r.Checks == nil:
			t.Errorf("%s: %s", k.Name, r.Why)
		case r.Outside > 0:
			t.Errorf("%s: %d of %d draws outside the support", k.Name, r.Outside, r.Set.Len())
		}
	}
}
