package dense

// SubScaledTo sets dst[i] = s[i] − c·x[i], the product rounded, then the
// difference (never fused), as SVGD's T = S − X/h² needs it. The AVX-512
// path does eight at a time (the tail through a lane mask) with the same
// bits as the loop. dst may be s or x. It panics ("dense: ...") when the
// lengths differ.
func SubScaledTo(dst, s []float64, c float64, x []float64) {
	n := len(dst)
	if len(s) != n || len(x) != n {
		panic("dense: SubScaledTo length mismatch")
	}
	if n == 0 {
		return
	}
	if useFMA && use512 {
		subScaled512(&dst[0], &s[0], &x[0], n, c)
		return
	}
	for i, v := range x {
		dst[i] = s[i] - float64(c*v)
	}
}
