//go:build amd64 && !noasm

#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// tailmask<> holds, for r = cols mod 4, the VMASKMOVPD mask of the r
// columns after the last whole group of four.
DATA tailmask<>+0(SB)/8, $0
DATA tailmask<>+8(SB)/8, $0
DATA tailmask<>+16(SB)/8, $0
DATA tailmask<>+24(SB)/8, $0
DATA tailmask<>+32(SB)/8, $-1
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
DATA tailmask<>+64(SB)/8, $-1
DATA tailmask<>+72(SB)/8, $-1
DATA tailmask<>+80(SB)/8, $0
DATA tailmask<>+88(SB)/8, $0
DATA tailmask<>+96(SB)/8, $-1
DATA tailmask<>+104(SB)/8, $-1
DATA tailmask<>+112(SB)/8, $-1
DATA tailmask<>+120(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $128

// func dotRowsFMA(x *float64, stride, rows, cols int, w *float64, z *float64)
//
// z[r] = Σ_j x[r·stride+j]·w[j] for r < rows. Rows are read one after the
// other, in address order, with four vector accumulators per row: the
// hardware prefetchers then follow a single stream (interleaving the reads
// of several rows measured half as fast on a streaming pass), and the
// out-of-order core overlaps the independent rows. The last cols mod 4
// columns are read with a masked load, which never touches memory beyond
// the row.
TEXT ·dotRowsFMA(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $3, R8
	MOVQ rows+16(FP), DX
	MOVQ cols+24(FP), CX
	MOVQ w+32(FP), DI
	MOVQ z+40(FP), BX
	MOVQ CX, R9
	SUBQ $16, R9
	MOVQ CX, R10
	ANDQ $-4, R10
	MOVQ CX, R11
	ANDQ $3, R11
	SHLQ $5, R11
	LEAQ tailmask<>(SB), R12
	VMOVUPD (R12)(R11*1), Y15
	VMASKMOVPD (DI)(R10*8), Y15, Y14

row:
	CMPQ DX, $0
	JLE  done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

loop16:
	CMPQ AX, R9
	JG   loop4
	VMOVUPD (SI)(AX*8), Y5
	VMOVUPD 32(SI)(AX*8), Y6
	VMOVUPD 64(SI)(AX*8), Y7
	VMOVUPD 96(SI)(AX*8), Y8
	VFMADD231PD (DI)(AX*8), Y5, Y0
	VFMADD231PD 32(DI)(AX*8), Y6, Y1
	VFMADD231PD 64(DI)(AX*8), Y7, Y2
	VFMADD231PD 96(DI)(AX*8), Y8, Y3
	ADDQ $16, AX
	JMP  loop16

loop4:
	CMPQ AX, R10
	JGE  tail
	VMOVUPD (SI)(AX*8), Y5
	VFMADD231PD (DI)(AX*8), Y5, Y1
	ADDQ $4, AX
	JMP  loop4

tail:
	VMASKMOVPD (SI)(R10*8), Y15, Y5
	VFMADD231PD Y14, Y5, Y2
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X5
	VADDPD X5, X0, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, (BX)
	ADDQ R8, SI
	ADDQ $8, BX
	DECQ DX
	JMP  row

done:
	VZEROUPPER
	RET

// func axpyRowsFMA(x *float64, stride, rows, cols int, a *float64, grad *float64)
//
// grad[j] += Σ_r a[r]·x[r·stride+j] for j < cols, eight rows at a time (the
// tile is in the L1 cache), then one row at a time; the last cols mod 4
// columns use masked loads and stores.
TEXT ·axpyRowsFMA(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $3, R8
	MOVQ rows+16(FP), DX
	MOVQ cols+24(FP), CX
	MOVQ a+32(FP), BX
	MOVQ grad+40(FP), DI
	MOVQ CX, R9
	SUBQ $8, R9
	MOVQ CX, R10
	ANDQ $-4, R10
	MOVQ CX, R11
	ANDQ $3, R11
	SHLQ $5, R11
	LEAQ tailmask<>(SB), R12
	VMOVUPD (R12)(R11*1), Y7
	LEAQ (R8)(R8*2), R12

ablock8:
	CMPQ DX, $8
	JL   asingle
	VBROADCASTSD (BX), Y8
	VBROADCASTSD 8(BX), Y9
	VBROADCASTSD 16(BX), Y10
	VBROADCASTSD 24(BX), Y11
	VBROADCASTSD 32(BX), Y12
	VBROADCASTSD 40(BX), Y13
	VBROADCASTSD 48(BX), Y14
	VBROADCASTSD 56(BX), Y15
	MOVQ SI, R11
	LEAQ (SI)(R8*4), R13
	MOVQ DI, R14
	XORQ AX, AX

a8loop8:
	CMPQ AX, R9
	JG   a8tail4
	VMULPD (SI), Y8, Y0
	VMULPD 32(SI), Y8, Y1
	VMULPD (SI)(R8*1), Y9, Y2
	VMULPD 32(SI)(R8*1), Y9, Y3
	VFMADD231PD (SI)(R8*2), Y10, Y0
	VFMADD231PD 32(SI)(R8*2), Y10, Y1
	VFMADD231PD (SI)(R12*1), Y11, Y2
	VFMADD231PD 32(SI)(R12*1), Y11, Y3
	VFMADD231PD (R13), Y12, Y0
	VFMADD231PD 32(R13), Y12, Y1
	VFMADD231PD (R13)(R8*1), Y13, Y2
	VFMADD231PD 32(R13)(R8*1), Y13, Y3
	VFMADD231PD (R13)(R8*2), Y14, Y0
	VFMADD231PD 32(R13)(R8*2), Y14, Y1
	VFMADD231PD (R13)(R12*1), Y15, Y2
	VFMADD231PD 32(R13)(R12*1), Y15, Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	VADDPD (DI), Y0, Y0
	VADDPD 32(DI), Y1, Y1
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, R13
	ADDQ $64, DI
	ADDQ $8, AX
	JMP  a8loop8

a8tail4:
	CMPQ AX, R10
	JGE  a8mask
	VMULPD (SI), Y8, Y0
	VMULPD (SI)(R8*1), Y9, Y2
	VFMADD231PD (SI)(R8*2), Y10, Y0
	VFMADD231PD (SI)(R12*1), Y11, Y2
	VFMADD231PD (R13), Y12, Y0
	VFMADD231PD (R13)(R8*1), Y13, Y2
	VFMADD231PD (R13)(R8*2), Y14, Y0
	VFMADD231PD (R13)(R12*1), Y15, Y2
	VADDPD Y2, Y0, Y0
	VADDPD (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, R13
	ADDQ $32, DI
	ADDQ $4, AX

a8mask:
	CMPQ AX, CX
	JGE  a8next
	VMASKMOVPD (SI), Y7, Y4
	VMULPD Y4, Y8, Y0
	VMASKMOVPD (SI)(R8*1), Y7, Y5
	VMULPD Y5, Y9, Y2
	VMASKMOVPD (SI)(R8*2), Y7, Y4
	VFMADD231PD Y4, Y10, Y0
	VMASKMOVPD (SI)(R12*1), Y7, Y5
	VFMADD231PD Y5, Y11, Y2
	VMASKMOVPD (R13), Y7, Y4
	VFMADD231PD Y4, Y12, Y0
	VMASKMOVPD (R13)(R8*1), Y7, Y5
	VFMADD231PD Y5, Y13, Y2
	VMASKMOVPD (R13)(R8*2), Y7, Y4
	VFMADD231PD Y4, Y14, Y0
	VMASKMOVPD (R13)(R12*1), Y7, Y5
	VFMADD231PD Y5, Y15, Y2
	VADDPD Y2, Y0, Y0
	VMASKMOVPD (DI), Y7, Y4
	VADDPD Y4, Y0, Y0
	VMASKMOVPD Y0, Y7, (DI)

a8next:
	LEAQ (R11)(R8*8), SI
	MOVQ R14, DI
	ADDQ $64, BX
	SUBQ $8, DX
	JMP  ablock8

asingle:
	CMPQ DX, $0
	JLE  adone
	VBROADCASTSD (BX), Y8
	XORQ AX, AX

as4:
	CMPQ AX, R10
	JGE  asmask
	VMOVUPD (DI)(AX*8), Y0
	VFMADD231PD (SI)(AX*8), Y8, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP  as4

asmask:
	CMPQ AX, CX
	JGE  anext1
	VMASKMOVPD (SI)(AX*8), Y7, Y4
	VMASKMOVPD (DI)(AX*8), Y7, Y0
	VFMADD231PD Y4, Y8, Y0
	VMASKMOVPD Y0, Y7, (DI)(AX*8)

anext1:
	ADDQ R8, SI
	ADDQ $8, BX
	DECQ DX
	JMP  asingle

adone:
	VZEROUPPER
	RET

// Constants of sigmoidFMA, four copies each: the absolute-value mask,
// 1/ln 2, the rounding shift 1.5·2⁵², ln 2 split in a 32-bit head and a
// tail, 1, the clamp 708 and the Taylor coefficients 1/k!, k = 0…13.
DATA sigc<>+0(SB)/8, $0x7fffffffffffffff
DATA sigc<>+8(SB)/8, $0x7fffffffffffffff
DATA sigc<>+16(SB)/8, $0x7fffffffffffffff
DATA sigc<>+24(SB)/8, $0x7fffffffffffffff
DATA sigc<>+32(SB)/8, $0x3ff71547652b82fe
DATA sigc<>+40(SB)/8, $0x3ff71547652b82fe
DATA sigc<>+48(SB)/8, $0x3ff71547652b82fe
DATA sigc<>+56(SB)/8, $0x3ff71547652b82fe
DATA sigc<>+64(SB)/8, $0x4338000000000000
DATA sigc<>+72(SB)/8, $0x4338000000000000
DATA sigc<>+80(SB)/8, $0x4338000000000000
DATA sigc<>+88(SB)/8, $0x4338000000000000
DATA sigc<>+96(SB)/8, $0x3fe62e42fee00000
DATA sigc<>+104(SB)/8, $0x3fe62e42fee00000
DATA sigc<>+112(SB)/8, $0x3fe62e42fee00000
DATA sigc<>+120(SB)/8, $0x3fe62e42fee00000
DATA sigc<>+128(SB)/8, $0x3dea39ef35793c76
DATA sigc<>+136(SB)/8, $0x3dea39ef35793c76
DATA sigc<>+144(SB)/8, $0x3dea39ef35793c76
DATA sigc<>+152(SB)/8, $0x3dea39ef35793c76
DATA sigc<>+160(SB)/8, $0x3ff0000000000000
DATA sigc<>+168(SB)/8, $0x3ff0000000000000
DATA sigc<>+176(SB)/8, $0x3ff0000000000000
DATA sigc<>+184(SB)/8, $0x3ff0000000000000
DATA sigc<>+192(SB)/8, $0x4086200000000000
DATA sigc<>+200(SB)/8, $0x4086200000000000
DATA sigc<>+208(SB)/8, $0x4086200000000000
DATA sigc<>+216(SB)/8, $0x4086200000000000
DATA sigc<>+224(SB)/8, $0x3ff0000000000000
DATA sigc<>+232(SB)/8, $0x3ff0000000000000
DATA sigc<>+240(SB)/8, $0x3ff0000000000000
DATA sigc<>+248(SB)/8, $0x3ff0000000000000
DATA sigc<>+256(SB)/8, $0x3ff0000000000000
DATA sigc<>+264(SB)/8, $0x3ff0000000000000
DATA sigc<>+272(SB)/8, $0x3ff0000000000000
DATA sigc<>+280(SB)/8, $0x3ff0000000000000
DATA sigc<>+288(SB)/8, $0x3fe0000000000000
DATA sigc<>+296(SB)/8, $0x3fe0000000000000
DATA sigc<>+304(SB)/8, $0x3fe0000000000000
DATA sigc<>+312(SB)/8, $0x3fe0000000000000
DATA sigc<>+320(SB)/8, $0x3fc5555555555555
DATA sigc<>+328(SB)/8, $0x3fc5555555555555
DATA sigc<>+336(SB)/8, $0x3fc5555555555555
DATA sigc<>+344(SB)/8, $0x3fc5555555555555
DATA sigc<>+352(SB)/8, $0x3fa5555555555555
DATA sigc<>+360(SB)/8, $0x3fa5555555555555
DATA sigc<>+368(SB)/8, $0x3fa5555555555555
DATA sigc<>+376(SB)/8, $0x3fa5555555555555
DATA sigc<>+384(SB)/8, $0x3f81111111111111
DATA sigc<>+392(SB)/8, $0x3f81111111111111
DATA sigc<>+400(SB)/8, $0x3f81111111111111
DATA sigc<>+408(SB)/8, $0x3f81111111111111
DATA sigc<>+416(SB)/8, $0x3f56c16c16c16c17
DATA sigc<>+424(SB)/8, $0x3f56c16c16c16c17
DATA sigc<>+432(SB)/8, $0x3f56c16c16c16c17
DATA sigc<>+440(SB)/8, $0x3f56c16c16c16c17
DATA sigc<>+448(SB)/8, $0x3f2a01a01a01a01a
DATA sigc<>+456(SB)/8, $0x3f2a01a01a01a01a
DATA sigc<>+464(SB)/8, $0x3f2a01a01a01a01a
DATA sigc<>+472(SB)/8, $0x3f2a01a01a01a01a
DATA sigc<>+480(SB)/8, $0x3efa01a01a01a01a
DATA sigc<>+488(SB)/8, $0x3efa01a01a01a01a
DATA sigc<>+496(SB)/8, $0x3efa01a01a01a01a
DATA sigc<>+504(SB)/8, $0x3efa01a01a01a01a
DATA sigc<>+512(SB)/8, $0x3ec71de3a556c734
DATA sigc<>+520(SB)/8, $0x3ec71de3a556c734
DATA sigc<>+528(SB)/8, $0x3ec71de3a556c734
DATA sigc<>+536(SB)/8, $0x3ec71de3a556c734
DATA sigc<>+544(SB)/8, $0x3e927e4fb7789f5c
DATA sigc<>+552(SB)/8, $0x3e927e4fb7789f5c
DATA sigc<>+560(SB)/8, $0x3e927e4fb7789f5c
DATA sigc<>+568(SB)/8, $0x3e927e4fb7789f5c
DATA sigc<>+576(SB)/8, $0x3e5ae64567f544e4
DATA sigc<>+584(SB)/8, $0x3e5ae64567f544e4
DATA sigc<>+592(SB)/8, $0x3e5ae64567f544e4
DATA sigc<>+600(SB)/8, $0x3e5ae64567f544e4
DATA sigc<>+608(SB)/8, $0x3e21eed8eff8d898
DATA sigc<>+616(SB)/8, $0x3e21eed8eff8d898
DATA sigc<>+624(SB)/8, $0x3e21eed8eff8d898
DATA sigc<>+632(SB)/8, $0x3e21eed8eff8d898
DATA sigc<>+640(SB)/8, $0x3de6124613a86d09
DATA sigc<>+648(SB)/8, $0x3de6124613a86d09
DATA sigc<>+656(SB)/8, $0x3de6124613a86d09
DATA sigc<>+664(SB)/8, $0x3de6124613a86d09
GLOBL sigc<>(SB), RODATA|NOPTR, $672

// func sigmoidFMA(z, y *float64, n int) (lmin, prod float64)
//
// For the n = 4m logits z and labels y: with u = y·z, e = exp(−|u|),
// z ← y·σ(−u) = y·(u ≥ 0 ? e : 1)/(1+e); returns Σ min(u, 0) and Π (1+e),
// so that Σ log σ(u) = lmin − log(prod). exp(−a) = 2^(−k)·exp(r) with
// k = round(a/ln 2), r = k·ln 2 − a ∈ [−ln 2/2, ln 2/2] and the Taylor
// polynomial of degree 13 (truncation below 5e-18); a is clamped at 708.
TEXT ·sigmoidFMA(SB), NOSPLIT, $0-40
	MOVQ z+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	VMOVUPD sigc<>+0(SB), Y15
	VMOVUPD sigc<>+32(SB), Y14
	VMOVUPD sigc<>+64(SB), Y13
	VMOVUPD sigc<>+96(SB), Y12
	VMOVUPD sigc<>+128(SB), Y11
	VMOVUPD sigc<>+160(SB), Y10
	VMOVUPD sigc<>+192(SB), Y9
	VXORPD Y8, Y8, Y8
	VMOVUPD Y10, Y7

sigloop:
	CMPQ CX, $0
	JLE  sigdone
	VMOVUPD (SI), Y0
	VMULPD (DI), Y0, Y0
	VANDPD Y15, Y0, Y1
	VMINPD Y1, Y9, Y1
	VMOVAPD Y1, Y2
	VFMADD213PD Y13, Y14, Y2
	VPSUBQ Y13, Y2, Y3
	VSUBPD Y13, Y2, Y2
	VMOVAPD Y1, Y4
	VFMSUB231PD Y12, Y2, Y4
	VFMADD231PD Y11, Y2, Y4
	VMOVUPD sigc<>+640(SB), Y5
	VFMADD213PD sigc<>+608(SB), Y4, Y5
	VFMADD213PD sigc<>+576(SB), Y4, Y5
	VFMADD213PD sigc<>+544(SB), Y4, Y5
	VFMADD213PD sigc<>+512(SB), Y4, Y5
	VFMADD213PD sigc<>+480(SB), Y4, Y5
	VFMADD213PD sigc<>+448(SB), Y4, Y5
	VFMADD213PD sigc<>+416(SB), Y4, Y5
	VFMADD213PD sigc<>+384(SB), Y4, Y5
	VFMADD213PD sigc<>+352(SB), Y4, Y5
	VFMADD213PD sigc<>+320(SB), Y4, Y5
	VFMADD213PD sigc<>+288(SB), Y4, Y5
	VFMADD213PD sigc<>+256(SB), Y4, Y5
	VFMADD213PD sigc<>+224(SB), Y4, Y5
	VPSLLQ $52, Y3, Y3
	VPSUBQ Y3, Y5, Y5
	VCMPPD $3, Y0, Y0, Y6
	VORPD Y6, Y5, Y5
	VXORPD Y6, Y6, Y6
	VMINPD Y0, Y6, Y6
	VADDPD Y6, Y8, Y8
	VADDPD Y10, Y5, Y6
	VMULPD Y6, Y7, Y7
	VDIVPD Y6, Y10, Y6
	VBLENDVPD Y0, Y10, Y5, Y5
	VMULPD Y6, Y5, Y5
	VMULPD (DI), Y5, Y5
	VMOVUPD Y5, (SI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JMP  sigloop

sigdone:
	VEXTRACTF128 $1, Y8, X0
	VADDPD X0, X8, X8
	VHADDPD X8, X8, X8
	VMOVSD X8, lmin+24(FP)
	VEXTRACTF128 $1, Y7, X0
	VMULPD X0, X7, X7
	VPERMILPD $1, X7, X0
	VMULSD X0, X7, X7
	VMOVSD X7, prod+32(FP)
	VZEROUPPER
	RET

// func prefetchRows(x *float64, stride int, idx *int, n int, bytes int)
//
// PREFETCHT1 (into the level-2 cache, leaving the level-1 cache to the
// work in between) for every cache line of the first bytes (> 0) bytes of rows
// idx[0], …, idx[n−1] of x (row stride in elements).
TEXT ·prefetchRows(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $3, R8
	MOVQ idx+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ bytes+32(FP), R9
	TESTQ CX, CX
	JLE  pfdone

pfrow:
	MOVQ  (DI), AX
	IMULQ R8, AX
	ADDQ  SI, AX
	LEAQ  -1(AX)(R9*1), R10
	MOVQ  AX, DX

pfline:
	PREFETCHT1 (DX)
	ADDQ       $64, DX
	CMPQ       DX, R10
	JLE        pfline
	PREFETCHT1 (R10)
	ADDQ       $8, DI
	DECQ       CX
	JNZ        pfrow

pfdone:
	RET

// func sigmoid512(z, y *float64, n int)
//
// The weights of sigmoidFMA alone, z ← y·σ(−y·z), for n ≥ 1 values with
// AVX-512, eight lanes at a time (the last n mod 8 through a lane mask),
// each lane with sigmoidFMA's operations (the sign blend by the sign bits
// of u, VPMOVQ2M; a NaN u gives sigmoidFMA's all-ones NaN before the
// products), so the same bits; the sums of the log-likelihood are not
// formed. Z16–Z29 hold the Taylor coefficients.
TEXT ·sigmoid512(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VBROADCASTSD sigc<>+0(SB), Z15
	VBROADCASTSD sigc<>+32(SB), Z14
	VBROADCASTSD sigc<>+64(SB), Z13
	VBROADCASTSD sigc<>+96(SB), Z12
	VBROADCASTSD sigc<>+128(SB), Z11
	VBROADCASTSD sigc<>+160(SB), Z10
	VBROADCASTSD sigc<>+192(SB), Z9
	VBROADCASTSD sigc<>+640(SB), Z16
	VBROADCASTSD sigc<>+608(SB), Z17
	VBROADCASTSD sigc<>+576(SB), Z18
	VBROADCASTSD sigc<>+544(SB), Z19
	VBROADCASTSD sigc<>+512(SB), Z20
	VBROADCASTSD sigc<>+480(SB), Z21
	VBROADCASTSD sigc<>+448(SB), Z22
	VBROADCASTSD sigc<>+416(SB), Z23
	VBROADCASTSD sigc<>+384(SB), Z24
	VBROADCASTSD sigc<>+352(SB), Z25
	VBROADCASTSD sigc<>+320(SB), Z26
	VBROADCASTSD sigc<>+288(SB), Z27
	VBROADCASTSD sigc<>+256(SB), Z28
	VBROADCASTSD sigc<>+224(SB), Z29
	VPTERNLOGQ $0xff, Z31, Z31, Z31
	MOVQ $0xff, AX
	KMOVW AX, K7

s512loop:
	CMPQ CX, $8
	JGE  s512full
	TESTQ CX, CX
	JZ   s512done
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K7
	MOVQ $8, CX

s512full:
	VMOVUPD.Z   (SI), K7, Z0
	VMOVUPD.Z   (DI), K7, Z30
	VMULPD      Z30, Z0, Z0
	VPANDQ      Z15, Z0, Z1
	VMINPD      Z1, Z9, Z1
	VMOVAPD     Z1, Z2
	VFMADD213PD Z13, Z14, Z2
	VPSUBQ      Z13, Z2, Z3
	VSUBPD      Z13, Z2, Z2
	VMOVAPD     Z1, Z4
	VFMSUB231PD Z12, Z2, Z4
	VFMADD231PD Z11, Z2, Z4
	VMOVAPD     Z16, Z5
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
	VFMADD213PD Z29, Z4, Z5
	VPSLLQ      $52, Z3, Z3
	VPSUBQ      Z3, Z5, Z5
	VCMPPD      $3, Z0, Z0, K2
	VPORQ       Z31, Z5, K2, Z5
	VADDPD      Z10, Z5, Z6
	VDIVPD      Z6, Z10, Z6
	VPMOVQ2M    Z0, K3
	VMOVAPD     Z10, K3, Z5
	VMULPD      Z6, Z5, Z5
	VMULPD      Z30, Z5, Z5
	VMOVUPD     Z5, K7, (SI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $8, CX
	JMP         s512loop

s512done:
	VZEROUPPER
	RET
