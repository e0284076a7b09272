//go:build amd64 && !noasm

#include "textflag.h"

DATA argminIota<>+0(SB)/8, $0
DATA argminIota<>+8(SB)/8, $1
DATA argminIota<>+16(SB)/8, $2
DATA argminIota<>+24(SB)/8, $3
GLOBL argminIota<>(SB), RODATA|NOPTR, $32

DATA argminFour<>+0(SB)/8, $4
GLOBL argminFour<>(SB), RODATA|NOPTR, $8

DATA argminInf<>+0(SB)/8, $0x7ff0000000000000
GLOBL argminInf<>(SB), RODATA|NOPTR, $8

DATA argminNegInf<>+0(SB)/8, $0xfff0000000000000
GLOBL argminNegInf<>(SB), RODATA|NOPTR, $8

// func diffArgminAVX(gp, ap, bp *float64, n int, gamma float64, lanes *[16]float64)
//
// g ← g + γ(a − b) four at a time (VSUBPD, VMULPD, VADDPD: three roundings,
// as the scalar loop); per lane the first minimum (Y10, index Y12) by
// VCMPPD LT_OQ and the first maximum (Y11, index Y9) by GT_OQ, NaN false;
// n a multiple of 4, n ≥ 4. lanes gets the minima, their indices (as
// int64 bits), the maxima and their indices.
TEXT ·diffArgminAVX(SB), NOSPLIT, $0-48
	MOVQ gp+0(FP), DI
	MOVQ ap+8(FP), SI
	MOVQ bp+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD gamma+32(FP), Y15
	MOVQ lanes+40(FP), R8
	SHRQ $2, CX
	VBROADCASTSD argminInf<>(SB), Y10
	VBROADCASTSD argminNegInf<>(SB), Y11
	VPXOR Y12, Y12, Y12
	VPXOR Y9, Y9, Y9
	VMOVDQU argminIota<>(SB), Y13
	VPBROADCASTQ argminFour<>(SB), Y14

daloop:
	VMOVUPD (SI), Y0
	VSUBPD  (DX), Y0, Y0
	VMULPD  Y0, Y15, Y0
	VADDPD  (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	VCMPPD  $0x11, Y10, Y0, Y1
	VBLENDVPD Y1, Y0, Y10, Y10
	VBLENDVPD Y1, Y13, Y12, Y12
	VCMPPD  $0x1e, Y11, Y0, Y2
	VBLENDVPD Y2, Y0, Y11, Y11
	VBLENDVPD Y2, Y13, Y9, Y9
	VPADDQ  Y14, Y13, Y13
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     daloop

	VMOVUPD Y10, (R8)
	VMOVDQU Y12, 32(R8)
	VMOVUPD Y11, 64(R8)
	VMOVDQU Y9, 96(R8)
	VZEROUPPER
	RET
