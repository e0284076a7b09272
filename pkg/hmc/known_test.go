package hmc_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
)

// The zero settings with a start point answer the known targets of
// samplertest within their Monte Carlo tolerances.
func TestKnown(t *testing.T) {
	samplertest.Known(t, samplertest.Method{
		Zero: func(x0 []float64) sampler.Sampler { return hmc.Settings{Init: x0} },
	}, samplertest.KnownOptions{Targets: []string{"gauss5", "gauss50", "banana", "mix2", "gamma", "student5"}})
}
