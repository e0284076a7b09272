package dense_test

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/dense"
)

// C = A·B for a 2×3 matrix A and a 3×2 matrix B, all stored row-major, then
// the squared distance between A's two rows.
func ExampleMulNN() {
	a := []float64{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float64{
		1, 0,
		0, 1,
		1, 1,
	}
	c := make([]float64, 4)
	dense.MulNN(2, 2, 3, 1, a, 3, b, 2, c, 2)
	fmt.Println(c)
	fmt.Println(dense.SqDist(a[:3], a[3:]))
	// Output:
	// [4 5 10 11]
	// 27
}

// exp(c·x) in place, as the RBF kernel's Gram entries exp(−r²/h²) are made.
func ExampleExpScaled() {
	x := []float64{0, 1, 2}
	dense.ExpScaled(x, -0.5)
	fmt.Printf("%.6f\n", x)
	// Output:
	// [1.000000 0.606531 0.367879]
}

// T = S − X/h², row by row, as the SVGD direction forms it.
func ExampleSubScaledTo() {
	s := []float64{1, 2, 3}
	x := []float64{2, 4, 8}
	t := make([]float64, 3)
	dense.SubScaledTo(t, s, 0.5, x)
	fmt.Println(t)
	// Output:
	// [0 0 -1]
}

// One row of a hidden layer, a = b + Wᵀx for the 2×3 weights W (two inputs,
// three units), and the gradient update G ← G + x dᵀ of the same weights.
func ExampleAddMulTrans() {
	w := []float64{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float64{0.5, 0.5, 0.5}
	x := []float64{1, -1}
	a := make([]float64, 3)
	dense.AddMulTrans(a, b, w, 3, x)
	fmt.Println(a)

	g := make([]float64, 6)
	dense.AddOuter(g, 3, x, []float64{1, 0, 2})
	fmt.Println(g)
	// Output:
	// [-2.5 -2.5 -2.5]
	// [1 0 2 -1 0 -2]
}

// One pairwise Frank-Wolfe step on F(w) = wᵀQw over the simplex, Q =
// diag(2, 1, 3), from w = (½, 0, ½): AwayScan gives F, the Frank-Wolfe gap
// and the support vertex to move weight from, and AddScaledDiffArgmin
// updates g = Qw (half F's gradient) and finds the next step's vertex.
func ExampleAwayScan() {
	q := [][]float64{{2, 0, 0}, {0, 1, 0}, {0, 0, 3}}
	diag := []float64{2, 1, 3}
	b := []float64{0, 0, 0}
	w := []float64{0.5, 0, 0.5}
	g := []float64{1, 0, 1.5} // Qw + b
	sup := []int{0, 2}        // the particles of nonzero weight
	s, gmin := 1, 0.0         // the Frank-Wolfe vertex, argmin g

	wg, wb, a, dec := dense.AwayScan(sup, w, g, b, diag, q[s], gmin, q[s][s])
	fmt.Printf("F = %.4g, gap = %.4g; move from %d (decrease %.4g)\n", wg-wb, 2*(wg-gmin), a, dec)

	k := diag[a] + q[s][s] - 2*q[s][a]
	gamma := min(w[a], (g[a]-gmin)/k)
	w[a] -= gamma
	w[s] += gamma
	next, gnext, _, _ := dense.AddScaledDiffArgmin(g, q[s], q[a], gamma)
	fmt.Printf("w = %.4g, g = %.4g, next vertex %d (g = %.4g)\n", w, g, next, gnext)
	// Output:
	// F = 1.25, gap = 2.5; move from 2 (decrease 0.5625)
	// w = [0.5 0.375 0.125], g = [1 0.375 0.375], next vertex 1 (g = 0.375)
}
