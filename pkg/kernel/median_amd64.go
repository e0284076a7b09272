//go:build amd64 && !noasm

package kernel

import "golang.org/x/sys/cpu"

// use512 selects the AVX-512 pass of medianBracketed; tests switch it off
// to compare the portable loop.
var use512 = have512

// have512 reports whether the AVX-512 pass can run here.
var have512 = cpu.X86.HasAVX512F && cpu.X86.HasPOPCNT

// bracket512 stores the values v of src[:n] with lo ≤ v ≤ hi in order at
// dst and returns their count, the count of values ≥ lo and the count of
// values ≥ 0 (see medianBracketed).
//
//go:noescape
func bracket512(dst, src *float64, n int, lo, hi float64) (kept, ge, nonneg int)
