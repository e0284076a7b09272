package rff

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// randGeneral is an r×c matrix with stride c+pad, about a fifth of its
// entries 0 (so that gonum's zero skip is exercised) and the padding NaN
// (so that reading it shows).
func randGeneral(rng *rand.Rand, r, c, pad int) blas64.General {
	g := blas64.General{Rows: r, Cols: c, Stride: c + pad, Data: make([]float64, r*(c+pad))}
	for i := 0; i < r; i++ {
		for j := 0; j < c+pad; j++ {
			v := rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			switch {
			case j >= c:
				v = math.NaN()
			case rng.IntN(5) == 0:
				v = 0
			}
			g.Data[i*g.Stride+j] = v
		}
	}
	return g
}

// TestGemmBits: gemmNT and gemmTN give blas64.Gemm's bits (α = 1, β = 0)
// on shapes below and above gonum's 64-wide blocks and its threshold for
// going parallel, with strided views.
func TestGemmBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []int{1, 3, 56, 64, 65, 130, 200}
	for _, m := range sizes {
		for _, n := range sizes {
			for _, k := range []int{1, 2, 56, 64, 65, 903} {
				pad := (m + n + k) % 3
				a := randGeneral(rng, m, k, pad)
				b := randGeneral(rng, n, k, pad)
				got := randGeneral(rng, m, n, pad)
				want := randGeneral(rng, m, n, pad)
				blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, want)
				gemmNT(a, b, got)
				if i, j, ok := sameBits(got, want); !ok {
					t.Fatalf("gemmNT m=%d n=%d k=%d: c[%d][%d] = %v, gonum %v", m, n, k, i, j,
						got.Data[i*got.Stride+j], want.Data[i*want.Stride+j])
				}
				at := randGeneral(rng, k, m, pad)
				bt := randGeneral(rng, k, n, pad)
				blas64.Gemm(blas.Trans, blas.NoTrans, 1, at, bt, 0, want)
				gemmTN(at, bt, got)
				if i, j, ok := sameBits(got, want); !ok {
					t.Fatalf("gemmTN m=%d n=%d k=%d: c[%d][%d] = %v, gonum %v", m, n, k, i, j,
						got.Data[i*got.Stride+j], want.Data[i*want.Stride+j])
				}
			}
		}
	}
}

func sameBits(a, b blas64.General) (int, int, bool) {
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			if math.Float64bits(a.Data[i*a.Stride+j]) != math.Float64bits(b.Data[i*b.Stride+j]) {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}
