//go:build !amd64 || noasm

package kernel

// use512 is false: the portable loop is used.
var use512 = false

const have512 = false

func bracket512(dst, src *float64, n int, lo, hi float64) (kept, ge, nonneg int) {
	panic("kernel: no AVX-512 pass")
}
