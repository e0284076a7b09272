package mmdfw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// BenchmarkLMOStep is one Approx-LMO step (Frozen direction from cached
// scores, AdaGrad update) against n frozen particles in dimension d. The
// cost is O(n·d): ns/op grows linearly in n, and ns/term (per frozen
// particle) stays flat. The bandwidth is √d, near the median distance of
// the N(0, I) particles over √2, so that the kernel values are of order
// e⁻¹ and the accumulation of every term is measured (with h = 1 at
// d = 953 they underflow to 0 and only the distances would be).
func BenchmarkLMOStep(b *testing.B) {
	for _, d := range []int{56, 953} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("d=%d/n=%d", d, n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				X := mat.NewDense(n, d, nil)
				S := mat.NewDense(n, d, nil)
				for i := 0; i < n; i++ {
					for j := 0; j < d; j++ {
						X.Set(i, j, rng.NormFloat64())
						S.Set(i, j, rng.NormFloat64())
					}
				}
				r := &run{
					k: kernel.RBF{H: math.Sqrt(float64(d))}, s: Settings{LMO: LMO{Direction: Frozen}},
					xv: X, sv: S, d: d,
					g: make([]float64, d), hist: make([]float64, d), tmp: make([]float64, d),
					eps: make([]float64, d),
				}
				for j := range r.eps {
					r.eps[j] = 1e-3
				}
				w := particle.Equal(n)
				x := make([]float64, d)
				copy(x, X.RawRowView(0))
				b.ReportAllocs()
				b.SetBytes(int64(2 * n * d * 8))
				it := 0
				for b.Loop() {
					r.step(x, w, it, 1, 0)
					it++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/term")
				// Per term: the distance (3d flops) and the accumulation (5d).
				b.ReportMetric(8*float64(n*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkRunLogistic is a whole run of N = 100 particles on a
// Covertype-shaped synthetic logistic regression (20,000 rows, 54 features
// and a bias, d = 56), MAP start, 100 LMO steps per particle, Stein
// weights; the Self direction's candidate score on minibatches of 100 (as
// SVGD's). SVGD with the reference code's logistic-regression settings
// (100 particles, 6000 iterations, minibatch 100) is the comparison.
func BenchmarkRunLogistic(b *testing.B) {
	t := syntheticLR(20000, 54, rand.New(rand.NewPCG(3, 3)))
	b.Run("mmdfw/N=100", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mmdfwRes, err := Run(context.Background(), t, particle.Start{}, Settings{N: 100, LMO: LMO{Batch: 100}, Frame: sampler.Frame{Stop: StopFixed}}, rand.NewPCG(1, 1), nil)
			res, _ := mmdfwRes.Detail.(*Result)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(res.GradEvals), "gradevals")
		}
	})
	b.Run("svgd/N=100/6000it", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sampler.Set(svgd.Run(context.Background(), t, particle.Start{}, svgd.Settings{N: 100, Iterations: 6000, StepSize: 0.05}, rand.NewPCG(1, 1), nil)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRunRFF is a whole run of N = 100 particles with random features
// (D = 500 and 2000) on the synthetic logistic regression of
// BenchmarkRunLogistic: the Gram rows of the weights come from the cached
// features, O(N·D) per new particle.
func BenchmarkRunRFF(b *testing.B) {
	t := syntheticLR(20000, 54, rand.New(rand.NewPCG(3, 3)))
	for _, D := range []int{500, 2000} {
		b.Run(fmt.Sprintf("N=100/D=%d", D), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), t, particle.Start{}, Settings{N: 100, LMO: LMO{Batch: 100}, KernelSpec: KernelSpec{Kernel: RFFKernel, Features: D}, Frame: sampler.Frame{Stop: StopFixed}}, rand.NewPCG(1, 1), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPerturbGiven is the candidate noise of ScaleGiven,
// x ← x + Noise·σ ⊙ z, for a BNN-sized point (d = 953): no allocation.
func BenchmarkPerturbGiven(b *testing.B) {
	const d = 953
	r := &run{s: Settings{Candidates: Candidates{Noise: 1}}, rng: rand.New(rand.NewPCG(1, 2)), sig: make([]float64, d)}
	for j := range r.sig {
		r.sig[j] = 0.01 * float64(1+j%7)
	}
	x := make([]float64, d)
	b.ReportAllocs()
	for b.Loop() {
		r.perturb(x)
	}
}
