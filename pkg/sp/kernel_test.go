package sp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// TestRefKernelDerivatives checks the derivatives written out in the test's
// reference Stein kernel against central finite differences of the IMQ
// kernel itself: ∂k/∂xⱼ and the mixed ∂²k/∂xⱼ∂yⱼ, every coordinate.
func TestRefKernelDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range [][2]float64{{1, -0.5}, {0.7, -0.3}, {2, -0.9}} {
		c, beta := p[0], p[1]
		const d = 4
		x, y := make([]float64, d), make([]float64, d)
		for j := range x {
			x[j], y[j] = rng.NormFloat64(), rng.NormFloat64()
		}
		var r2 float64
		for j := range x {
			r2 += (x[j] - y[j]) * (x[j] - y[j])
		}
		q := c*c + r2
		const h = 1e-4
		for j := 0; j < d; j++ {
			u := x[j] - y[j]
			gx := 2 * beta * math.Pow(q, beta-1) * u
			mixed := -2*beta*math.Pow(q, beta-1) - 4*beta*(beta-1)*math.Pow(q, beta-2)*u*u

			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[j] += h
			xm[j] -= h
			fd := (imqK(c, beta, xp, y) - imqK(c, beta, xm, y)) / (2 * h)
			if e := math.Abs(fd-gx) / math.Abs(gx); e > 1e-5 {
				t.Errorf("c=%v β=%v: ∂k/∂x%d = %v, finite difference %v", c, beta, j, gx, fd)
			}

			const h2 = 1e-3
			f := func(dx, dy float64) float64 {
				xx, yy := append([]float64(nil), x...), append([]float64(nil), y...)
				xx[j] += dx
				yy[j] += dy
				return imqK(c, beta, xx, yy)
			}
			fd2 := (f(h2, h2) - f(h2, -h2) - f(-h2, h2) + f(-h2, -h2)) / (4 * h2 * h2)
			if e := math.Abs(fd2-mixed) / math.Abs(mixed); e > 1e-5 {
				t.Errorf("c=%v β=%v: ∂²k/∂x%d∂y%d = %v, finite difference %v", c, beta, j, j, mixed, fd2)
			}
		}
	}
}

// TestSteinKernelMatchesReference compares the kernel Run uses with the
// four-term reference, on random points and scores and on the diagonal.
func TestSteinKernelMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, p := range [][2]float64{{1, -0.5}, {0.5, -0.2}, {3, -0.75}} {
		k := kernel.IMQ{C: p[0], Beta: p[1]}
		for trial := 0; trial < 20; trial++ {
			d := 1 + trial%6
			v := make([][]float64, 4)
			for i := range v {
				v[i] = make([]float64, d)
				for j := range v[i] {
					v[i][j] = 2 * rng.NormFloat64()
				}
			}
			x, y, sx, sy := v[0], v[1], v[2], v[3]
			got, want := k.Stein(x, y, sx, sy), refIMQStein(p[0], p[1], x, y, sx, sy)
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("c=%v β=%v d=%d: k₀ = %v, reference %v", p[0], p[1], d, got, want)
			}
			got, want = k.Stein(x, x, sx, sx), refIMQStein(p[0], p[1], x, x, sx, sx)
			// k₀(x, x) = −2βd c^(2(β−1)) + c^(2β) ‖s(x)‖².
			var ss float64
			for _, s := range sx {
				ss += s * s
			}
			closed := -2*p[1]*float64(d)*math.Pow(p[0], 2*(p[1]-1)) + math.Pow(p[0], 2*p[1])*ss
			if math.Abs(got-want) > 1e-12*math.Abs(want) || math.Abs(got-closed) > 1e-12*math.Abs(closed) {
				t.Errorf("c=%v β=%v d=%d: k₀(x,x) = %v, reference %v, closed form %v", p[0], p[1], d, got, want, closed)
			}
		}
	}
}

// TestSteinIdentity checks the defining property of the Stein kernel,
// E_{x∼p} k₀(x, y) = 0 for every y, by Monte Carlo on the 2-D Gaussian,
// within four standard errors.
func TestSteinIdentity(t *testing.T) {
	g, m := gaussian2()
	k := kernel.IMQ{}
	rng := rand.New(rand.NewPCG(3, 3))
	// Draws from N(m, Σ) with Σ = L Lᵀ, L = [[1, 0], [0.5, √1.75]].
	const n = 200000
	x, sx, sy := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	for _, y := range [][]float64{{0, 0}, {1, -0.5}, {3, 2}} {
		g.LogProbGrad(y, sy)
		var sum, sum2 float64
		for i := 0; i < n; i++ {
			z0, z1 := rng.NormFloat64(), rng.NormFloat64()
			x[0] = m[0] + z0
			x[1] = m[1] + 0.5*z0 + math.Sqrt(1.75)*z1
			g.LogProbGrad(x, sx)
			v := k.Stein(x, y, sx, sy)
			sum += v
			sum2 += v * v
		}
		mean := sum / n
		se := math.Sqrt((sum2/n - mean*mean) / n)
		if math.Abs(mean) > 4*se {
			t.Errorf("y=%v: E k₀(x, y) = %v ± %v, want 0", y, mean, se)
		}
	}
}
