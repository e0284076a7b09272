package svgd_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// The zero settings with a start point answer the known targets of
// samplertest within their Monte Carlo tolerances, or say that they
// cannot: a flagged set (mix1's missed mode, the funnel's ceiling and
// collapse) or an error (gamma's support). Every target listed passes or
// is flagged at the suite's seed and at seeds 1–4 (go run
// ./internal/probe/knowntable -methods svgd -seed N); all of them are.
func TestKnown(t *testing.T) {
	samplertest.Known(t, samplertest.Method{
		Zero: svgd.Settings{},
	}, samplertest.KnownOptions{Targets: []string{"gauss5", "gauss50", "banana", "mix1", "mix2", "funnel", "gamma", "student5"}})
}
