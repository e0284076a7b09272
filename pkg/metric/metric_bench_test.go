package metric

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// BenchmarkMMD2 scores one snapshot of n = 100 particles against S
// reference draws.
func BenchmarkMMD2(b *testing.B) {
	for _, c := range []struct{ d, S int }{{56, 2000}, {953, 2000}} {
		b.Run(fmt.Sprintf("n=100/S=%d/d=%d", c.S, c.d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			Y := randMat(rng, c.S, c.d, 1, 0)
			X := randMat(rng, 100, c.d, 1, 0.1)
			m := NewMMD(kernel.RBF{H: 8}, Y)
			b.ReportAllocs()
			for b.Loop() {
				m.MMD2(X, nil)
			}
			// The cross term dominates: 100·S kernel entries of 2d flops.
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100*c.S), "ns/pair")
		})
	}
}

// BenchmarkNewMMD is the one-off reference term of S draws.
func BenchmarkNewMMD(b *testing.B) {
	for _, c := range []struct{ d, S int }{{56, 2000}, {953, 2000}} {
		b.Run(fmt.Sprintf("S=%d/d=%d", c.S, c.d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			Y := randMat(rng, c.S, c.d, 1, 0)
			b.ReportAllocs()
			for b.Loop() {
				NewMMD(kernel.RBF{H: 8}, Y)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.S*(c.S-1)/2), "ns/pair")
		})
	}
}
