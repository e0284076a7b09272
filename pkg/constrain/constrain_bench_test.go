package constrain

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkLogProbGrad measures the transforms' overhead: the forward and
// backward passes over every kind of parameter (32 coordinates) around a
// log density that costs almost nothing.
func BenchmarkLogProbGrad(b *testing.B) {
	s, _ := every()
	post := s.Posterior(func(x, grad []float64) float64 {
		for i, v := range x {
			grad[i] = -v
		}
		return 0
	})
	u := randU(rand.New(rand.NewPCG(1, 1)), post.Dim(), 1)
	grad := make([]float64, post.Dim())
	b.ReportAllocs()
	for b.Loop() {
		post.LogProbGrad(u, grad)
	}
}
