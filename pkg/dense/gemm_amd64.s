//go:build amd64 && !noasm

#include "textflag.h"

// func mul4x8(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
//
// Eight accumulators Y0–Y7 hold the 4×8 block of C; per step l, two vectors
// of B's row l are multiplied by the four broadcast A_il and added with one
// rounding each (VFMADD231PD), as math.FMA does in the portable loop.
TEXT ·mul4x8(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	VBROADCASTSD alpha+8(FP), Y15
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $3, R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	SHLQ $3, R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $3, R10
	LEAQ (R8)(R8*2), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop:
	VMOVUPD      (DI), Y8
	VMOVUPD      32(DI), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD (SI)(R8*1), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD (SI)(R8*2), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD (SI)(R11*1), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         $8, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop

	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y1, Y1
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y3, Y3
	VMULPD  Y15, Y4, Y4
	VMULPD  Y15, Y5, Y5
	VMULPD  Y15, Y6, Y6
	VMULPD  Y15, Y7, Y7
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, (DX)(R10*1)
	VMOVUPD Y3, 32(DX)(R10*1)
	LEAQ    (DX)(R10*2), DX
	VMOVUPD Y4, (DX)
	VMOVUPD Y5, 32(DX)
	VMOVUPD Y6, (DX)(R10*1)
	VMOVUPD Y7, 32(DX)(R10*1)
	VZEROUPPER
	RET

// mul4x4 is mul4x8 for a 4×4 block of C.
// func mul4x4(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
TEXT ·mul4x4(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	VBROADCASTSD alpha+8(FP), Y15
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $3, R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	SHLQ $3, R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $3, R10
	LEAQ (R8)(R8*2), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y2, Y2, Y2
	VXORPD Y4, Y4, Y4
	VXORPD Y6, Y6, Y6

loop4:
	VMOVUPD      (DI), Y8
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VBROADCASTSD (SI)(R8*1), Y11
	VFMADD231PD  Y8, Y11, Y2
	VBROADCASTSD (SI)(R8*2), Y12
	VFMADD231PD  Y8, Y12, Y4
	VBROADCASTSD (SI)(R11*1), Y13
	VFMADD231PD  Y8, Y13, Y6
	ADDQ         $8, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop4

	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y4, Y4
	VMULPD  Y15, Y6, Y6
	VMOVUPD Y0, (DX)
	VMOVUPD Y2, (DX)(R10*1)
	LEAQ    (DX)(R10*2), DX
	VMOVUPD Y4, (DX)
	VMOVUPD Y6, (DX)(R10*1)
	VZEROUPPER
	RET

// Constants of expNegFMA (see exp.go): 1/ln 2, 1.5·2⁵², ln 2 head and
// tail, the cut-off 708, the leading Taylor coefficient 1/13!; then four
// copies each of the coefficients 1/12! … 1/0!.
DATA expc<>+0(SB)/8, $0x3ff71547652b82fe
DATA expc<>+8(SB)/8, $0x4338000000000000
DATA expc<>+16(SB)/8, $0x3fe62e42fee00000
DATA expc<>+24(SB)/8, $0x3dea39ef35793c76
DATA expc<>+32(SB)/8, $0x4086200000000000
DATA expc<>+40(SB)/8, $0x3de6124613a86d09
GLOBL expc<>(SB), RODATA|NOPTR, $48
DATA expp<>+0(SB)/8, $0x3e21eed8eff8d898
DATA expp<>+8(SB)/8, $0x3e21eed8eff8d898
DATA expp<>+16(SB)/8, $0x3e21eed8eff8d898
DATA expp<>+24(SB)/8, $0x3e21eed8eff8d898
DATA expp<>+32(SB)/8, $0x3e5ae64567f544e4
DATA expp<>+40(SB)/8, $0x3e5ae64567f544e4
DATA expp<>+48(SB)/8, $0x3e5ae64567f544e4
DATA expp<>+56(SB)/8, $0x3e5ae64567f544e4
DATA expp<>+64(SB)/8, $0x3e927e4fb7789f5c
DATA expp<>+72(SB)/8, $0x3e927e4fb7789f5c
DATA expp<>+80(SB)/8, $0x3e927e4fb7789f5c
DATA expp<>+88(SB)/8, $0x3e927e4fb7789f5c
DATA expp<>+96(SB)/8, $0x3ec71de3a556c734
DATA expp<>+104(SB)/8, $0x3ec71de3a556c734
DATA expp<>+112(SB)/8, $0x3ec71de3a556c734
DATA expp<>+120(SB)/8, $0x3ec71de3a556c734
DATA expp<>+128(SB)/8, $0x3efa01a01a01a01a
DATA expp<>+136(SB)/8, $0x3efa01a01a01a01a
DATA expp<>+144(SB)/8, $0x3efa01a01a01a01a
DATA expp<>+152(SB)/8, $0x3efa01a01a01a01a
DATA expp<>+160(SB)/8, $0x3f2a01a01a01a01a
DATA expp<>+168(SB)/8, $0x3f2a01a01a01a01a
DATA expp<>+176(SB)/8, $0x3f2a01a01a01a01a
DATA expp<>+184(SB)/8, $0x3f2a01a01a01a01a
DATA expp<>+192(SB)/8, $0x3f56c16c16c16c17
DATA expp<>+200(SB)/8, $0x3f56c16c16c16c17
DATA expp<>+208(SB)/8, $0x3f56c16c16c16c17
DATA expp<>+216(SB)/8, $0x3f56c16c16c16c17
DATA expp<>+224(SB)/8, $0x3f81111111111111
DATA expp<>+232(SB)/8, $0x3f81111111111111
DATA expp<>+240(SB)/8, $0x3f81111111111111
DATA expp<>+248(SB)/8, $0x3f81111111111111
DATA expp<>+256(SB)/8, $0x3fa5555555555555
DATA expp<>+264(SB)/8, $0x3fa5555555555555
DATA expp<>+272(SB)/8, $0x3fa5555555555555
DATA expp<>+280(SB)/8, $0x3fa5555555555555
DATA expp<>+288(SB)/8, $0x3fc5555555555555
DATA expp<>+296(SB)/8, $0x3fc5555555555555
DATA expp<>+304(SB)/8, $0x3fc5555555555555
DATA expp<>+312(SB)/8, $0x3fc5555555555555
DATA expp<>+320(SB)/8, $0x3fe0000000000000
DATA expp<>+328(SB)/8, $0x3fe0000000000000
DATA expp<>+336(SB)/8, $0x3fe0000000000000
DATA expp<>+344(SB)/8, $0x3fe0000000000000
DATA expp<>+352(SB)/8, $0x3ff0000000000000
DATA expp<>+360(SB)/8, $0x3ff0000000000000
DATA expp<>+368(SB)/8, $0x3ff0000000000000
DATA expp<>+376(SB)/8, $0x3ff0000000000000
DATA expp<>+384(SB)/8, $0x3ff0000000000000
DATA expp<>+392(SB)/8, $0x3ff0000000000000
DATA expp<>+400(SB)/8, $0x3ff0000000000000
DATA expp<>+408(SB)/8, $0x3ff0000000000000
GLOBL expp<>(SB), RODATA|NOPTR, $416

// func expNegFMA(x *float64, n int, nc float64)
//
// x[i] ← exp(−nc·x[i]) for i < n, n a multiple of 4: the operations of
// expNeg, four lanes at a time.
TEXT ·expNegFMA(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $2, CX
	JZ   expdone
	VBROADCASTSD nc+16(FP), Y15
	VBROADCASTSD expc<>+0(SB), Y14
	VBROADCASTSD expc<>+8(SB), Y13
	VBROADCASTSD expc<>+16(SB), Y12
	VBROADCASTSD expc<>+24(SB), Y11
	VBROADCASTSD expc<>+32(SB), Y10
	VBROADCASTSD expc<>+40(SB), Y9

exploop:
	VMULPD      (SI), Y15, Y0
	VCMPPD      $14, Y10, Y0, Y6
	VMINPD      Y10, Y0, Y1
	VMOVAPD     Y1, Y2
	VFMADD213PD Y13, Y14, Y2
	VPSUBQ      Y13, Y2, Y3
	VSUBPD      Y13, Y2, Y2
	VMOVAPD     Y1, Y4
	VFMSUB231PD Y12, Y2, Y4
	VFMADD231PD Y11, Y2, Y4
	VMOVAPD     Y9, Y5
	VFMADD213PD expp<>+0(SB), Y4, Y5
	VFMADD213PD expp<>+32(SB), Y4, Y5
	VFMADD213PD expp<>+64(SB), Y4, Y5
	VFMADD213PD expp<>+96(SB), Y4, Y5
	VFMADD213PD expp<>+128(SB), Y4, Y5
	VFMADD213PD expp<>+160(SB), Y4, Y5
	VFMADD213PD expp<>+192(SB), Y4, Y5
	VFMADD213PD expp<>+224(SB), Y4, Y5
	VFMADD213PD expp<>+256(SB), Y4, Y5
	VFMADD213PD expp<>+288(SB), Y4, Y5
	VFMADD213PD expp<>+320(SB), Y4, Y5
	VFMADD213PD expp<>+352(SB), Y4, Y5
	VFMADD213PD expp<>+384(SB), Y4, Y5
	VPSLLQ      $52, Y3, Y3
	VPSUBQ      Y3, Y5, Y5
	VANDNPD     Y5, Y6, Y5
	VMOVUPD     Y5, (SI)
	ADDQ        $32, SI
	DECQ        CX
	JNZ         exploop

expdone:
	VZEROUPPER
	RET

// colmask<> holds, for r = 1, 2, 3 at offset 32·r, the VMASKMOVPD mask of
// the first r lanes.
DATA colmask<>+0(SB)/8, $0
DATA colmask<>+8(SB)/8, $0
DATA colmask<>+16(SB)/8, $0
DATA colmask<>+24(SB)/8, $0
DATA colmask<>+32(SB)/8, $-1
DATA colmask<>+40(SB)/8, $0
DATA colmask<>+48(SB)/8, $0
DATA colmask<>+56(SB)/8, $0
DATA colmask<>+64(SB)/8, $-1
DATA colmask<>+72(SB)/8, $-1
DATA colmask<>+80(SB)/8, $0
DATA colmask<>+88(SB)/8, $0
DATA colmask<>+96(SB)/8, $-1
DATA colmask<>+104(SB)/8, $-1
DATA colmask<>+112(SB)/8, $-1
DATA colmask<>+120(SB)/8, $0
GLOBL colmask<>(SB), RODATA|NOPTR, $128

// func mul4xr(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, r int)
//
// mul4x4 for the first r < 4 columns: B is read and C written through a
// lane mask, so no memory beyond the r columns is touched; the masked-off
// lanes accumulate zeros.
TEXT ·mul4xr(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	VBROADCASTSD alpha+8(FP), Y15
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $3, R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	SHLQ $3, R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $3, R10
	MOVQ r+64(FP), R12
	SHLQ $5, R12
	LEAQ colmask<>(SB), R13
	VMOVUPD (R13)(R12*1), Y14
	LEAQ (R8)(R8*2), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y2, Y2, Y2
	VXORPD Y4, Y4, Y4
	VXORPD Y6, Y6, Y6

loopr:
	VMASKMOVPD   (DI), Y14, Y8
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VBROADCASTSD (SI)(R8*1), Y11
	VFMADD231PD  Y8, Y11, Y2
	VBROADCASTSD (SI)(R8*2), Y12
	VFMADD231PD  Y8, Y12, Y4
	VBROADCASTSD (SI)(R11*1), Y13
	VFMADD231PD  Y8, Y13, Y6
	ADDQ         $8, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loopr

	VMULPD     Y15, Y0, Y0
	VMULPD     Y15, Y2, Y2
	VMULPD     Y15, Y4, Y4
	VMULPD     Y15, Y6, Y6
	VMASKMOVPD Y0, Y14, (DX)
	VMASKMOVPD Y2, Y14, (DX)(R10*1)
	LEAQ       (DX)(R10*2), DX
	VMASKMOVPD Y4, Y14, (DX)
	VMASKMOVPD Y6, Y14, (DX)(R10*1)
	VZEROUPPER
	RET

// func adagradAVX(xp, gp, hp *float64, n int, eps, alpha, oma, fudge float64, first int)
//
// The operations of AdaGrad's loop, four lanes at a time: Y15 = ε,
// Y14 = α, Y13 = 1−α, Y12 = f.
TEXT ·adagradAVX(SB), NOSPLIT, $0-72
	MOVQ xp+0(FP), DI
	MOVQ gp+8(FP), SI
	MOVQ hp+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JZ   agdone
	VBROADCASTSD eps+32(FP), Y15
	VBROADCASTSD alpha+40(FP), Y14
	VBROADCASTSD oma+48(FP), Y13
	VBROADCASTSD fudge+56(FP), Y12
	MOVQ first+64(FP), AX
	TESTQ AX, AX
	JZ   agloop

agfirst:
	VMOVUPD (SI), Y0
	VMULPD  Y0, Y0, Y1
	VMOVUPD Y1, (DX)
	VSQRTPD Y1, Y3
	VADDPD  Y12, Y3, Y3
	VMULPD  Y0, Y15, Y4
	VDIVPD  Y3, Y4, Y4
	VADDPD  (DI), Y4, Y4
	VMOVUPD Y4, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     agfirst
	JMP     agdone

agloop:
	VMOVUPD (SI), Y0
	VMULPD  (DX), Y14, Y1
	VMULPD  Y0, Y13, Y2
	VMULPD  Y0, Y2, Y2
	VADDPD  Y2, Y1, Y1
	VMOVUPD Y1, (DX)
	VSQRTPD Y1, Y3
	VADDPD  Y12, Y3, Y3
	VMULPD  Y0, Y15, Y4
	VDIVPD  Y3, Y4, Y4
	VADDPD  (DI), Y4, Y4
	VMOVUPD Y4, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     agloop

agdone:
	VZEROUPPER
	RET

// func sqDistAVX(a, b *float64, n int, s *[16]float64)
TEXT ·sqDistAVX(SB), NOSPLIT, $0-32
	MOVQ ap+0(FP), SI
	MOVQ bp+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ s+24(FP), DX
	SHRQ $4, CX
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3

sdloop:
	VMOVUPD (SI), Y4
	VMOVUPD 32(SI), Y5
	VMOVUPD 64(SI), Y6
	VMOVUPD 96(SI), Y7
	VSUBPD  (DI), Y4, Y4
	VSUBPD  32(DI), Y5, Y5
	VSUBPD  64(DI), Y6, Y6
	VSUBPD  96(DI), Y7, Y7
	VMULPD  Y4, Y4, Y4
	VMULPD  Y5, Y5, Y5
	VMULPD  Y6, Y6, Y6
	VMULPD  Y7, Y7, Y7
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	ADDQ    $128, SI
	ADDQ    $128, DI
	DECQ    CX
	JNZ     sdloop

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VZEROUPPER
	RET

// func steinAxpyAVX(dst, x, y, s *float64, n int, w, c float64)
//
// dst_j ← dst_j + (w·s_j + c·(x_j − y_j)), four at a time.
TEXT ·steinAxpyAVX(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DX
	MOVQ xp+8(FP), SI
	MOVQ yp+16(FP), DI
	MOVQ sp+24(FP), R8
	MOVQ n+32(FP), CX
	SHRQ $2, CX
	VBROADCASTSD w+40(FP), Y15
	VBROADCASTSD c+48(FP), Y14

saloop:
	VMOVUPD (SI), Y0
	VSUBPD  (DI), Y0, Y0
	VMULPD  Y0, Y14, Y0
	VMULPD  (R8), Y15, Y1
	VADDPD  Y0, Y1, Y1
	VADDPD  (DX), Y1, Y1
	VMOVUPD Y1, (DX)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, R8
	ADDQ    $32, DX
	DECQ    CX
	JNZ     saloop
	VZEROUPPER
	RET

// func reluRows4AVX(a *float64, lda int, b1, w2 *float64, h4 int, f *float64)
//
// Four rows at SI, R9, R10, R11; per step of four units: a ← a + b1, the
// sign-bit blend to +0, the store, the products with w2; then a 4×4
// transpose turns the products of unit k of the four rows into one vector,
// added to the four sums in the order of k.
TEXT ·reluRows4AVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	MOVQ b1+16(FP), DX
	MOVQ w2+24(FP), DI
	MOVQ h4+32(FP), CX
	MOVQ f+40(FP), AX
	SHLQ $3, R8
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	SHRQ $2, CX
	XORQ BX, BX
	VXORPD  Y14, Y14, Y14
	VMOVUPD (AX), Y12

rfloop:
	VMOVUPD    (DX)(BX*1), Y13
	VMOVUPD    (DI)(BX*1), Y11
	VADDPD     (SI)(BX*1), Y13, Y0
	VADDPD     (R9)(BX*1), Y13, Y1
	VADDPD     (R10)(BX*1), Y13, Y2
	VADDPD     (R11)(BX*1), Y13, Y3
	VBLENDVPD  Y0, Y14, Y0, Y0
	VBLENDVPD  Y1, Y14, Y1, Y1
	VBLENDVPD  Y2, Y14, Y2, Y2
	VBLENDVPD  Y3, Y14, Y3, Y3
	VMOVUPD    Y0, (SI)(BX*1)
	VMOVUPD    Y1, (R9)(BX*1)
	VMOVUPD    Y2, (R10)(BX*1)
	VMOVUPD    Y3, (R11)(BX*1)
	VMULPD     Y11, Y0, Y0
	VMULPD     Y11, Y1, Y1
	VMULPD     Y11, Y2, Y2
	VMULPD     Y11, Y3, Y3
	VUNPCKLPD  Y1, Y0, Y4
	VUNPCKHPD  Y1, Y0, Y5
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3
	VADDPD     Y0, Y12, Y12
	VADDPD     Y1, Y12, Y12
	VADDPD     Y2, Y12, Y12
	VADDPD     Y3, Y12, Y12
	ADDQ       $32, BX
	DECQ       CX
	JNZ        rfloop

	VMOVUPD Y12, (AX)
	VZEROUPPER
	RET

// func reluBackAVX(a *float64, lda, rows int, res, w2, gw2, gb1 *float64, h4 int)
//
// Row by row, four units at a time: gw2 += r·a; d = r·w2 and-not
// (a's bits == 0); a ← d; gb1 += d.
TEXT ·reluBackAVX(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	MOVQ rows+16(FP), R12
	MOVQ res+24(FP), AX
	MOVQ w2+32(FP), DI
	MOVQ gw2+40(FP), R9
	MOVQ gb1+48(FP), R10
	MOVQ h4+56(FP), R11
	SHLQ $3, R8
	SHRQ $2, R11
	VXORPD Y14, Y14, Y14

rbrow:
	VBROADCASTSD (AX), Y15
	MOVQ         R11, CX
	XORQ         BX, BX

rbloop:
	VMOVUPD  (SI)(BX*1), Y0
	VMULPD   Y0, Y15, Y1
	VADDPD   (R9)(BX*1), Y1, Y1
	VMOVUPD  Y1, (R9)(BX*1)
	VMULPD   (DI)(BX*1), Y15, Y2
	VPCMPEQQ Y14, Y0, Y3
	VANDNPD  Y2, Y3, Y4
	VMOVUPD  Y4, (SI)(BX*1)
	VADDPD   (R10)(BX*1), Y4, Y4
	VMOVUPD  Y4, (R10)(BX*1)
	ADDQ     $32, BX
	DECQ     CX
	JNZ      rbloop

	ADDQ $8, AX
	ADDQ R8, SI
	DECQ R12
	JNZ  rbrow
	VZEROUPPER
	RET

// func reluBack12AVX(a *float64, lda, rows int, res, w2, gw2, gb1 *float64)
//
// reluBackAVX on 12 units with the sums of gw2 (Y0–Y2) and gb1 (Y3–Y5)
// and w2 (Y6–Y8) in registers across the rows.
TEXT ·reluBack12AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	MOVQ rows+16(FP), R12
	MOVQ res+24(FP), AX
	MOVQ w2+32(FP), DI
	MOVQ gw2+40(FP), R9
	MOVQ gb1+48(FP), R10
	SHLQ $3, R8
	VXORPD  Y14, Y14, Y14
	VMOVUPD (R9), Y0
	VMOVUPD 32(R9), Y1
	VMOVUPD 64(R9), Y2
	VMOVUPD (R10), Y3
	VMOVUPD 32(R10), Y4
	VMOVUPD 64(R10), Y5
	VMOVUPD (DI), Y6
	VMOVUPD 32(DI), Y7
	VMOVUPD 64(DI), Y8

r12row:
	VBROADCASTSD (AX), Y15
	VMOVUPD      (SI), Y9
	VMOVUPD      32(SI), Y10
	VMOVUPD      64(SI), Y11
	VMULPD       Y9, Y15, Y12
	VADDPD       Y12, Y0, Y0
	VMULPD       Y10, Y15, Y12
	VADDPD       Y12, Y1, Y1
	VMULPD       Y11, Y15, Y12
	VADDPD       Y12, Y2, Y2
	VPCMPEQQ     Y14, Y9, Y9
	VPCMPEQQ     Y14, Y10, Y10
	VPCMPEQQ     Y14, Y11, Y11
	VMULPD       Y6, Y15, Y12
	VANDNPD      Y12, Y9, Y9
	VMULPD       Y7, Y15, Y12
	VANDNPD      Y12, Y10, Y10
	VMULPD       Y8, Y15, Y12
	VANDNPD      Y12, Y11, Y11
	VMOVUPD      Y9, (SI)
	VMOVUPD      Y10, 32(SI)
	VMOVUPD      Y11, 64(SI)
	VADDPD       Y9, Y3, Y3
	VADDPD       Y10, Y4, Y4
	VADDPD       Y11, Y5, Y5
	ADDQ         $8, AX
	ADDQ         R8, SI
	DECQ         R12
	JNZ          r12row

	VMOVUPD Y0, (R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y3, (R10)
	VMOVUPD Y4, 32(R10)
	VMOVUPD Y5, 64(R10)
	VZEROUPPER
	RET

// func expNeg512(x *float64, n int, nc float64)
//
// x[i] ← exp(−nc·x[i]) for i < n (n ≥ 1): the operations of expNeg, eight
// lanes at a time with AVX-512; the last n mod 8 values are loaded and
// stored through a lane mask (the other lanes compute exp(0) and are
// dropped). The constants live in Z16–Z31.
TEXT ·expNeg512(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD nc+16(FP), Z15
	VBROADCASTSD expc<>+0(SB), Z14
	VBROADCASTSD expc<>+8(SB), Z13
	VBROADCASTSD expc<>+16(SB), Z12
	VBROADCASTSD expc<>+24(SB), Z11
	VBROADCASTSD expc<>+32(SB), Z10
	VBROADCASTSD expc<>+40(SB), Z9
	VBROADCASTSD expp<>+0(SB), Z16
	VBROADCASTSD expp<>+32(SB), Z17
	VBROADCASTSD expp<>+64(SB), Z18
	VBROADCASTSD expp<>+96(SB), Z19
	VBROADCASTSD expp<>+128(SB), Z20
	VBROADCASTSD expp<>+160(SB), Z21
	VBROADCASTSD expp<>+192(SB), Z22
	VBROADCASTSD expp<>+224(SB), Z23
	VBROADCASTSD expp<>+256(SB), Z24
	VBROADCASTSD expp<>+288(SB), Z25
	VBROADCASTSD expp<>+320(SB), Z26
	VBROADCASTSD expp<>+352(SB), Z27
	VBROADCASTSD expp<>+384(SB), Z28
	MOVQ $0xff, AX
	KMOVW AX, K1

e512loop:
	CMPQ CX, $8
	JGE  e512full
	TESTQ CX, CX
	JZ   e512done
	// The tail: the first CX lanes.
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ $8, CX

e512full:
	VMOVUPD.Z   (SI), K1, Z7
	VMULPD      Z7, Z15, Z0
	VCMPPD      $14, Z10, Z0, K2
	VMINPD      Z10, Z0, Z1
	VMOVAPD     Z1, Z2
	VFMADD213PD Z13, Z14, Z2
	VPSUBQ      Z13, Z2, Z3
	VSUBPD      Z13, Z2, Z2
	VMOVAPD     Z1, Z4
	VFMSUB231PD Z12, Z2, Z4
	VFMADD231PD Z11, Z2, Z4
	VMOVAPD     Z9, Z5
	VFMADD213PD Z16, Z4, Z5
	VFMADD213PD Z17, Z4, Z5
	VFMADD213PD Z18, Z4, Z5
	VFMADD213PD Z19, Z4, Z5
	VFMADD213PD Z20, Z4, Z5
	VFMADD213PD Z21, Z4, Z5
	VFMADD213PD Z22, Z4, Z5
	VFMADD213PD Z23, Z4, Z5
	VFMADD213PD Z24, Z4, Z5
	VFMADD213PD Z25, Z4, Z5
	VFMADD213PD Z26, Z4, Z5
	VFMADD213PD Z27, Z4, Z5
	VFMADD213PD Z28, Z4, Z5
	VPSLLQ      $52, Z3, Z3
	VPSUBQ      Z3, Z5, Z5
	VXORPD      Z5, Z5, K2, Z5
	VMOVUPD     Z5, K1, (SI)
	ADDQ        $64, SI
	SUBQ        $8, CX
	JMP         e512loop

e512done:
	VZEROUPPER
	RET
