package laplace

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestFitFromStart checks that FitFromStart is FitAtMAP from the start it
// documents: x0, else a prior draw from rng, else the origin; and that a
// start of the wrong length or not finite is an error naming the method.
func TestFitFromStart(t *testing.T) {
	ctx := context.Background()
	g := newGaussian(3, rand.New(rand.NewPCG(1, 2)))
	x0 := []float64{0.5, -1, 2}
	got, err := FitFromStart(ctx, g, "m", x0, rand.New(rand.NewPCG(3, 4)), MAPSettings{}, FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := FitAtMAP(ctx, g, []float64{0.5, -1, 2}, MAPSettings{}, FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GradEvals != want.GradEvals || !equalSlices(got.MAP.X, want.MAP.X) || !equalSlices(got.Whitening.M, want.Whitening.M) {
		t.Errorf("from x0: %d evals, MAP %v; FitAtMAP: %d, %v", got.GradEvals, got.MAP.X, want.GradEvals, want.MAP.X)
	}
	if x0[0] != 0.5 || x0[1] != -1 || x0[2] != 2 {
		t.Errorf("x0 modified: %v", x0)
	}

	// Without x0 and without a prior the search starts at the origin and
	// reads nothing from rng.
	plain := target.Func{D: 3, F: g.LogProbGrad}
	rng := rand.New(rand.NewPCG(5, 6))
	got, err = FitFromStart(ctx, plain, "m", nil, rng, MAPSettings{}, FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	want, err = FitAtMAP(ctx, plain, make([]float64, 3), MAPSettings{}, FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GradEvals != want.GradEvals || !equalSlices(got.MAP.X, want.MAP.X) {
		t.Errorf("from the origin: %d evals, MAP %v; FitAtMAP: %d, %v", got.GradEvals, got.MAP.X, want.GradEvals, want.MAP.X)
	}
	if a, b := rng.Uint64(), rand.New(rand.NewPCG(5, 6)).Uint64(); a != b {
		t.Error("the origin start read from rng")
	}

	for _, c := range []struct {
		x0   []float64
		want string
	}{
		{[]float64{1, 2}, "m: X0 has length 2, target dimension is 3"},
		{[]float64{1, math.NaN(), 0}, "m: MAP search start: diverged at step 0: coordinate 1 is NaN"},
		{[]float64{1, 0, math.Inf(-1)}, "m: MAP search start: diverged at step 0: coordinate 2 is -Inf"},
	} {
		sc, err := FitFromStart(ctx, g, "m", c.x0, rng, MAPSettings{}, FitSettings{})
		if err == nil || !strings.Contains(err.Error(), c.want) || sc.GradEvals != 0 {
			t.Errorf("x0 %v: error %v after %d evaluations, want %q before any", c.x0, err, sc.GradEvals, c.want)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := FitFromStart(cctx, g, "m", x0, rng, MAPSettings{}, FitSettings{}); err != context.Canceled {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
