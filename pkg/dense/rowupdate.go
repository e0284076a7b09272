package dense

// AddMulTrans sets
//
//	dst_k = (…((b_k + x₀·w_k) + x₁·w_{ldw+k}) + …) + x_{p−1}·w_{(p−1)·ldw+k}
//
// for k < len(dst), p = len(x): dst = b + Wᵀx for the p×len(dst) matrix W
// stored row by row with stride ldw (len(b) ≥ len(dst)). Every product is
// rounded and then added, from j = 0 up (no FMA), so each dst_k has the bits
// of the serial loop
//
//	s := b[k]; for j := range x { s += x[j]*w[j*ldw+k] }
//
// and of copying b and then p calls of floats.AddScaled(dst, x[j], row j).
// With a symmetric W it is W x, row by row in serial order. The AVX2 path
// keeps sixteen columns in registers across the p rows of W.
func AddMulTrans(dst, b, w []float64, ldw int, x []float64) {
	h, p := len(dst), len(x)
	b = b[:h]
	if p == 0 {
		copy(dst, b)
		return
	}
	if h == 0 {
		return
	}
	if ldw < h {
		panic("dense: row stride shorter than the row")
	}
	w = w[:(p-1)*ldw+h]
	n4 := 0
	if useFMA && h >= 4 {
		n4 = h &^ 3
		affineAVX(&dst[0], &b[0], &w[0], ldw, &x[0], p, n4)
	}
	for k := n4; k < h; k++ {
		v := b[k]
		for j, xj := range x {
			v += float64(xj * w[j*ldw+k])
		}
		dst[k] = v
	}
}

// AddOuter adds the outer product x dᵀ to the len(x)×len(d) matrix g
// stored row by row with stride ldg: g_{j·ldg+k} ← g_{j·ldg+k} + x_j·d_k,
// the product rounded and then added (no FMA), with the bits of
// floats.AddScaled(g[j·ldg:j·ldg+len(d)], x_j, d) for each j.
func AddOuter(g []float64, ldg int, x, d []float64) {
	h, p := len(d), len(x)
	if p == 0 || h == 0 {
		return
	}
	if ldg < h {
		panic("dense: row stride shorter than the row")
	}
	g = g[:(p-1)*ldg+h]
	n4 := 0
	if useFMA && h >= 4 {
		n4 = h &^ 3
		outerAddAVX(&g[0], ldg, &x[0], p, &d[0], n4)
	}
	if n4 == h {
		return
	}
	for j, xj := range x {
		row := g[j*ldg : j*ldg+h]
		for k := n4; k < h; k++ {
			row[k] += float64(xj * d[k])
		}
	}
}
