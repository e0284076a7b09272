package mmdfw_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
)

// The zero settings with a start point answer the known targets of
// samplertest within their Monte Carlo tolerances, or say that they
// cannot (on the funnel, an error).
func TestKnown(t *testing.T) {
	samplertest.Known(t, samplertest.Method{
		Zero: func(x0 []float64) sampler.Sampler { return mmdfw.Settings{X0: x0} },
	}, samplertest.KnownOptions{Targets: []string{"gauss5", "banana", "funnel"}})
}
