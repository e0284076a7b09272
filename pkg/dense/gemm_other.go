//go:build !amd64 || noasm

package dense

// useFMA is false: the portable loop is used.
var useFMA = false

const haveFMA = false

// use512 is false: the portable loop is used.
var use512 = false

const have512 = false

func expNeg512(x *float64, n int, nc float64) {
	panic("dense: no AVX-512 kernel")
}

func mul8x16(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, mask int) {
	panic("dense: no AVX-512 kernel")
}

func mul4x16(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, mask int) {
	panic("dense: no AVX-512 kernel")
}

func mul4x8(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int) {
	panic("dense: no FMA kernel")
}

func mul4x4(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int) {
	panic("dense: no FMA kernel")
}

func expNegFMA(x *float64, n int, nc float64) {
	panic("dense: no FMA kernel")
}

func mul4xr(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, r int) {
	panic("dense: no FMA kernel")
}

func adagradAVX(xp, gp, hp *float64, n int, eps, alpha, oma, fudge float64, first int) {
	panic("dense: no AVX2 kernel")
}

func sqDistAVX(ap, bp *float64, n int, s *[16]float64) {
	panic("dense: no AVX2 kernel")
}

func steinAxpyAVX(dst, xp, yp, sp *float64, n int, w, c float64) {
	panic("dense: no AVX2 kernel")
}

func reluRows4AVX(a *float64, lda int, b1, w2 *float64, h4 int, f *float64) {
	panic("dense: no AVX2 kernel")
}

func reluBackAVX(a *float64, lda, rows int, res, w2, gw2, gb1 *float64, h4 int) {
	panic("dense: no AVX2 kernel")
}

func reluBack12AVX(a *float64, lda, rows int, res, w2, gw2, gb1 *float64) {
	panic("dense: no AVX2 kernel")
}

func affineAVX(a, b, w *float64, ws int, x *float64, p, n int) {
	panic("dense: no AVX2 kernel")
}

func outerAddAVX(dst *float64, ds int, x *float64, p int, d *float64, n int) {
	panic("dense: no AVX2 kernel")
}

func subScaled512(dst, s, x *float64, n int, c float64) {
	panic("dense: no AVX-512 kernel")
}

func diffArgminAVX(gp, ap, bp *float64, n int, gamma float64, lanes *[16]float64) {
	panic("dense: no AVX kernels")
}

func awayScanAVX(sup *int, n, m int, wp, gp, bp, dp, qp *float64, gmin, qss float64, out *[10]float64) (ok bool) {
	panic("dense: no AVX2 kernel")
}
