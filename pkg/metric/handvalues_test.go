package metric_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
)

// chainsOf makes one-coordinate chains of the given draws.
func chainsOf(draws ...[]float64) []*mat.Dense {
	cs := make([]*mat.Dense, len(draws))
	for i, d := range draws {
		cs[i] = mat.NewDense(len(d), 1, d)
	}
	return cs
}

// Split R̂ on draws small enough to follow by hand (the package doc's
// formulas, 2M = 4 split chains of n = 2 draws):
//
//	chain 1: 1 3 | 2 4     chain 2: 5 7 | 6 8
//	split means 2, 3, 6, 7; grand mean 4.5
//	split variances (n − 1 = 1): (1² + 1²)/1 = 2 each, so W = 2
//	Σ (x̄ₘ − x̄)² = 2.5² + 1.5² + 1.5² + 2.5² = 17
//	B = n/(2M − 1) · 17 = 2/3 · 17 = 34/3, B/W = 17/3
//	var⁺ = (n−1)/n · W + B/n = 1 + 17/3 = 20/3
//	R̂ = √(var⁺/W) = √(10/3) = 1.8257418583505538
//
// B divided by 2M = 4 instead of 2M − 1 = 3 gives B = 17/2 and
// R̂ = √(21/8) = 1.62: the test tells the two apart. With N = 5 draws the
// middle one is dropped, whatever it is, and R̂ is the same. Chains whose
// halves share their means (1 3 | 3 1 twice) have B = 0 and
// R̂ = √((n−1)/n) = √(1/2).
func TestClassicSplitRhatByHand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chains []*mat.Dense
		rhat   float64
		bw     float64
	}{
		{"2×4", chainsOf([]float64{1, 3, 2, 4}, []float64{5, 7, 6, 8}), math.Sqrt(10.0 / 3), 17.0 / 3},
		{"2×5, middle dropped", chainsOf([]float64{1, 3, 99, 2, 4}, []float64{5, 7, -99, 6, 8}), math.Sqrt(10.0 / 3), 17.0 / 3},
		{"B = 0", chainsOf([]float64{1, 3, 3, 1}, []float64{1, 3, 3, 1}), math.Sqrt(0.5), 0},
	} {
		got := metric.ClassicSplitRhat(tc.chains, nil)[0]
		if math.Abs(got-tc.rhat) > 1e-12 {
			t.Errorf("%s: split R̂ %.16g, want %.16g", tc.name, got, tc.rhat)
		}
		// R̂² = (n−1)/n + (B/W)/n with n = 2.
		if bw := 2 * (got*got - 0.5); math.Abs(bw-tc.bw) > 1e-12 {
			t.Errorf("%s: B/W %.16g from R̂, want %.16g", tc.name, bw, tc.bw)
		}
	}
}

// ESS on split chains whose autocovariances follow by hand (the package
// doc's formulas). Two chains of 12 draws, split into 2M = 4 chains of
// n = 6:
//
//	chain 1: 1.5 1.5 1.5 −.5 −.5 −.5 | .5 .5 .5 −1.5 −1.5 −1.5
//	chain 2: .5 .5 .5 −1.5 −1.5 −1.5 | 1.5 1.5 1.5 −.5 −.5 −.5
//
// Each split chain is its mean ±0.5 plus s = (1, 1, 1, −1, −1, −1), whose
// biased autocovariances are γ(1) = 3/6, γ(2) = 0, γ(3) = −3/6 and whose
// unbiased variance is 6/5 = W. The split means ±0.5 have grand mean 0 and
// Σ (x̄ₘ − x̄)² = 1, so B/n = 1/(2M − 1) = 1/3 and
// var⁺ = (5/6)(6/5) + 1/3 = 4/3. Then ρ̂(t) = 1 − (W − γ(t))·3/4:
// ρ̂(1) = 19/40, ρ̂(2) = 1/10, ρ̂(3) = −11/40. The first pair after
// (ρ̂(0), ρ̂(1)) sums to −7/40 < 0: Geyer's sequence stops at T = 2, whose
// ρ̂(2) > 0 is added once:
//
//	τ̂ = −1 + 2(1 + 19/40) + 1/10 = 41/20,   ESS = 24/τ̂ = 480/41.
//
// With B divided by 2M instead of 2M − 1, var⁺ = 5/4 and ESS = 12.5.
//
// Alternating chains (1 −1 1 …, and its negation) have ρ̂(1) = −31/30, so
// the first pair is negative and τ̂ = −1 + ρ̂(0) = 0, below the floor
// 1/log₁₀(24): ESS = 24·log₁₀(24).
func TestESSByHand(t *testing.T) {
	alt := make([]float64, 12)
	neg := make([]float64, 12)
	for i := range alt {
		alt[i] = float64(1 - 2*(i%2))
		neg[i] = -alt[i]
	}
	for _, tc := range []struct {
		name   string
		chains []*mat.Dense
		want   float64
	}{
		{"blocks", chainsOf(
			[]float64{1.5, 1.5, 1.5, -.5, -.5, -.5, .5, .5, .5, -1.5, -1.5, -1.5},
			[]float64{.5, .5, .5, -1.5, -1.5, -1.5, 1.5, 1.5, 1.5, -.5, -.5, -.5}), 480.0 / 41},
		{"alternating", chainsOf(alt, neg), 24 * math.Log10(24)},
	} {
		if got := metric.ESS(tc.chains, nil)[0]; math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: ESS %.12g, want %.12g", tc.name, got, tc.want)
		}
	}
}
