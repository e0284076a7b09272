//go:build amd64 && !noasm

package dense

import "golang.org/x/sys/cpu"

// useFMA selects the AVX2/FMA micro-kernel; tests switch it off to compare
// the portable loop.
var useFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// haveFMA reports whether the micro-kernel can run here.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// use512 selects the AVX-512 micro-kernel of MulNN (with useFMA); tests
// switch it off to compare the AVX2 kernel and the portable loop.
var use512 = have512

// have512 reports whether the AVX-512 micro-kernel can run here.
var have512 = haveFMA && cpu.X86.HasAVX512F

// expNeg512 sets x[i] = exp(−nc·x[i]) for i < n, n ≥ 1, with the
// operations of expNeg, eight at a time and the last n mod 8 through a
// lane mask.
//
//go:noescape
func expNeg512(x *float64, n int, nc float64)

// mul8x16 is mul4x16 for an 8×16 block of C (A's block 8×k).
//
//go:noescape
func mul8x16(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, mask int)

// mul4x16 sets the columns of the 4×16 block of C at c (row stride ldc)
// enabled by the bits of mask (bit j: column j) to α times the product of
// the 4×k block of A at a (row stride lda) and the k×16 block of B at b
// (row stride ldb), k ≥ 1; the disabled columns of B and C are not
// touched.
//
//go:noescape
func mul4x16(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, mask int)

// mul4x8 sets the 4×8 block of C at c (row stride ldc) to α times the
// product of the 4×k block of A at a (row stride lda) and the k×8 block of B
// at b (row stride ldb), k ≥ 1.
//
//go:noescape
func mul4x8(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

// mul4x4 is mul4x8 for a 4×4 block.
//
//go:noescape
func mul4x4(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

// expNegFMA sets x[i] = exp(−nc·x[i]) for i < n, n a multiple of 4, with
// the operations of expNeg.
//
//go:noescape
func expNegFMA(x *float64, n int, nc float64)

// mul4xr is mul4x4 for the first r columns, 1 ≤ r ≤ 3, through lane masks.
//
//go:noescape
func mul4xr(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, r int)

// adagradAVX is AdaGrad on n = 4m coordinates; first is 1 on the first
// step.
//
//go:noescape
func adagradAVX(xp, gp, hp *float64, n int, eps, alpha, oma, fudge float64, first int)

// sqDistAVX adds the squared differences of a and b (n = 16m) to the 16
// chains of s, chain l taking the indices ≡ l mod 16.
//
//go:noescape
func sqDistAVX(ap, bp *float64, n int, s *[16]float64)

// steinAxpyAVX is SteinAxpy on n = 4m coordinates.
//
//go:noescape
func steinAxpyAVX(dst, xp, yp, sp *float64, n int, w, c float64)

// reluRows4AVX is ReLURows on four rows and the first h4 = 4m units.
//
//go:noescape
func reluRows4AVX(a *float64, lda int, b1, w2 *float64, h4 int, f *float64)

// reluBackAVX is ReLUBackRows on the first h4 = 4m units.
//
//go:noescape
func reluBackAVX(a *float64, lda, rows int, res, w2, gw2, gb1 *float64, h4 int)

// reluBack12AVX is ReLUBackRows on 12 units, its sums kept in registers
// across the rows.
//
//go:noescape
func reluBack12AVX(a *float64, lda, rows int, res, w2, gw2, gb1 *float64)

// affineAVX and outerAddAVX are the AVX2 paths of AddMulTrans and AddOuter
// over n columns (a multiple of 4); see rowupdate_amd64.s.
//
//go:noescape
func affineAVX(a, b, w *float64, ws int, x *float64, p, n int)

//go:noescape
func outerAddAVX(dst *float64, ds int, x *float64, p int, d *float64, n int)

// subScaled512 sets dst[i] = s[i] − c·x[i] for i < n, n ≥ 1 (see
// SubScaledTo).
//
//go:noescape
func subScaled512(dst, s, x *float64, n int, c float64)

// diffArgminAVX is AddScaledDiffArgmin's vector part for n a multiple of 4,
// n ≥ 4: lanes gets the four lanes' first minima, their indices (int64
// bits), first maxima and their indices.
//
//go:noescape
func diffArgminAVX(gp, ap, bp *float64, n int, gamma float64, lanes *[16]float64)

// awayScanAVX is AwayScan's vector part for the first n entries of sup, n
// a multiple of 4, n ≥ 4: out gets wg and wb, the four lanes' first
// largest decreases (0 where none is above 0) and their places in sup
// (int64 bits, −1 where none). It returns false, with out unset, when an
// index of those n is not below m.
//
//go:noescape
func awayScanAVX(sup *int, n, m int, wp, gp, bp, dp, qp *float64, gmin, qss float64, out *[10]float64) (ok bool)
