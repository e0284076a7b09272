package metric

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// indicatorESS is the effective sample size of I(x ≤ q_p) for N draws of a
// stationary Gaussian AR(1) series with coefficient ρ:
// N / (1 + 2 Σₜ corr(I₀, Iₜ)), where, by Plackett's identity
// ∂Φ₂(q, q; r)/∂r = φ₂(q, q; r),
//
//	corr(I₀, Iₜ) = 1/(2π p(1−p)) ∫₀^{asin ρᵗ} exp(−q²/(1 + sin θ)) dθ.
func indicatorESS(total, rho, p float64) float64 {
	q := distuv.UnitNormal.Quantile(p)
	sum := 0.0
	for t := 1; t < 10000; t++ {
		r := math.Pow(rho, float64(t))
		if math.Abs(r) < 1e-12 {
			break
		}
		// Simpson's rule on [0, asin r].
		const k = 200
		a := math.Asin(r)
		f := func(th float64) float64 { return math.Exp(-q * q / (1 + math.Sin(th))) }
		s := f(0) + f(a)
		for i := 1; i < k; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * f(a*float64(i)/k)
		}
		sum += s * a / (3 * k) / (2 * math.Pi * p * (1 - p))
	}
	return total / (1 + 2*sum)
}

func TestTailESSAgainstAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const m, n = 4, 50000
	for _, rho := range []float64{0, 0.5, 0.9} {
		chains := ar1Chains(rng, m, n, 2, rho)
		want := indicatorESS(m*n, rho, 0.05) // the 0.95 indicator has the same by symmetry
		for j, e := range TailESS(chains, nil) {
			if math.Abs(e-want) > 0.12*want {
				t.Errorf("ρ=%v coord %d: tail ESS %.0f, want %.0f ± 12%%", rho, j, e, want)
			}
		}
	}
	// iid draws: the indicator ESS is the number of draws.
	if got := indicatorESS(1000, 0, 0.05); got != 1000 {
		t.Errorf("indicatorESS(iid) = %v, want 1000", got)
	}
}

func TestMCSEAgainstAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const m, n = 4, 50000
	for _, rho := range []float64{0, 0.5, 0.9} {
		chains := ar1Chains(rng, m, n, 2, rho)
		want := math.Sqrt((1 + rho) / (1 - rho) / (m * n)) // unit variance
		for j, e := range MCSE(chains, nil) {
			if math.Abs(e-want) > 0.06*want {
				t.Errorf("ρ=%v coord %d: MCSE %.5f, want %.5f ± 6%%", rho, j, e, want)
			}
		}
	}
}

func TestTailESSConstantIsNaN(t *testing.T) {
	c := mat.NewDense(10, 1, nil)
	if e := TailESS([]*mat.Dense{c, c}, nil); !math.IsNaN(e[0]) {
		t.Errorf("tail ESS of constant chains = %v, want NaN", e[0])
	}
}

func TestQuantile(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.5, 3}, {1, 5}, {0.1, 1.4}, {0.95, 4.8}} {
		if got := Quantile(x, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}
