package metric

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// KSD2 returns the weighted kernel Stein discrepancy Σᵢⱼ wᵢwⱼ k₀(xᵢ, xⱼ) of
// the particles in the rows of X (n×d) with their cached scores in the rows
// of S (n×d) and weights w (nil means 1/n). A nil k means the IMQ kernel
// with c = 1, β = −1/2. It allocates the n×n Stein Gram matrix.
func KSD2(k kernel.Radial, X, S *mat.Dense, w []float64) float64 {
	n, _ := X.Dims()
	if k == nil {
		k = kernel.IMQ{}
	}
	if w == nil {
		w = make([]float64, n)
		for i := range w {
			w[i] = 1 / float64(n)
		}
	}
	if len(w) != n {
		panic("metric: weights length mismatch")
	}
	K0 := mat.NewDense(n, n, nil)
	kernel.SteinGram(K0, k, X, S, nil)
	var sum float64
	for i := 0; i < n; i++ {
		var s float64
		for j, v := range K0.RawRowView(i) {
			s += w[j] * v
		}
		sum += w[i] * s
	}
	return sum
}
