package experiment

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
)

// The pool sampler settings are checked: a known sampler, pilot settings
// only for HMC and valid, and either only where a pool is drawn.
func TestMMDFWConfigPoolSampler(t *testing.T) {
	for _, c := range []struct {
		cfg  MMDFWConfig
		want string // "" for valid
	}{
		{MMDFWConfig{PoolSampler: "hmc", PoolHMC: &hmc.Settings{Warmup: 500}, Settings: mmdfw.Settings{Weights: mmdfw.BQ}}, ""},
		{MMDFWConfig{PoolSampler: "sgld", Settings: mmdfw.Settings{Z: mmdfw.ZPool}}, ""},
		{MMDFWConfig{PoolSampler: "nuts", Settings: mmdfw.Settings{Weights: mmdfw.BQ}}, "pool_sampler"},
		{MMDFWConfig{PoolHMC: &hmc.Settings{Warmup: 500}, Settings: mmdfw.Settings{Weights: mmdfw.BQ}}, "pool_hmc"},
		{MMDFWConfig{PoolSampler: "hmc", PoolHMC: &hmc.Settings{Warmup: -7}, Settings: mmdfw.Settings{Weights: mmdfw.BQ}}, "pool_hmc"},
		{MMDFWConfig{PoolSampler: "hmc", Settings: mmdfw.Settings{Weights: mmdfw.Equal}}, "pool_sampler"},
	} {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v, want valid", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("pool_sampler %q pool_hmc %+v: error %v, want one naming %s", c.cfg.PoolSampler, c.cfg.PoolHMC, err, c.want)
		}
	}
}
