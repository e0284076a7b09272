//go:build amd64 && !noasm

#include "textflag.h"

// func mul4x16(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, mask int)
//
// The 4×16 block of C at c (row stride ldc) set to α times the product of
// the 4×k block of A at a and the k×16 block of B at b, with AVX-512: eight
// accumulators Z0–Z7 (two 8-lane vectors per row); per step l, two vectors
// of B's row l are multiplied by the four broadcast A_il and added with
// one rounding each (VFMADD231PD), as math.FMA does in the portable loop.
// Bit c of mask (16 bits) enables column c: B is loaded with the lanes of
// disabled columns zeroed and never read there, and C is stored through
// the mask, so the columns beyond a tail are not touched.
TEXT ·mul4x16(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	VBROADCASTSD alpha+8(FP), Z15
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $3, R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	SHLQ $3, R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $3, R10
	MOVQ mask+64(FP), AX
	KMOVW AX, K1
	KSHIFTRW $8, K1, K2
	LEAQ (R8)(R8*2), R11
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

loop16:
	VMOVUPD.Z    (DI), K1, Z8
	VMOVUPD.Z    64(DI), K2, Z9
	VBROADCASTSD (SI), Z10
	VFMADD231PD  Z8, Z10, Z0
	VFMADD231PD  Z9, Z10, Z1
	VBROADCASTSD (SI)(R8*1), Z11
	VFMADD231PD  Z8, Z11, Z2
	VFMADD231PD  Z9, Z11, Z3
	VBROADCASTSD (SI)(R8*2), Z12
	VFMADD231PD  Z8, Z12, Z4
	VFMADD231PD  Z9, Z12, Z5
	VBROADCASTSD (SI)(R11*1), Z13
	VFMADD231PD  Z8, Z13, Z6
	VFMADD231PD  Z9, Z13, Z7
	ADDQ         $8, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop16

	VMULPD  Z15, Z0, Z0
	VMULPD  Z15, Z1, Z1
	VMULPD  Z15, Z2, Z2
	VMULPD  Z15, Z3, Z3
	VMULPD  Z15, Z4, Z4
	VMULPD  Z15, Z5, Z5
	VMULPD  Z15, Z6, Z6
	VMULPD  Z15, Z7, Z7
	VMOVUPD Z0, K1, (DX)
	VMOVUPD Z1, K2, 64(DX)
	VMOVUPD Z2, K1, (DX)(R10*1)
	VMOVUPD Z3, K2, 64(DX)(R10*1)
	LEAQ    (DX)(R10*2), DX
	VMOVUPD Z4, K1, (DX)
	VMOVUPD Z5, K2, 64(DX)
	VMOVUPD Z6, K1, (DX)(R10*1)
	VMOVUPD Z7, K2, 64(DX)(R10*1)
	VZEROUPPER
	RET

// func mul8x16(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, mask int)
//
// mul4x16 for an 8×16 block of C: sixteen accumulators Z0–Z15, so that a
// row of B loaded once serves eight rows of A; every element is the same
// chain of fused multiply-adds in the order of l, then α·s.
TEXT ·mul8x16(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	VBROADCASTSD alpha+8(FP), Z31
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $3, R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	SHLQ $3, R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $3, R10
	MOVQ mask+64(FP), AX
	KMOVW AX, K1
	KSHIFTRW $8, K1, K2
	LEAQ (R8)(R8*2), R11
	LEAQ (SI)(R8*4), R12
	LEAQ (R10)(R10*2), R13
	LEAQ (DX)(R10*4), R14
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15

loop8x16:
	VMOVUPD.Z    (DI), K1, Z16
	VMOVUPD.Z    64(DI), K2, Z17
	VBROADCASTSD (SI), Z18
	VFMADD231PD  Z16, Z18, Z0
	VFMADD231PD  Z17, Z18, Z1
	VBROADCASTSD (SI)(R8*1), Z19
	VFMADD231PD  Z16, Z19, Z2
	VFMADD231PD  Z17, Z19, Z3
	VBROADCASTSD (SI)(R8*2), Z20
	VFMADD231PD  Z16, Z20, Z4
	VFMADD231PD  Z17, Z20, Z5
	VBROADCASTSD (SI)(R11*1), Z21
	VFMADD231PD  Z16, Z21, Z6
	VFMADD231PD  Z17, Z21, Z7
	VBROADCASTSD (R12), Z22
	VFMADD231PD  Z16, Z22, Z8
	VFMADD231PD  Z17, Z22, Z9
	VBROADCASTSD (R12)(R8*1), Z23
	VFMADD231PD  Z16, Z23, Z10
	VFMADD231PD  Z17, Z23, Z11
	VBROADCASTSD (R12)(R8*2), Z24
	VFMADD231PD  Z16, Z24, Z12
	VFMADD231PD  Z17, Z24, Z13
	VBROADCASTSD (R12)(R11*1), Z25
	VFMADD231PD  Z16, Z25, Z14
	VFMADD231PD  Z17, Z25, Z15
	ADDQ         $8, SI
	ADDQ         $8, R12
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop8x16

	VMULPD  Z31, Z0, Z0
	VMULPD  Z31, Z1, Z1
	VMULPD  Z31, Z2, Z2
	VMULPD  Z31, Z3, Z3
	VMULPD  Z31, Z4, Z4
	VMULPD  Z31, Z5, Z5
	VMULPD  Z31, Z6, Z6
	VMULPD  Z31, Z7, Z7
	VMULPD  Z31, Z8, Z8
	VMULPD  Z31, Z9, Z9
	VMULPD  Z31, Z10, Z10
	VMULPD  Z31, Z11, Z11
	VMULPD  Z31, Z12, Z12
	VMULPD  Z31, Z13, Z13
	VMULPD  Z31, Z14, Z14
	VMULPD  Z31, Z15, Z15
	VMOVUPD Z0, K1, (DX)
	VMOVUPD Z1, K2, 64(DX)
	VMOVUPD Z2, K1, (DX)(R10*1)
	VMOVUPD Z3, K2, 64(DX)(R10*1)
	VMOVUPD Z4, K1, (DX)(R10*2)
	VMOVUPD Z5, K2, 64(DX)(R10*2)
	VMOVUPD Z6, K1, (DX)(R13*1)
	VMOVUPD Z7, K2, 64(DX)(R13*1)
	VMOVUPD Z8, K1, (R14)
	VMOVUPD Z9, K2, 64(R14)
	VMOVUPD Z10, K1, (R14)(R10*1)
	VMOVUPD Z11, K2, 64(R14)(R10*1)
	VMOVUPD Z12, K1, (R14)(R10*2)
	VMOVUPD Z13, K2, 64(R14)(R10*2)
	VMOVUPD Z14, K1, (R14)(R13*1)
	VMOVUPD Z15, K2, 64(R14)(R13*1)
	VZEROUPPER
	RET

// func subScaled512(dst, s, x *float64, n int, c float64)
//
// dst[i] = s[i] − c·x[i] for i < n (n ≥ 1): VMULPD then VSUBPD, eight lanes
// at a time, the last n mod 8 through a lane mask.
TEXT ·subScaled512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DX
	MOVQ s+8(FP), SI
	MOVQ x+16(FP), DI
	MOVQ n+24(FP), CX
	VBROADCASTSD c+32(FP), Z15
	MOVQ $0xff, AX
	KMOVW AX, K1

ssloop:
	CMPQ CX, $8
	JGE  ssfull
	TESTQ CX, CX
	JZ   ssdone
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ $8, CX

ssfull:
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (SI), K1, Z1
	VMULPD    Z0, Z15, Z0
	VSUBPD    Z0, Z1, Z1
	VMOVUPD   Z1, K1, (DX)
	ADDQ      $64, DX
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JMP       ssloop

ssdone:
	VZEROUPPER
	RET
