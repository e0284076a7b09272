package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestSigmoidFMA compares the vectorised weights yσ(−u) with
// logSigmoidPair term by term (relative error ≤ 1e-15, except where the
// true weight is below e^−708 ≈ 3e-308: the kernel clamps |u| at 708 and
// gives e^−708, an absolute error below 3.4e-308), and the tile sums
// Σ log σ(u) = lmin − log Π(1+e) (absolute error ≤ 32·4 ulps of 1).
// NaN logits must give NaN.
func TestSigmoidFMA(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(3, 9))
	const n = 32 * 200
	z := make([]float64, n)
	y := make([]float64, n)
	for i := range z {
		switch i % 4 {
		case 0:
			z[i] = 3 * rng.NormFloat64()
		case 1:
			z[i] = 1600 * (rng.Float64() - 0.5)
		case 2:
			z[i] = 1e-8 * rng.NormFloat64()
		default:
			z[i] = 80 * (rng.Float64() - 0.5)
		}
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	copy(z, []float64{0, math.Copysign(0, -1), 708.5, -745, 707.9, -707.9, 36.7, -36.7})
	for t0 := 0; t0 < n; t0 += 32 {
		c := append([]float64(nil), z[t0:t0+32]...)
		lmin, prod := sigmoidFMA(&c[0], &y[t0], 32)
		var want float64
		for k := range c {
			u := y[t0+k] * z[t0+k]
			ls, sn := logSigmoidPair(u)
			want += ls
			ws := y[t0+k] * sn
			tol := 1e-15 * math.Abs(ws)
			if math.Abs(u) > 708 {
				tol = 3.4e-308
			}
			if !(math.Abs(c[k]-ws) <= tol) {
				t.Errorf("u = %v: weight %.17g, want %.17g", u, c[k], ws)
			}
		}
		if got := lmin - math.Log(prod); !(math.Abs(got-want) <= 32*4*0x1p-52*math.Max(1, math.Abs(want))) {
			t.Errorf("tile %d: Σ log σ = %.17g, want %.17g", t0/32, got, want)
		}
	}
	c := []float64{math.NaN(), 1, -2, 3}
	one := []float64{1, 1, 1, 1}
	if lmin, prod := sigmoidFMA(&c[0], &one[0], 4); !math.IsNaN(c[0]) || !math.IsNaN(lmin-math.Log(prod)) {
		t.Errorf("NaN logit gave weight %v and log-likelihood %v", c[0], lmin-math.Log(prod))
	}
}

// TestRowKernelsFMA compares the AVX2/FMA pass over rows with the portable
// one for every remainder of the column (mod 8) and row (mod 4) loops, on
// a view whose stride exceeds its width.
func TestRowKernelsFMA(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(1, 9))
	for _, p := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 55, 56, 57} {
		for _, n := range []int{1, 3, 4, 5, 33, 70} {
			X, y := synthLogistic(rng, n, p+3)
			Xv := X.Slice(0, n, 0, p).(*mat.Dense).RawMatrix()
			w := randVec(rng, p, 1)
			g1 := randVec(rng, p, 1)
			g2 := append([]float64(nil), g1...)
			lo := min(1, n-1)
			l1 := lrRows(Xv, y, w, g1, lo, n)
			l2 := lrRowsFMA(Xv, y, w, g2, lo, n)
			if !(math.Abs(l1-l2) <= 1e-12*math.Max(1, math.Abs(l1))) {
				t.Errorf("p=%d n=%d: log-likelihood %.15g, portable %.15g", p, n, l2, l1)
			}
			for j := range g1 {
				if !(math.Abs(g1[j]-g2[j]) <= 1e-12*math.Max(1, math.Abs(g1[j]))) {
					t.Errorf("p=%d n=%d coordinate %d: gradient %.15g, portable %.15g", p, n, j, g2[j], g1[j])
				}
			}
		}
	}
}

// TestGemmSerial compares gemmSerial, which splits the result into blocks
// of at most 64×192, with one blas64.Gemm call for every transposition, on
// sizes that leave partial blocks in both directions.
func TestGemmSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	const m, n, k = 130, 400, 7
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ar, ac := m, k
			if tA == blas.Trans {
				ar, ac = k, m
			}
			br, bc := k, n
			if tB == blas.Trans {
				br, bc = n, k
			}
			a := blas64.General{Rows: ar, Cols: ac, Stride: ac + 2, Data: randVec(rng, ar*(ac+2), 1)}
			b := blas64.General{Rows: br, Cols: bc, Stride: bc + 1, Data: randVec(rng, br*(bc+1), 1)}
			c0 := randVec(rng, m*n, 1)
			want := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0...)}
			got := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0...)}
			blas64.Gemm(tA, tB, 0.7, a, b, 0.3, want)
			gemmSerial(tA, tB, 0.7, a, b, 0.3, got)
			for i, v := range want.Data {
				if math.Abs(got.Data[i]-v) > 1e-13*math.Max(1, math.Abs(v)) {
					t.Fatalf("tA=%c tB=%c element %d: %.17g, want %.17g", tA, tB, i, got.Data[i], v)
				}
			}
		}
	}
}

// TestSigmoid512: the AVX-512 weights have the bits of sigmoidFMA's, lane
// by lane, on logits of every range, ±0, the clamp, NaN (with either sign)
// and ±Inf, for lengths with and without a masked tail.
func TestSigmoid512(t *testing.T) {
	if !have512 {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(3, 10))
	const n = 32 * 50
	z := make([]float64, n)
	y := make([]float64, n)
	for i := range z {
		switch i % 4 {
		case 0:
			z[i] = 3 * rng.NormFloat64()
		case 1:
			z[i] = 1600 * (rng.Float64() - 0.5)
		case 2:
			z[i] = 1e-8 * rng.NormFloat64()
		default:
			z[i] = 80 * (rng.Float64() - 0.5)
		}
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	copy(z, []float64{0, math.Copysign(0, -1), 708.5, -745, 707.9, -707.9, 36.7, -36.7,
		math.NaN(), math.Copysign(math.NaN(), -1), math.Inf(1), math.Inf(-1)})
	want := append([]float64(nil), z...)
	sigmoidFMA(&want[0], &y[0], n)
	for _, m := range []int{n, n - 1, n - 7, 13, 8, 5, 1} {
		got := append([]float64(nil), z...)
		sigmoid512(&got[0], &y[0], m)
		for i := range got {
			w := want[i]
			if i >= m {
				w = z[i] // untouched beyond n
			}
			if math.Float64bits(got[i]) != math.Float64bits(w) {
				t.Fatalf("n=%d: z[%d] = %v (u = %v): %v (%#x), sigmoidFMA %v (%#x)", m, i, z[i], y[i]*z[i], got[i], math.Float64bits(got[i]), w, math.Float64bits(w))
			}
		}
	}
}
