//go:build amd64 && !noasm

#include "textflag.h"

DATA awayIota<>+0(SB)/8, $0
DATA awayIota<>+8(SB)/8, $1
DATA awayIota<>+16(SB)/8, $2
DATA awayIota<>+24(SB)/8, $3
GLOBL awayIota<>(SB), RODATA|NOPTR, $32

DATA awayFour<>+0(SB)/8, $4
GLOBL awayFour<>(SB), RODATA|NOPTR, $8

// LOAD4 loads base[AX], base[BX], base[DX] and base[DI] into the four
// lanes of Y (lane 0 first), through X (Y's low half) and X0.
#define LOAD4(base, X, Y) \
	VMOVSD      (base)(AX*8), X; \
	VMOVHPD     (base)(BX*8), X, X; \
	VMOVSD      (base)(DX*8), X0; \
	VMOVHPD     (base)(DI*8), X0, X0; \
	VINSERTF128 $1, X0, Y, Y

// LANES4 applies op (VADDSD or VSUBSD) to acc and each lane of Y9 in turn,
// lane 0 first, through X0; it leaves Y9's upper half in X9.
#define LANES4(op, acc) \
	op           X9, acc, acc; \
	VPERMILPD    $1, X9, X0; \
	op           X0, acc, acc; \
	VEXTRACTF128 $1, Y9, X9; \
	op           X9, acc, acc; \
	VPERMILPD    $1, X9, X0; \
	op           X0, acc, acc

// func awayScanAVX(sup *int, n, m int, wp, gp, bp, dp, qp *float64, gmin, qss float64, out *[10]float64) (ok bool)
//
// Four entries of sup at a time: w, g, b, diag and qs loaded at them
// (two halves of a vector each); the terms w·g and w·b added to wg (X8)
// and taken from wb (X7) one lane after the other, lane 0 first, as the
// serial loop does; the decrease by AwayScan's formula with the serial
// loop's roundings (no FMA; 2x as x + x, which is exact); per lane the
// first largest decrease above the lane's best so far (Y11, from 0) among
// g > gmin, by VCMPPD GT_OQ (NaN false), with its place in sup (Y10, from
// −1). n a multiple of 4, n ≥ 4. It returns false, at once, at the first
// group with an index not below m (unsigned).
TEXT ·awayScanAVX(SB), NOSPLIT, $0-89
	MOVQ sup+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ wp+24(FP), R9
	MOVQ gp+32(FP), R10
	MOVQ bp+40(FP), R11
	MOVQ dp+48(FP), R12
	MOVQ qp+56(FP), R13
	VBROADCASTSD gmin+64(FP), Y15
	VBROADCASTSD qss+72(FP), Y14
	MOVQ out+80(FP), R8
	SHRQ $2, CX
	VMOVDQU awayIota<>(SB), Y13
	VPBROADCASTQ awayFour<>(SB), Y12
	VXORPD Y11, Y11, Y11
	VPCMPEQQ Y10, Y10, Y10
	VXORPD X8, X8, X8
	VXORPD X7, X7, X7

awayloop:
	MOVQ 0(SI), AX
	MOVQ 8(SI), BX
	MOVQ 16(SI), DX
	MOVQ 24(SI), DI
	CMPQ AX, m+16(FP)
	JAE  awaybad
	CMPQ BX, m+16(FP)
	JAE  awaybad
	CMPQ DX, m+16(FP)
	JAE  awaybad
	CMPQ DI, m+16(FP)
	JAE  awaybad
	LOAD4(R9, X2, Y2)
	LOAD4(R10, X3, Y3)
	LOAD4(R11, X4, Y4)
	LOAD4(R12, X5, Y5)
	LOAD4(R13, X6, Y6)

	// wg += w·g and wb −= w·b, lane by lane.
	VMULPD Y3, Y2, Y9
	LANES4(VADDSD, X8)
	VMULPD Y4, Y2, Y9
	LANES4(VSUBSD, X7)

	VCMPPD $0x1e, Y15, Y3, Y4 // g > gmin
	VSUBPD Y15, Y3, Y3        // dg = g − gmin
	VADDPD Y14, Y5, Y5        // diag + qss
	VADDPD Y6, Y6, Y6         // 2 qs
	VSUBPD Y6, Y5, Y5         // k
	VADDPD Y2, Y2, Y6         // 2w
	VMULPD Y3, Y6, Y6         // dec0 = 2w·dg
	VMULPD Y5, Y2, Y1         // w·k
	VCMPPD $0x11, Y1, Y3, Y1  // dg < w·k
	VMULPD Y3, Y3, Y9
	VDIVPD Y5, Y9, Y9         // dg²/k
	VMULPD Y2, Y2, Y0
	VMULPD Y5, Y0, Y0
	VSUBPD Y0, Y6, Y0         // dec0 − w²·k
	VBLENDVPD Y1, Y9, Y0, Y0
	VXORPD Y9, Y9, Y9
	VCMPPD $0x1e, Y9, Y5, Y1  // k > 0
	VBLENDVPD Y1, Y0, Y6, Y0  // dec
	VCMPPD $0x1e, Y11, Y0, Y1 // dec > best
	VANDPD Y4, Y1, Y1
	VBLENDVPD Y1, Y0, Y11, Y11
	VBLENDVPD Y1, Y13, Y10, Y10
	VPADDQ Y12, Y13, Y13

	ADDQ $32, SI
	DECQ CX
	JNZ  awayloop

	VMOVSD X8, (R8)
	VMOVSD X7, 8(R8)
	VMOVUPD Y11, 16(R8)
	VMOVDQU Y10, 48(R8)
	VZEROUPPER
	MOVB $1, ok+88(FP)
	RET

awaybad:
	VZEROUPPER
	MOVB $0, ok+88(FP)
	RET
