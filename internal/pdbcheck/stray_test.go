package pdbcheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// runSVGD runs SVGD (zero settings, n particles) on the posterior from the
// MAP found from the model's Init point.
func runSVGD(t *testing.T, p *Posterior, n int, seed uint64) RunResult {
	t.Helper()
	ctx := context.Background()
	x0, cost, err := p.MAP(ctx, p.Init(seed))
	if err != nil {
		t.Fatal(err)
	}
	r := p.RunMethod(ctx, Method{"svgd", svgd.Settings{N: n}}, StartMAP, x0, seed, 5*time.Minute)
	r.StartGradEvals = cost
	if r.Err != nil {
		t.Fatalf("svgd on %s, N %d, seed %d: %v", p.Name, n, seed, r.Err)
	}
	return r
}

// On the non-centred eight schools SVGD at N = 10 and 30 sometimes leaves
// one particle behind with τ tens of reference sds high, on the steep ridge
// of θ̃: the set's mean of τ is 3–7 reference sds off, its sd 16–23 times
// the reference's, and no other flag is raised. Seeds 101 (N = 10) and 104
// (N = 30) are two such runs; SVGD must flag them "stray". Seeds 100
// (N = 10) and 101 (N = 30) are close and must not be flagged
// (docs/DECISIONS.md, "A particle SVGD leaves behind").
func TestStrayEightSchools(t *testing.T) {
	db := shared(t)
	p := load(t, db, "eight_schools-eight_schools_noncentered")
	for _, c := range []struct {
		n     int
		seed  uint64
		stray bool
	}{{10, 101, true}, {30, 104, true}, {10, 100, false}, {30, 101, false}} {
		r := runSVGD(t, p, c.n, c.seed)
		s := r.Summary
		t.Logf("N %d, seed %d: max |Δ mean|/sd %.3g, sd ratio %.3g–%.3g; %s", c.n, c.seed, s.MaxMeanErr, s.MinSDRatio, s.MaxSDRatio, r.Reason)
		if got := strings.Contains(r.Reason, "stray: "); got != c.stray {
			t.Errorf("N %d, seed %d: flagged stray %v, want %v (max |Δ mean|/sd %.3g, sd ratio %.3g–%.3g): %q",
				c.n, c.seed, got, c.stray, s.MaxMeanErr, s.MinSDRatio, s.MaxSDRatio, r.Reason)
		}
	}
}
