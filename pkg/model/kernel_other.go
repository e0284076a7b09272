//go:build !amd64 || noasm

package model

// haveFMA is false: the portable kernels are used.
const haveFMA = false

func dotRowsFMA(x *float64, stride, rows, cols int, w *float64, z *float64) {
	panic("model: no FMA kernels")
}

func axpyRowsFMA(x *float64, stride, rows, cols int, a *float64, grad *float64) {
	panic("model: no FMA kernels")
}

func sigmoidFMA(z, y *float64, n int) (lmin, prod float64) {
	panic("model: no FMA kernels")
}

// prefetchRows does nothing here: a prefetch changes no result.
func prefetchRows(x *float64, stride int, idx *int, n int, bytes int) {}

const have512 = false

func sigmoid512(z, y *float64, n int) {
	panic("model: no AVX-512 kernels")
}
