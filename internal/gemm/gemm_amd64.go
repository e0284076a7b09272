//go:build amd64 && !noasm

package gemm

import "golang.org/x/sys/cpu"

// useFMA selects the AVX2/FMA micro-kernel; tests switch it off to compare
// the portable loop.
var useFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// haveFMA reports whether the micro-kernel can run here.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// mul4x8 sets the 4×8 block of C at c (row stride ldc) to α times the
// product of the 4×k block of A at a (row stride lda) and the k×8 block of B
// at b (row stride ldb), k ≥ 1.
//
//go:noescape
func mul4x8(k int, alpha float64, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
