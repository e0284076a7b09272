package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

func firstDiff(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// AddMulTrans and AddOuter give the bits of the serial floats.AddScaled
// loops, on the AVX2 path and the portable one, for widths with and without
// remainders of 4 and 16 columns and for row strides longer than the rows.
func TestAddMulTransAddOuterBits(t *testing.T) {
	defer func(v bool) { useFMA = v }(useFMA)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, fma := range []bool{false, haveFMA} {
		useFMA = fma
		for _, h := range []int{1, 3, 4, 5, 15, 16, 17, 20, 50, 100} {
			for _, p := range []int{0, 1, 2, 13, 90} {
				for _, pad := range []int{0, 3} {
					ld := h + pad
					w := make([]float64, p*ld)
					b := make([]float64, h)
					x := make([]float64, p)
					d := make([]float64, h)
					for _, s := range [][]float64{w, b, x, d} {
						for i := range s {
							s[i] = rng.NormFloat64()
						}
					}
					if p > 1 {
						x[1] = 0
						b[0] = 0
					}
					want := append([]float64(nil), b...)
					for j, xj := range x {
						floats.AddScaled(want, xj, w[j*ld:j*ld+h])
					}
					got := make([]float64, h)
					AddMulTrans(got, b, w, ld, x)
					if i := firstDiff(got, want); i >= 0 {
						t.Fatalf("fma=%v AddMulTrans h=%d p=%d ld=%d: [%d] = %v, serial %v", fma, h, p, ld, i, got[i], want[i])
					}
					g := make([]float64, p*ld)
					for i := range g {
						g[i] = rng.NormFloat64()
					}
					wantG := append([]float64(nil), g...)
					for j, xj := range x {
						floats.AddScaled(wantG[j*ld:j*ld+h], xj, d)
					}
					AddOuter(g, ld, x, d)
					if i := firstDiff(g, wantG); i >= 0 {
						t.Fatalf("fma=%v AddOuter h=%d p=%d ld=%d: [%d] = %v, serial %v", fma, h, p, ld, i, g[i], wantG[i])
					}
				}
			}
		}
	}
}

// With a symmetric matrix and b = 0, AddMulTrans is the row-by-row serial
// matrix-vector product (the loop it replaces in a projected-gradient
// solver).
func TestAddMulTransSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, ld = 37, 40
	A := make([]float64, n*ld)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := rng.NormFloat64()
			A[i*ld+j], A[j*ld+i] = v, v
		}
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	want := make([]float64, n)
	for i := range want {
		var g float64
		for j, v := range A[i*ld : i*ld+n] {
			g += v * y[j]
		}
		want[i] = g
	}
	got := make([]float64, n)
	AddMulTrans(got, make([]float64, n), A, ld, y)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("[%d] = %v, serial %v", i, got[i], want[i])
	}
}
