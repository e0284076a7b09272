//go:build amd64 && !noasm

package model

import "golang.org/x/sys/cpu"

// The amd64 tile kernels of the full-data logistic gradient use AVX2 and
// FMA when the processor and the operating system support them.

//go:noescape
func dotRowsFMA(x *float64, stride, rows, cols int, w *float64, z *float64)

//go:noescape
func axpyRowsFMA(x *float64, stride, rows, cols int, a *float64, grad *float64)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// haveFMA reports AVX2 and FMA with the YMM state saved by the OS.
var haveFMA = func() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}()

//go:noescape
func sigmoidFMA(z, y *float64, n int) (lmin, prod float64)

// prefetchRows asks the processor to bring the first bytes (> 0) bytes of
// rows idx[0], …, idx[n−1] of x (row stride in elements) into its caches.
//
//go:noescape
func prefetchRows(x *float64, stride int, idx *int, n int, bytes int)

// have512 reports AVX-512 (F and DQ) with the ZMM state saved by the OS;
// lrUse512 selects sigmoid512 (tests switch it off).
var have512 = haveFMA && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// sigmoid512 is sigmoidFMA's weights alone, z ← y·σ(−y·z), for n ≥ 1
// values (any n), with the same bits, eight lanes at a time.
//
//go:noescape
func sigmoid512(z, y *float64, n int)
