package laplace

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// FitFromStart is FitAtMAP from the start of a method's run, the step that
// every method running in whitened coordinates takes first. The MAP search
// starts at a copy of x0 when x0 is not nil, else at a draw of t's prior
// from rng when t is a target.PriorSampler, else at the origin. An x0
// whose length is not t.Dim() and a start point that is not finite are
// errors naming the method who ("svgd", …), returned before any gradient
// evaluation. rng is read for the prior draw only (and by ms and fs when
// their Src is rng); x0 is not modified. When FitAtMAP fails the Scaled
// holds the evaluations spent and the error is ctx.Err() if ctx is done,
// else FitAtMAP's wrapped as "who: the target's scales (MAP and Laplace
// fit): …".
func FitFromStart(ctx context.Context, t target.Target, who string, x0 []float64, rng *rand.Rand, ms MAPSettings, fs FitSettings) (Scaled, error) {
	d := t.Dim()
	start := make([]float64, d)
	switch ps, ok := t.(target.PriorSampler); {
	case x0 != nil:
		if len(x0) != d {
			return Scaled{}, fmt.Errorf("%s: X0 has length %d, target dimension is %d", who, len(x0), d)
		}
		copy(start, x0)
	case ok:
		ps.SamplePrior(rng, start)
	}
	if err := particle.CheckFinite(who+": MAP search start", 0, start); err != nil {
		return Scaled{}, err
	}
	sc, err := FitAtMAP(ctx, t, start, ms, fs)
	if err != nil {
		if e := ctx.Err(); e != nil {
			return sc, e
		}
		return sc, fmt.Errorf("%s: the target's scales (MAP and Laplace fit): %w", who, err)
	}
	return sc, nil
}
