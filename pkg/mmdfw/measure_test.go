package mmdfw

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

var measure = flag.Bool("mmdfw.measure", false, "run the measurements recorded in docs/DECISIONS.md")

// TestMeasureDirections measures the two readings of the LMO direction
// (NOTES §3) on exact Gaussian targets with the exact MMD², over 5 targets
// and seeds, and asserts the chosen default (Self) where it matters most: in
// d = 10 Frozen makes no progress.
//
//	go test ./pkg/mmdfw -run TestMeasureDirections -mmdfw.measure -v
func TestMeasureDirections(t *testing.T) {
	if !*measure {
		t.Skip("measurement; run with -mmdfw.measure")
	}
	const N, seeds = 60, 5
	type key struct {
		d    int
		dir  Direction
		rule Rule
	}
	res := map[key][]float64{}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| d, h | direction | weights | MMD² n=10 | MMD² n=60 (geometric mean of %d) |\n|---|---|---|---|---|\n", seeds)
	for _, c := range []struct {
		d int
		h float64
	}{{2, 1}, {10, 3}} {
		for _, dir := range []Direction{Frozen, Self} {
			for _, rule := range []Rule{BQ, Equal, Stein} {
				var l10, l60 float64
				for seed := uint64(0); seed < seeds; seed++ {
					g := newGaussian(c.d, rand.New(rand.NewPCG(11, seed)))
					mmd, _ := runGauss(t, g, Settings{N: N, KernelSpec: KernelSpec{Bandwidth: c.h}, LMO: LMO{Direction: dir}, Weighting: Weighting{Weights: rule, RawWeights: true}}, seed)
					l10 += math.Log(mmd[9]) / seeds
					l60 += math.Log(mmd[N-1]) / seeds
					res[key{c.d, dir, rule}] = append(res[key{c.d, dir, rule}], mmd[N-1])
				}
				name := map[Direction]string{Frozen: "frozen", Self: "self"}[dir]
				fmt.Fprintf(&b, "| %d, %g | %s | %v | %.2g | %.2g |\n", c.d, c.h, name, rule, math.Exp(l10), math.Exp(l60))
			}
		}
	}
	t.Log(b.String())
	for _, rule := range []Rule{BQ, Equal, Stein} {
		var fr, se float64
		for i := range res[key{10, Frozen, rule}] {
			fr += math.Log(res[key{10, Frozen, rule}][i])
			se += math.Log(res[key{10, Self, rule}][i])
		}
		if !(se < fr) {
			t.Errorf("d=10, %v: Self (%.3g) not better than Frozen (%.3g)", rule, math.Exp(se/seeds), math.Exp(fr/seeds))
		}
	}
}

// broadPrior gives a Gaussian target a broad N(0, 3²I) prior to draw from.
type broadPrior struct{ *gaussian }

func (b broadPrior) SamplePrior(rng *rand.Rand, dst []float64) {
	for i := range dst {
		dst[i] = 3 * rng.NormFloat64()
	}
}

// TestMeasureInit compares the candidate initialisations (existing
// particle plus kernel-scale noise, broad prior draw) with the default
// direction and BQ weights, exact z.
//
//	go test ./pkg/mmdfw -run TestMeasureInit -mmdfw.measure -v
func TestMeasureInit(t *testing.T) {
	if !*measure {
		t.Skip("measurement; run with -mmdfw.measure")
	}
	const N, seeds = 60, 5
	var b strings.Builder
	fmt.Fprintf(&b, "\n| d, h | init | MMD² n=60 (geometric mean of %d) |\n|---|---|---|\n", seeds)
	for _, c := range []struct {
		d int
		h float64
	}{{2, 1}, {10, 3}} {
		for _, init := range []CandidateInit{InitPerturb, InitPrior} {
			var l float64
			for seed := uint64(0); seed < seeds; seed++ {
				g := newGaussian(c.d, rand.New(rand.NewPCG(11, seed)))
				s := Settings{N: N, KernelSpec: KernelSpec{Bandwidth: c.h}, Weighting: Weighting{Weights: BQ, RawWeights: true}, Candidates: Candidates{CandidateInit: init}}
				sStart, sIn := particle.Start{}, Inputs{Embed: g.embed}
				s.Inputs = sIn
				mmdfwRes, err := Run(context.Background(), broadPrior{g}, sStart, s, rand.NewPCG(seed, 7), nil)
				res, _ := mmdfwRes.Detail.(*Result)
				if err != nil {
					t.Fatal(err)
				}
				l += math.Log(2*res.MMD2[N-1]) / seeds
			}
			fmt.Fprintf(&b, "| %d, %g | %v | %.2g |\n", c.d, c.h, map[CandidateInit]string{InitPerturb: "perturb", InitPrior: "prior N(0, 9I)"}[init], math.Exp(l))
		}
	}
	t.Log(b.String())
}
