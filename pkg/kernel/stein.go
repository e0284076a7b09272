package kernel

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// steinFromProfile assembles
//
//	k₀ = −4f″r² − 2d f′ + 2f′ (x − y)·(s(y) − s(x)) + f s(x)·s(y)
//
// from the profile of a radial kernel, the squared distance r², the
// product us = (x − y)·(s(y) − s(x)) and ss = s(x)·s(y).
func steinFromProfile(f, df, d2f, r2, us, ss float64, d int) float64 {
	return -4*d2f*r2 - 2*float64(d)*df + 2*df*us + f*ss
}

// Stein returns the Stein kernel
//
//	k₀(x, y) = ∇ₓ·∇ᵧk + ∇ₓk·s(y) + ∇ᵧk·s(x) + k(x, y) s(x)·s(y)
//
// of a radial kernel k, given the scores sx = s(x) and sy = s(y). It costs
// one pass over the four vectors.
func Stein(k Radial, x, y, sx, sy []float64) float64 { return stein(k, x, y, sx, sy) }

// Stein returns the Stein kernel k₀(x, y) of the RBF kernel given the scores
// sx = s(x) and sy = s(y); see the package function Stein. Unlike Stein(k,
// …), it does not box k into a Radial, so it never allocates.
func (k RBF) Stein(x, y, sx, sy []float64) float64 { return stein(k, x, y, sx, sy) }

// Stein returns the Stein kernel k₀(x, y) of the IMQ kernel given the scores
// sx = s(x) and sy = s(y); see the package function Stein. Unlike Stein(k,
// …), it does not box k into a Radial, so it never allocates.
func (k IMQ) Stein(x, y, sx, sy []float64) float64 { return stein(k, x, y, sx, sy) }

// radialProfile is what the Stein kernel needs from a radial kernel. The
// type parameter of stein is constrained by it, rather than taking a Radial,
// so that the concrete kernels' Stein methods pass their receiver by value
// instead of converting it to an interface, which would allocate per call.
type radialProfile interface {
	Profile(r2 float64) (f, df, d2f float64)
}

func stein[K radialProfile](k K, x, y, sx, sy []float64) float64 {
	d := len(x)
	if len(y) != d || len(sx) != d || len(sy) != d {
		panic("kernel: dimension mismatch")
	}
	var r2, us, ss float64
	for i, xi := range x {
		u := xi - y[i]
		r2 += u * u
		us += u * (sy[i] - sx[i])
		ss += sx[i] * sy[i]
	}
	f, df, d2f := k.Profile(r2)
	return steinFromProfile(f, df, d2f, r2, us, ss, d)
}

// SteinGram writes the Stein Gram matrix K₀ᵢⱼ = k₀(xᵢ, xⱼ) of the particles
// in the rows of X (n×d), with their cached scores in the rows of S (n×d),
// into dst (n×n). Three matrix products (X Xᵀ, X Sᵀ, S Sᵀ) carry the O(n²d)
// work, since (xᵢ − xⱼ)·(sⱼ − sᵢ) = xᵢ·sⱼ − xᵢ·sᵢ − xⱼ·sⱼ + xⱼ·sᵢ. work is
// scratch of length at least 2n² (nil allocates).
func SteinGram(dst *mat.Dense, k Radial, X, S *mat.Dense, work []float64) {
	n, d := X.Dims()
	if r, c := S.Dims(); r != n || c != d {
		panic("kernel: dimension mismatch")
	}
	if r, c := dst.Dims(); r != n || c != n {
		panic("kernel: dimension mismatch")
	}
	if work == nil {
		work = make([]float64, 2*n*n)
	}
	if len(work) < 2*n*n {
		panic("kernel: work too short")
	}
	xs := blas64.General{Rows: n, Cols: n, Stride: n, Data: work[:n*n]}
	ss := blas64.General{Rows: n, Cols: n, Stride: n, Data: work[n*n : 2*n*n]}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, X.RawMatrix(), S.RawMatrix(), 0, xs)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, S.RawMatrix(), S.RawMatrix(), 0, ss)
	// Squared distances through the Gram of X, reusing dst.
	raw := dst.RawMatrix()
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, X.RawMatrix(), X.RawMatrix(), 0, raw)
	for i := 0; i < n; i++ {
		xii := raw.Data[i*raw.Stride+i]
		xsii := xs.Data[i*n+i]
		for j := i; j < n; j++ {
			r2 := xii + raw.Data[j*raw.Stride+j] - 2*raw.Data[i*raw.Stride+j]
			if r2 < 0 || i == j {
				r2 = 0
			}
			us := xs.Data[i*n+j] - xsii - xs.Data[j*n+j] + xs.Data[j*n+i]
			f, df, d2f := k.Profile(r2)
			v := steinFromProfile(f, df, d2f, r2, us, ss.Data[i*n+j], d)
			// Store above the diagonal only; the diagonal of X Xᵀ is still
			// needed by later rows.
			if j > i {
				raw.Data[i*raw.Stride+j] = v
			} else {
				xs.Data[i*n+i] = v // the diagonal value, parked
			}
		}
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = xs.Data[i*n+i]
		for j := i + 1; j < n; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
}
