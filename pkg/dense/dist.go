package dense

// SqDist returns ‖a − b‖² (len(b) ≥ len(a)) summed in 16 chains, chain l
// taking the indices ≡ l mod 16 of the first 16⌊n/16⌋ coordinates, the
// rest added to chain 0 in order; the chains are combined as
// tₗ = (s_l + s_{l+4}) + (s_{l+8} + s_{l+12}), l < 4, and
// (t₀ + t₁) + (t₂ + t₃). The AVX2 path keeps the 16 chains in four vector
// registers and gives the same bits; independent chains keep the adds from
// waiting on one another.
func SqDist(a, b []float64) float64 {
	n := len(a)
	b = b[:n]
	var s [16]float64
	n16 := 0
	if useFMA {
		n16 = n &^ 15
		if n16 > 0 {
			sqDistAVX(&a[0], &b[0], n16, &s)
		}
	} else {
		n16 = n &^ 15
		for j := 0; j < n16; j += 16 {
			for l := range 16 {
				u := a[j+l] - b[j+l]
				s[l] += u * u
			}
		}
	}
	for j := n16; j < n; j++ {
		u := a[j] - b[j]
		s[0] += u * u
	}
	var t [4]float64
	for l := range 4 {
		t[l] = (s[l] + s[l+4]) + (s[l+8] + s[l+12])
	}
	return (t[0] + t[1]) + (t[2] + t[3])
}

// SteinAxpy adds w·s + c·(x − y) to dst, coordinate by coordinate
// (len(x), len(y), len(s) ≥ len(dst)), each operation rounded as written:
// dst_j + (w·s_j + c·(x_j − y_j)).
func SteinAxpy(dst, x, y, s []float64, w, c float64) {
	n := len(dst)
	x, y, s = x[:n], y[:n], s[:n]
	n4 := 0
	if useFMA {
		n4 = n &^ 3
		if n4 > 0 {
			steinAxpyAVX(&dst[0], &x[0], &y[0], &s[0], n4, w, c)
		}
	}
	for j := n4; j < n; j++ {
		dst[j] += float64(w*s[j]) + float64(c*(x[j]-y[j]))
	}
}
