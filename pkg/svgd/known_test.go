package svgd_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// The zero settings with a start point answer the known targets of
// samplertest within their Monte Carlo tolerances.
func TestKnown(t *testing.T) {
	samplertest.Known(t, samplertest.Method{
		Zero: func(x0 []float64) sampler.Sampler { return svgd.Settings{X0: x0} },
	}, samplertest.KnownOptions{Targets: []string{"mix2"}})
}
