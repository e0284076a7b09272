package svgd_test

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// strayNormal returns the d-dimensional standard normal target.
func strayNormal(t *testing.T, d int) target.Target {
	t.Helper()
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		cov.SetSym(i, i, 1)
	}
	g, err := target.NewGaussian(make([]float64, d), cov)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// strayDraws returns n standard normal draws in d dimensions from seed.
func strayDraws(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

func strayFlag(d particle.Diagnostics, code string) bool {
	for _, f := range d.Flags {
		if f.Code == code {
			return true
		}
	}
	return false
}

// TestStrayFlagged: a set of 20 standard normal draws in 5 dimensions with
// one particle moved 25 sd out along x1, after a single update, is a set
// with a particle left behind: its squared score (about 625) is most of the
// set's (about 20·5 from the others), so the set must be flagged "stray".
func TestStrayFlagged(t *testing.T) {
	const n, d = 20, 5
	x := strayDraws(n, d, 1)
	x.Set(3, 0, 25)
	set, err := svgd.Settings{Frame: sampler.Frame{Stop: svgd.StopFixed}, Iterations: 1}.Run(context.Background(), strayNormal(t, d),
		particle.Start{Particles: x}, rand.NewPCG(1, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	share := set.Diag.Values["score_share"]
	if !strayFlag(set.Diag, "stray") || share <= svgd.StrayShare {
		t.Errorf("a particle 25 sd out: score share %.3g, flags %q; want \"stray\" above %g", share, set.Diag.Reason(), svgd.StrayShare)
	}
}

// TestStrayNoFalseAlarm: SVGD from standard normal draws on a standard
// normal target at N = 10, 30 and 100 in 2, 5 and 10 dimensions, to its own
// stopping rule, is close and must not be flagged "stray"; its score share
// must be recorded.
func TestStrayNoFalseAlarm(t *testing.T) {
	for _, d := range []int{2, 5, 10} {
		for _, n := range []int{10, 30, 100} {
			for seed := uint64(1); seed <= 3; seed++ {
				set, err := svgd.Settings{}.Run(context.Background(), strayNormal(t, d),
					particle.Start{Particles: strayDraws(n, d, seed)}, rand.NewPCG(seed, 3), nil)
				if err != nil {
					t.Fatal(err)
				}
				share, ok := set.Diag.Values["score_share"]
				if !ok || strayFlag(set.Diag, "stray") {
					t.Errorf("d %d, N %d, seed %d: score share %.3g (recorded %v), flags %q", d, n, seed, share, ok, set.Diag.Reason())
				}
			}
		}
	}
}

// TestScoreShare: equal scores give 1/N, zero scores no share, and one
// dominant row its fraction of the sum of squares.
func TestScoreShare(t *testing.T) {
	if s, i := svgd.ScoreShare(mat.NewDense(4, 2, []float64{1, 0, 0, 1, -1, 0, 0, -1})); s != 0.25 || i != 0 {
		t.Errorf("equal scores: share %v at %d, want 0.25 at 0", s, i)
	}
	if s, i := svgd.ScoreShare(mat.NewDense(3, 1, nil)); s != 0 || i != -1 {
		t.Errorf("zero scores: share %v at %d, want 0 at -1", s, i)
	}
	if s, i := svgd.ScoreShare(mat.NewDense(3, 1, []float64{1, 3, 1})); s != 9.0/11 || i != 1 {
		t.Errorf("one dominant: share %v at %d, want 9/11 at 1", s, i)
	}
}

// ScoreShare of four particles' scores, one of them three times the
// others' in norm: it carries 9/(9+1+1+1) of the summed squared score.
func ExampleScoreShare() {
	scores := mat.NewDense(4, 2, []float64{
		1, 0,
		0, -1,
		3, 0,
		0, 1,
	})
	share, i := svgd.ScoreShare(scores)
	fmt.Printf("particle %d carries %.2f (an equal share: %.2f)\n", i, share, 0.25)
	// Output: particle 2 carries 0.75 (an equal share: 0.25)
}
