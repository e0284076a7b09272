package sp_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sp"
)

// The zero settings with a start point (given as the MAP) answer the known
// targets of samplertest within their Monte Carlo tolerances.
func TestKnown(t *testing.T) {
	samplertest.Known(t, samplertest.Method{
		Zero: func(x0 []float64) sampler.Sampler { return sp.Settings{MAP: x0} },
	}, samplertest.KnownOptions{Targets: []string{"gauss5"}})
}
