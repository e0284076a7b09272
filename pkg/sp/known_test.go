package sp_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sp"
)

// The zero settings with a start point (given as the MAP) answer the known
// targets of samplertest within their Monte Carlo tolerances, or say that
// they cannot: a flagged set (the mixtures' missed modes, the ceilings of
// the funnel and student5, the banana's "coverage") or an error (gamma's
// support). Every target passes or is flagged at the suite's seed and at
// seeds 1–4 (go run ./internal/probe/knowntable -methods sp -seed N). gauss50 takes one to two
// minutes (some 3·10⁶ score calls of the Nelder–Mead refinement in 50
// dimensions), so it runs in make test-long only (MMDFW_LONG=1), and not
// under the race detector, which slows that serial arithmetic many times
// and checks nothing in it that gauss5 does not reach.
func TestKnown(t *testing.T) {
	targets := []string{"gauss5", "gauss50", "banana", "mix1", "mix2", "funnel", "gamma", "student5"}
	switch {
	case race.Enabled:
		targets = append(targets[:1], targets[2:]...)
		t.Log("gauss50 runs in the plain build only (make test-long): its serial refinement takes many minutes under -race")
	case !long():
		targets = append(targets[:1], targets[2:]...)
		t.Run("gauss50", func(t *testing.T) {
			skipUnlessLong(t, "Stein Points' zero settings on gauss50 (one to two minutes)")
		})
	}
	samplertest.Known(t, samplertest.Method{
		Zero: sp.Settings{},
	}, samplertest.KnownOptions{Targets: targets})
}
