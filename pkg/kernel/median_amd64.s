//go:build amd64 && !noasm

#include "textflag.h"

// func bracket512(dst, src *float64, n int, lo, hi float64) (kept, ge, nonneg int)
//
// The pass of medianBracketed over one row with AVX-512, eight values at a
// time (the last n mod 8 through a lane mask): the values v of src with
// lo ≤ v ≤ hi are stored in order at dst (VCOMPRESSPD), and the counts of
// kept values, of values ≥ lo and of values ≥ 0 (NaN counts in none) are
// returned.
TEXT ·bracket512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD lo+24(FP), Z1
	VBROADCASTSD hi+32(FP), Z2
	VPXORQ Z3, Z3, Z3
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	MOVQ $0xff, AX
	KMOVW AX, K7

brloop:
	CMPQ CX, $8
	JGE  brfull
	TESTQ CX, CX
	JZ   brdone
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K7
	MOVQ $8, CX

brfull:
	VMOVUPD.Z   (SI), K7, Z0
	VCMPPD      $13, Z1, Z0, K7, K1
	VCMPPD      $2, Z2, Z0, K1, K4
	VCMPPD      $13, Z3, Z0, K7, K3
	VCOMPRESSPD Z0, K4, (DI)
	KMOVW       K4, AX
	POPCNTL     AX, AX
	LEAQ        (DI)(AX*8), DI
	ADDQ        AX, R8
	KMOVW       K1, AX
	POPCNTL     AX, AX
	ADDQ        AX, R9
	KMOVW       K3, AX
	POPCNTL     AX, AX
	ADDQ        AX, R10
	ADDQ        $64, SI
	SUBQ        $8, CX
	JMP         brloop

brdone:
	MOVQ R8, kept+40(FP)
	MOVQ R9, ge+48(FP)
	MOVQ R10, nonneg+56(FP)
	VZEROUPPER
	RET
