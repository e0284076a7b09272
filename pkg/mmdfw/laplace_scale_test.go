package mmdfw

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// counting wraps t and counts its full-data evaluations.
type counting struct {
	target.Target
	n int64
}

func (c *counting) LogProbGrad(x, grad []float64) float64 {
	c.n++
	return c.Target.LogProbGrad(x, grad)
}

// TestRunLaplaceScale checks the wiring of ScaleLaplace: the fit's 2d
// gradients are charged to the run (and every other evaluation but the
// diagnostics' probes), the bandwidth is the median heuristic
// of draws of N(x₁, Σ) (on a Gaussian: of the target itself, whose median
// pairwise distance is known by Monte Carlo), and the run approximates the
// target (BQ with exact z: MMD² at n = 30 is 9× below n = 1 with this
// seed; the assertion asks for 5×).
func TestRunLaplaceScale(t *testing.T) {
	const d = 10
	rng := rand.New(rand.NewPCG(8, 9))
	g := newGaussian(d, rng)
	ct := &counting{Target: g.Gaussian}
	var mmd []float64
	var firstEvals []int64
	s := Settings{N: 30, Candidates: Candidates{First: FirstGiven, Scale: ScaleLaplace}, Weighting: Weighting{RawWeights: true}}
	sStart, sIn := particle.Start{X0: g.Mean()}, Inputs{Embed: g.embed}
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		v, ok := sn.Stats[StatMMD2Kernel]
		if !ok {
			v = math.NaN()
		}
		mmd = append(mmd, v)
		firstEvals = append(firstEvals, sn.GradEvals)
		return nil
	})
	s.Inputs = sIn
	mmdfwRes, err := Run(context.Background(), ct, sStart, s, rand.NewPCG(1, 2), rec)
	res, _ := mmdfwRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if res.Laplace == nil || res.LaplaceGradEvals != 2*d {
		t.Fatalf("Laplace %v, charged %d gradients, want %d", res.Laplace != nil, res.LaplaceGradEvals, 2*d)
	}
	// The probes of the diagnostics come after the run and are not charged.
	if probes := int64(res.Set.Diag.Values["probes"]); res.GradEvals+probes != ct.n {
		t.Errorf("run charged %d gradients, the target counted %d with %d probes", res.GradEvals, ct.n, probes)
	}
	// Median pairwise distance of the target, 2000 exact draws.
	hTrue := medianBandwidth(g.sample(2000, rand.New(rand.NewPCG(4, 4))))
	// The run's median over 200 draws: a relative error of a few percent.
	if math.Abs(res.Bandwidth-hTrue) > 0.1*hTrue {
		t.Errorf("bandwidth %v, want the target's median distance %v within 10%%", res.Bandwidth, hTrue)
	}
	// The first snapshot comes before the kernel exists and carries no
	// statistic; the run's own record has every n.
	if len(mmd) != 30 || !math.IsNaN(mmd[0]) || len(res.MMD2) != 30 {
		t.Fatalf("%d snapshots, first statistic %v, %d MMD² values", len(mmd), mmd[0], len(res.MMD2))
	}
	// Reported as soon as it exists: before the Laplace fit's gradients.
	if firstEvals[0] != 0 || firstEvals[1] < 2*d {
		t.Errorf("gradient evaluations at snapshots 1 and 2: %d, %d; want 0 and at least %d", firstEvals[0], firstEvals[1], 2*d)
	}
	if m := res.MMD2; !(m[len(m)-1] < 0.2*m[0]) {
		t.Errorf("MMD² %v at n=%d, %v at n=1: want a fivefold drop", m[len(m)-1], len(m), m[0])
	}
}

// TestRunStopAtFirst checks that a recorder stopping the run at the early
// first snapshot (before the Laplace fit) still gets that particle back.
func TestRunStopAtFirst(t *testing.T) {
	const d = 3
	g := newGaussian(d, rand.New(rand.NewPCG(8, 10)))
	ct := &counting{Target: g.Gaussian}
	s := Settings{N: 5, Candidates: Candidates{First: FirstGiven, Scale: ScaleLaplace}}
	sStart, sIn := particle.Start{X0: g.Mean()}, Inputs{}
	calls := 0
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error { calls++; return particle.ErrStop })
	s.Inputs = sIn
	mmdfwRes, err := Run(context.Background(), ct, sStart, s, rand.NewPCG(1, 2), rec)
	res, _ := mmdfwRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.Set.Len() != 1 || res.Set.W[0] != 1 || res.Laplace != nil || ct.n != 0 {
		t.Fatalf("%d snapshots, %d particles, Laplace fitted %v, %d gradients", calls, res.Set.Len(), res.Laplace != nil, ct.n)
	}
	for j, v := range g.Mean() {
		if res.Set.X.At(0, j) != v {
			t.Fatalf("particle %v, want the given start %v", mat.Row(nil, 0, res.Set.X), g.Mean())
		}
	}
}
