package svgd

import (
	"context"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Run is Run(ctx, t, s, src, rec): Settings is a sampler.Sampler.
func (s Settings) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	if start.X0 != nil {
		s.X0 = start.X0
	}
	if start.Particles != nil {
		s.Init = start.Particles
	}
	return Run(ctx, t, s, src, rec)
}
