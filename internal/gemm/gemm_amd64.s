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
