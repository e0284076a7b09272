package sgld

import (
	"context"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Run is Run(ctx, t, start, s, src, rec): Settings is a sampler.Sampler.
func (s Settings) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	return sampler.Set(Run(ctx, t, start, s, src, rec))
}
