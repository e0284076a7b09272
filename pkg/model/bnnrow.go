package model

// affine writes into a the pre-activations of one row's hidden layer,
//
//	a_k = (…((b_k + x₀·w_k) + x₁·w_{h+k}) + …) + x_{p−1}·w_{(p−1)h+k},
//
// h = len(a), p = len(x), w the p×h first-layer weights row by row: each
// product rounded, then added, in the order of copying b and p calls of
// floats.AddScaled, whose bits it gives. With AVX2 four sums of four
// columns stay in registers across the p rows of w instead of a being
// loaded and stored p times.
func affine(a, b, w, x []float64) {
	h, p := len(a), len(x)
	b = b[:h]
	if p == 0 {
		copy(a, b)
		return
	}
	w = w[:p*h]
	n4 := 0
	if haveFMA && h >= 4 {
		n4 = h &^ 3
		affineAVX(&a[0], &b[0], &w[0], h, &x[0], p, n4)
	}
	for k := n4; k < h; k++ {
		v := b[k]
		for j, xj := range x {
			v += float64(xj * w[j*h+k])
		}
		a[k] = v
	}
}

// outerAdd adds the outer product x dᵀ to the p×h matrix g stored row by
// row (p = len(x), h = len(d)): g_{jh+k} ← g_{jh+k} + x_j·d_k, the product
// rounded, then added, as floats.AddScaled(g[j·h:(j+1)·h], x_j, d) for each
// j, whose bits it gives.
func outerAdd(g, x, d []float64) {
	h, p := len(d), len(x)
	if p == 0 || h == 0 {
		return
	}
	g = g[:p*h]
	n4 := 0
	if haveFMA && h >= 4 {
		n4 = h &^ 3
		outerAddAVX(&g[0], h, &x[0], p, &d[0], n4)
	}
	if n4 == h {
		return
	}
	for j, xj := range x {
		row := g[j*h : j*h+h]
		for k := n4; k < h; k++ {
			row[k] += float64(xj * d[k])
		}
	}
}
