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
	sum, _ := ksd2Diag(k, X, S, w)
	return sum
}

// ksd2Diag returns KSD2's Σᵢⱼ wᵢwⱼ k₀(xᵢ, xⱼ) and its diagonal part
// Σᵢ wᵢ² k₀(xᵢ, xᵢ), for weights w of length n and a non-nil k.
func ksd2Diag(k kernel.Radial, X, S *mat.Dense, w []float64) (sum, diag float64) {
	n, _ := X.Dims()
	K0 := mat.NewDense(n, n, nil)
	kernel.SteinGram(K0, k, X, S, nil)
	for i := 0; i < n; i++ {
		var s float64
		row := K0.RawRowView(i)
		for j, v := range row {
			s += w[j] * v
		}
		sum += w[i] * s
		diag += w[i] * w[i] * row[i]
	}
	return sum, diag
}
