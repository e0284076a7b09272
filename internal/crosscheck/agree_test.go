package crosscheck

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// Settings of the cross-check, in the target's own coordinates for a fixed
// number of iterations (svgd.WhitenNone, svgd.StopFixed and sgld's): the
// algorithms as the reference code runs them. The choices and their
// measurements are in the comments; the test logs the comparison table
// (go test -v).
const (
	// HMC: Stan-like defaults but a shorter warm-up; on this
	// well-conditioned posterior 500 warm-up iterations give ε ≈ 0.65,
	// ≈ 10 leapfrog steps per draw, max R̂ ≈ 1.002 and a raw ESS above
	// 3000 of the 4 × 1000 draws.
	hmcChains, hmcWarmup, hmcDraws = 4, 500, 1000

	// SVGD: 100 particles from the prior, full-data scores (minibatch
	// noise would keep the particles jittering at a fixed step). AdaGrad
	// with ε = 0.01 moves every coordinate by about ε per iteration, so
	// the particles travel from the prior (log α ≈ 3.9) to the posterior
	// (log α ≈ 1.1) in about a thousand iterations; the means stop moving
	// (by < 0.001) after 1500. ε = 0.05 converges in 500 but leaves the
	// means 0.25 sd off, jittering; ε = 0.02 leaves them 0.1 sd off.
	svgdParticles, svgdIterations, svgdStep = 100, 2000, 0.01

	// SGLD: minibatches of 100, ε_t = A(B + t)^−0.55 with B = 10⁴ and A
	// such that ε₁ = 2·10⁻³: ε falls from 1.4·10⁻³ at the end of the burn-in
	// to 0.7·10⁻³ at the last iteration. The largest posterior precision
	// is ≈ 90 (the coefficients' sd ≈ 0.105–0.125), so εP/4 < 0.03 and the
	// variance bias is below 3%; log α (sd ≈ 0.6) mixes slowest, which is
	// what the 8 chains of 60000 iterations are for.
	sgldChains, sgldIterations, sgldBurnIn, sgldThin = 8, 60000, 10000, 20
	sgldB, sgldGamma, sgldEps1                       = 1e4, 0.55, 2e-3
)

// TestLogisticMethodsAgree checks that HMC, SVGD and SGLD agree on the
// posterior means (and, more loosely, standard deviations) of a Bayesian
// logistic regression within their Monte Carlo errors; see the package
// documentation for the tolerances.
func TestLogisticMethodsAgree(t *testing.T) {
	lr := newPosterior()
	ctx := context.Background()

	start := time.Now()
	hmcRes, err := hmc.Run(ctx, lr, particle.Start{}, hmc.Settings{Chains: hmcChains, Warmup: hmcWarmup, DrawsPerChain: hmcDraws}, rand.NewPCG(2, 0), nil)
	h, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		t.Fatal(err)
	}
	if h.Flagged {
		t.Fatalf("HMC reference is flagged: %v", h.Reasons)
	}
	t.Logf("HMC: max R̂ %.4f, min bulk ESS %.0f, ε %.3f, %.1f steps per draw, %v",
		h.MaxRhat, h.MinESS, h.Diagnostics[0].StepSize, h.Diagnostics[0].MeanSteps, time.Since(start).Round(time.Millisecond))
	ref := chainSummary("HMC", h.Chains)
	d := len(ref.mean)

	// SVGD, recording the particles at the last two snapshots so that the
	// test can see whether they have stopped moving.
	start = time.Now()
	var snaps []*mat.Dense
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		if s.Step >= svgdIterations-svgdIterations/4 {
			snaps = append(snaps, mat.DenseCopyOf(s.X))
		}
		return nil
	})
	sv, err := sampler.Set(svgd.Run(ctx, lr, particle.Start{}, svgd.Settings{
		N: svgdParticles, Iterations: svgdIterations, StepSize: svgdStep,
		Batch: svgd.FullBatch, RecordEvery: svgdIterations / 4,
		Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed},
	}, rand.NewPCG(3, 0), rec))
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 {
		t.Fatalf("SVGD reported %d snapshots in its last quarter, want 2", len(snaps))
	}
	t.Logf("SVGD: %v", time.Since(start).Round(time.Millisecond))
	early, _ := momentsOf(snaps[0])
	for j, m := range early {
		if drift := math.Abs(m - meanCol(snaps[1], j)); drift > 0.05*ref.sd[j] {
			t.Errorf("SVGD has not converged: the mean of coordinate %d moved by %.4f (> 0.05 sd) over the last %d iterations",
				j, drift, svgdIterations/4)
		}
	}
	n := float64(sv.Len())
	svs := summary{name: "SVGD", seMean: make([]float64, d), seSD: make([]float64, d), biasMean: 0, biasSD: 0.2}
	svs.mean, svs.sd = momentsOf(sv.X)
	for j := range svs.seMean {
		svs.seMean[j] = ref.sd[j] / math.Sqrt(n)
		svs.seSD[j] = ref.sd[j] / math.Sqrt(2*n)
	}

	// SGLD: the particles are the chains' thinned draws, chain after chain.
	start = time.Now()
	sg, err := sampler.Set(sgld.Run(ctx, lr, particle.Start{}, sgld.Settings{
		Chains: sgldChains, Iterations: sgldIterations, BurnIn: sgldBurnIn, Thin: sgldThin,
		A: sgldEps1 * math.Pow(sgldB+1, sgldGamma), B: sgldB, Gamma: sgldGamma,
		Frame: sampler.Frame{Whiten: sgld.WhitenNone, Stop: sgld.StopFixed},
	}, rand.NewPCG(4, 0), nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SGLD: %v", time.Since(start).Round(time.Millisecond))
	sgs := chainSummary("SGLD", splitRows(sg.X, sgldChains))
	sgs.biasMean, sgs.biasSD = 0.1, 0.05

	t.Log("\n" + compare(t, ref, svs))
	t.Log("\n" + compare(t, ref, sgs))
}

// meanCol returns the mean of column j of X.
func meanCol(X *mat.Dense, j int) float64 {
	n, _ := X.Dims()
	var s float64
	for i := 0; i < n; i++ {
		s += X.At(i, j)
	}
	return s / float64(n)
}
