package kernel

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Profile returns f(r²) = exp(−r²/(2h²)) and its first two derivatives
// with respect to r²: f′ = −f/(2h²), f″ = f/(4h⁴).
func (k RBF) Profile(r2 float64) (f, df, d2f float64) {
	a := 1 / (2 * k.H * k.H)
	f = k.FromSqDist(r2)
	return f, -a * f, a * a * f
}

// GradY writes ∇ᵧk(x, y) = (x − y) k(x, y) / h² into dst and returns
// k(x, y).
func (k RBF) GradY(dst, x, y []float64) float64 { return gradY(k, dst, x, y) }

// GradY writes ∇ᵧk(x, y) = −2β(c² + ‖x − y‖²)^(β−1) (x − y) into dst and
// returns k(x, y).
func (k IMQ) GradY(dst, x, y []float64) float64 { return gradY(k, dst, x, y) }

// DivXY returns ∇ₓ·∇ᵧk(x, y) = Σᵢ ∂²k/∂xᵢ∂yᵢ = −4f″(r²) r² − 2d f′(r²),
// the first term of the Stein kernel.
func (k RBF) DivXY(x, y []float64) float64 { return divXY(k, x, y) }

// DivXY returns ∇ₓ·∇ᵧk(x, y) = −4f″(r²) r² − 2d f′(r²), the first term of
// the Stein kernel.
func (k IMQ) DivXY(x, y []float64) float64 { return divXY(k, x, y) }

func gradY(k Radial, dst, x, y []float64) float64 {
	if len(x) != len(y) || len(dst) != len(x) {
		panic("kernel: dimension mismatch")
	}
	f, df, _ := k.Profile(sqDist(x, y))
	c := -2 * df
	for i, v := range x {
		dst[i] = c * (v - y[i])
	}
	return f
}

func divXY(k Radial, x, y []float64) float64 {
	r2 := sqDist(x, y)
	_, df, d2f := k.Profile(r2)
	return -4*d2f*r2 - 2*float64(len(x))*df
}

// CrossSqDists writes the squared distances ‖xᵢ − yⱼ‖² between the rows of
// X (n×d) and Y (m×d) into dst (n×m), through one matrix product X Yᵀ and
// the squared norms, which it writes into xnorms (length n) and ynorms
// (length m); nil norms are allocated. Round-off negatives are clamped to
// zero.
func CrossSqDists(dst, X, Y *mat.Dense, xnorms, ynorms []float64) {
	n, d := X.Dims()
	m, dy := Y.Dims()
	if d != dy {
		panic("kernel: dimension mismatch")
	}
	if r, c := dst.Dims(); r != n || c != m {
		panic("kernel: dimension mismatch")
	}
	if xnorms == nil {
		xnorms = make([]float64, n)
	}
	if ynorms == nil {
		ynorms = make([]float64, m)
	}
	if len(xnorms) != n || len(ynorms) != m {
		panic("kernel: norms length mismatch")
	}
	rowNorms(xnorms, X)
	rowNorms(ynorms, Y)
	raw := dst.RawMatrix()
	blas64.Gemm(blas.NoTrans, blas.Trans, -2, X.RawMatrix(), Y.RawMatrix(), 0, raw)
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		xn := xnorms[i]
		for j, v := range row {
			v += xn + ynorms[j]
			if v < 0 {
				v = 0
			}
			row[j] = v
		}
	}
}

// rowNorms writes the squared Euclidean norm of each row of X into dst.
func rowNorms(dst []float64, X *mat.Dense) {
	for i := range dst {
		var s float64
		for _, v := range X.RawRowView(i) {
			s += v * v
		}
		dst[i] = s
	}
}

// FromSqDists writes k elementwise from the squared distances sq into dst,
// of any shape; dst may be sq itself.
func (k RBF) FromSqDists(dst, sq *mat.Dense) {
	s := -1 / (2 * k.H * k.H)
	apply(dst, sq, func(r2 float64) float64 { return math.Exp(s * r2) })
}

// FromSqDists writes k elementwise from the squared distances sq into dst,
// of any shape; dst may be sq itself.
func (k IMQ) FromSqDists(dst, sq *mat.Dense) {
	c2, beta := k.params()
	if beta == -0.5 {
		apply(dst, sq, func(r2 float64) float64 { return 1 / math.Sqrt(c2+r2) })
		return
	}
	apply(dst, sq, func(r2 float64) float64 { return math.Pow(c2+r2, beta) })
}

func apply(dst, sq *mat.Dense, f func(float64) float64) {
	n, m := sq.Dims()
	if r, c := dst.Dims(); r != n || c != m {
		panic("kernel: dimension mismatch")
	}
	for i := 0; i < n; i++ {
		in := sq.RawRowView(i)
		out := dst.RawRowView(i)
		for j, v := range in {
			out[j] = f(v)
		}
	}
}

// Cross writes the cross-kernel matrix k(xᵢ, yⱼ) between the rows of X
// (n×d) and Y (m×d) into dst (n×m). xnorms and ynorms are scratch of length
// n and m (nil allocates).
func (k RBF) Cross(dst, X, Y *mat.Dense, xnorms, ynorms []float64) {
	CrossSqDists(dst, X, Y, xnorms, ynorms)
	k.FromSqDists(dst, dst)
}

// Cross writes the cross-kernel matrix k(xᵢ, yⱼ) between the rows of X
// (n×d) and Y (m×d) into dst (n×m). xnorms and ynorms are scratch of length
// n and m (nil allocates).
func (k IMQ) Cross(dst, X, Y *mat.Dense, xnorms, ynorms []float64) {
	CrossSqDists(dst, X, Y, xnorms, ynorms)
	k.FromSqDists(dst, dst)
}

// CrossRadial writes the cross-kernel matrix of any radial kernel, as
// RBF.Cross and IMQ.Cross do for theirs.
func CrossRadial(k Radial, dst, X, Y *mat.Dense, xnorms, ynorms []float64) {
	switch k := k.(type) {
	case RBF:
		k.Cross(dst, X, Y, xnorms, ynorms)
	case IMQ:
		k.Cross(dst, X, Y, xnorms, ynorms)
	default:
		CrossSqDists(dst, X, Y, xnorms, ynorms)
		apply(dst, dst, k.FromSqDist)
	}
}
