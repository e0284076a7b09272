//go:build amd64 && !noasm

#include "textflag.h"

// func affineAVX(a, b, w *float64, ws int, x *float64, p, n int)
//
// a[k] = (…((b[k] + x[0]·w[k]) + x[1]·w[ws+k]) + …) + x[p−1]·w[(p−1)·ws+k]
// for k < n (n a multiple of 4): every product rounded, then added (VMULPD,
// VADDPD; no FMA), in the order of p calls of floats.AddScaled. Sixteen
// columns at a time keep four independent sums in registers across the p
// rows of w, then four.
TEXT ·affineAVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ ws+24(FP), R9
	SHLQ $3, R9
	MOVQ x+32(FP), R10
	MOVQ p+40(FP), R11
	MOVQ n+48(FP), CX
	XORQ AX, AX

aff16:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $16
	JL   aff4
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMOVUPD 64(SI)(AX*8), Y2
	VMOVUPD 96(SI)(AX*8), Y3
	LEAQ (R8)(AX*8), BX
	MOVQ R10, R12
	MOVQ R11, R13

aff16j:
	TESTQ R13, R13
	JZ    aff16st
	VBROADCASTSD (R12), Y4
	VMULPD (BX), Y4, Y5
	VMULPD 32(BX), Y4, Y6
	VMULPD 64(BX), Y4, Y7
	VMULPD 96(BX), Y4, Y8
	VADDPD Y5, Y0, Y0
	VADDPD Y6, Y1, Y1
	VADDPD Y7, Y2, Y2
	VADDPD Y8, Y3, Y3
	ADDQ R9, BX
	ADDQ $8, R12
	DECQ R13
	JMP  aff16j

aff16st:
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	JMP  aff16

aff4:
	CMPQ AX, CX
	JGE  affdone
	VMOVUPD (SI)(AX*8), Y0
	LEAQ (R8)(AX*8), BX
	MOVQ R10, R12
	MOVQ R11, R13

aff4j:
	TESTQ R13, R13
	JZ    aff4st
	VBROADCASTSD (R12), Y4
	VMULPD (BX), Y4, Y5
	VADDPD Y5, Y0, Y0
	ADDQ R9, BX
	ADDQ $8, R12
	DECQ R13
	JMP  aff4j

aff4st:
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP  aff4

affdone:
	VZEROUPPER
	RET

// func outerAddAVX(dst *float64, ds int, x *float64, p int, d *float64, n int)
//
// dst[j·ds+k] = dst[j·ds+k] + x[j]·d[k] for j < p, k < n (n a multiple of 4):
// the product rounded, then added (VMULPD, VADDPD; no FMA), as
// floats.AddScaled(dst[j·ds:j·ds+n], x[j], d[:n]).
TEXT ·outerAddAVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ds+8(FP), R9
	SHLQ $3, R9
	MOVQ x+16(FP), R10
	MOVQ p+24(FP), R11
	MOVQ d+32(FP), SI
	MOVQ n+40(FP), CX

outj:
	TESTQ R11, R11
	JZ    outdone
	VBROADCASTSD (R10), Y4
	XORQ AX, AX

out16:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $16
	JL   out4
	VMULPD (SI)(AX*8), Y4, Y0
	VMULPD 32(SI)(AX*8), Y4, Y1
	VMULPD 64(SI)(AX*8), Y4, Y2
	VMULPD 96(SI)(AX*8), Y4, Y3
	VADDPD (DI)(AX*8), Y0, Y0
	VADDPD 32(DI)(AX*8), Y1, Y1
	VADDPD 64(DI)(AX*8), Y2, Y2
	VADDPD 96(DI)(AX*8), Y3, Y3
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ $16, AX
	JMP  out16

out4:
	CMPQ AX, CX
	JGE  outnext
	VMULPD (SI)(AX*8), Y4, Y0
	VADDPD (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP  out4

outnext:
	ADDQ R9, DI
	ADDQ $8, R10
	DECQ R11
	JMP  outj

outdone:
	VZEROUPPER
	RET
