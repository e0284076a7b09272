package mmdfw_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
)

// The zero settings with a start point answer the known targets of
// samplertest within their Monte Carlo tolerances, or say that they
// cannot: a flagged set (mix1's missed mode, the funnel's ceiling) or an
// error (gamma's support). Every target passes or is flagged at the
// suite's seed and at seeds 1–4 (go run ./internal/probe/knowntable
// -methods mmdfw -seed N): banana and mix2 too, since the weights' pairwise
// solve (their largest mean errors 0.26–0.49 and 0.04–0.49 sd).
func TestKnown(t *testing.T) {
	samplertest.Known(t, samplertest.Method{
		Zero: mmdfw.Settings{},
	}, samplertest.KnownOptions{Targets: []string{"gauss5", "gauss50", "banana", "mix1", "mix2", "funnel", "gamma", "student5"}})
}
