package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// BenchmarkRBFGramRepulsion is one SVGD kernel step for N particles:
// squared distances, Gram matrix and repulsion. It reports ns per particle
// and GFLOP/s counting the n²d multiply-adds of the distances' rank-k
// update (one triangle) and the 2n²d flops of the repulsion product.
func BenchmarkRBFGramRepulsion(b *testing.B) {
	for _, d := range []int{56, 953} {
		n := 100
		b.Run(fmt.Sprintf("N=%d/d=%d", n, d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			X := testutil.RandDense(rng, n, d)
			sq := mat.NewDense(n, n, nil)
			K := mat.NewDense(n, n, nil)
			rep := mat.NewDense(n, d, nil)
			norms := make([]float64, n)
			k := kernel.RBF{H: 3}
			b.ReportAllocs()
			cpu := testutil.StartCPU()
			for b.Loop() {
				kernel.SqDists(sq, X, norms)
				k.Gram(K, sq)
				k.Repulsion(rep, K, X)
			}
			cpu.Report(b)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/particle")
			b.ReportMetric(3*float64(n*n*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkSteinDirection is one MMD-FW LMO step over n frozen particles.
func BenchmarkSteinDirection(b *testing.B) {
	for _, d := range []int{56, 953} {
		for _, n := range []int{10, 100, 1000} {
			rng := rand.New(rand.NewPCG(3, 4))
			X, S := testutil.RandDense(rng, n, d), testutil.RandDense(rng, n, d)
			w := make([]float64, n)
			for i := range w {
				w[i] = 1 / float64(n)
			}
			x := testutil.RandVec(rng, d, 1)
			dst := make([]float64, d)
			for _, k := range []interface {
				SteinDirection(dst, x []float64, X, S *mat.Dense, w []float64) float64
			}{kernel.RBF{H: 3}, kernel.IMQ{}} {
				b.Run(fmt.Sprintf("%T/n=%d/d=%d", k, n, d), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(2 * n * d * 8)) // X and S are read once
					for b.Loop() {
						k.SteinDirection(dst, x, X, S, w)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/particle")
				})
			}
		}
	}
}

// BenchmarkSteinGram is the n×n Stein Gram matrix of a KSD evaluation.
func BenchmarkSteinGram(b *testing.B) {
	for _, d := range []int{56, 953} {
		n := 100
		b.Run(fmt.Sprintf("n=%d/d=%d", n, d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, 6))
			X, S := testutil.RandDense(rng, n, d), testutil.RandDense(rng, n, d)
			K0 := mat.NewDense(n, n, nil)
			work := make([]float64, 2*n*n)
			b.ReportAllocs()
			for b.Loop() {
				kernel.SteinGram(K0, kernel.IMQ{}, X, S, work)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*n), "ns/pair")
		})
	}
}
