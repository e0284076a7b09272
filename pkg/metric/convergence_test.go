package metric

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ar1Chains returns m chains of n draws of d independent stationary AR(1)
// series xₜ = ρxₜ₋₁ + √(1−ρ²) εₜ with unit marginal variance.
func ar1Chains(rng *rand.Rand, m, n, d int, rho float64) []*mat.Dense {
	chains := make([]*mat.Dense, m)
	s := math.Sqrt(1 - rho*rho)
	for c := range chains {
		x := mat.NewDense(n, d, nil)
		for j := 0; j < d; j++ {
			v := rng.NormFloat64()
			for i := 0; i < n; i++ {
				x.Set(i, j, v)
				v = rho*v + s*rng.NormFloat64()
			}
		}
		chains[c] = x
	}
	return chains
}

func TestESSAgainstAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const m, n = 4, 50000
	for _, rho := range []float64{-0.3, 0.5, 0.9} {
		chains := ar1Chains(rng, m, n, 2, rho)
		want := float64(m*n) * (1 - rho) / (1 + rho)
		for name, f := range map[string]func([]*mat.Dense, []float64) []float64{"ESS": ESS, "BulkESS": BulkESS} {
			got := f(chains, nil)
			for j, e := range got {
				if math.Abs(e-want) > 0.1*want {
					t.Errorf("ρ=%v %s coord %d: got %.0f, want %.0f ± 10%%", rho, name, j, e, want)
				}
			}
		}
	}
}

func TestESSOfIIDIsSampleSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const m, n = 4, 5000
	got := ESS(ar1Chains(rng, m, n, 3, 0), nil)
	for j, e := range got {
		if math.Abs(e-m*n) > 0.1*m*n {
			t.Errorf("coord %d: ESS %.0f of iid draws, want %d ± 10%%", j, e, m*n)
		}
	}
}

func TestSplitRhatIIDNearOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	chains := ar1Chains(rng, 4, 1000, 5, 0)
	for name, f := range map[string]func([]*mat.Dense, []float64) []float64{"SplitRhat": SplitRhat, "ClassicSplitRhat": ClassicSplitRhat} {
		for j, r := range f(chains, nil) {
			if r > 1.005 || r < 0.995 {
				t.Errorf("%s coord %d: %v for iid chains, want ≈ 1", name, j, r)
			}
		}
	}
}

func TestSplitRhatFlagsStuckChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	chains := ar1Chains(rng, 4, 1000, 2, 0.5)
	// Two chains stuck around 0, two around 2: a mode each.
	for _, c := range chains[2:] {
		r, _ := c.Dims()
		for i := 0; i < r; i++ {
			c.Set(i, 0, c.At(i, 0)+2)
		}
	}
	rh := SplitRhat(chains, nil)
	crh := ClassicSplitRhat(chains, nil)
	if rh[0] < 1.1 || crh[0] < 1.1 {
		t.Errorf("stuck chains: SplitRhat %v, ClassicSplitRhat %v, want > 1.1", rh[0], crh[0])
	}
	if rh[1] > 1.01 {
		t.Errorf("mixed coordinate: SplitRhat %v, want < 1.01", rh[1])
	}
}

func TestSplitRhatFlagsTrendAndScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	chains := ar1Chains(rng, 4, 1000, 2, 0)
	// Coordinate 0 of chain 0 drifts from −1.5 to 1.5: only its halves disagree.
	for i := 0; i < 1000; i++ {
		chains[0].Set(i, 0, chains[0].At(i, 0)+3*float64(i)/999-1.5)
	}
	// Coordinate 1 of chain 3 has three times the spread of the others:
	// same location, different scale, which only the tail R̂ sees.
	for i := 0; i < 1000; i++ {
		chains[3].Set(i, 1, 3*chains[3].At(i, 1))
	}
	rh := SplitRhat(chains, nil)
	crh := ClassicSplitRhat(chains, nil)
	if rh[0] < 1.05 || crh[0] < 1.05 {
		t.Errorf("trend: SplitRhat %v, ClassicSplitRhat %v, want > 1.05", rh[0], crh[0])
	}
	if rh[1] < 1.05 {
		t.Errorf("scale: SplitRhat %v, want > 1.05", rh[1])
	}
	if crh[1] > 1.01 {
		t.Errorf("scale: ClassicSplitRhat %v, expected blind (< 1.01)", crh[1])
	}
}

func TestConvergencePanicsOnMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for chains of different dimensions")
		}
	}()
	SplitRhat([]*mat.Dense{mat.NewDense(10, 2, nil), mat.NewDense(11, 2, nil)}, nil)
}
