//go:build !amd64 || noasm

package gemm

// useFMA is false: the portable loop is used.
var useFMA = false

const haveFMA = false

func mul4x8(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int) {
	panic("gemm: no FMA kernel")
}
