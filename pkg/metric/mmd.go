package metric

import (
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// blockEntries bounds the size of one cross-kernel block (rows × S), so
// that memory stays O(S) in the number of reference draws (8 MB blocks).
var blockEntries = 1 << 20

// MMD is a reference set of draws with its kernel, ready to score many
// particle snapshots. It is immutable after NewMMD and safe for concurrent
// use.
type MMD struct {
	k  kernel.Radial
	y  *mat.Dense
	yy float64
}

// NewMMD prepares the reference draws in the rows of Y (S×d) under the
// kernel k, computing the reference term (1/S²) Σₛₜ k(yₛ, yₜ) once. Y is
// kept, not copied.
func NewMMD(k kernel.Radial, Y *mat.Dense) *MMD {
	S, d := Y.Dims()
	if S == 0 || d == 0 {
		panic("metric: empty reference set")
	}
	return &MMD{k: k, y: Y, yy: selfSum(k, Y, nil)}
}

// selfSum returns Σᵢⱼ wᵢwⱼ k(xᵢ, xⱼ) over the rows of X (w nil means 1/n),
// in row blocks over the upper triangle so that memory stays bounded by
// blockEntries. Diagonal distances are exactly zero.
func selfSum(k kernel.Radial, X *mat.Dense, w []float64) float64 {
	n, d := X.Dims()
	wt := func(i int) float64 {
		if w == nil {
			return 1 / float64(n)
		}
		return w[i]
	}
	rows := max(1, min(n, blockEntries/n))
	buf := make([]float64, rows*n)
	xn := make([]float64, rows)
	yn := make([]float64, n)
	var sum float64
	for i0 := 0; i0 < n; i0 += rows {
		i1 := min(i0+rows, n)
		b := i1 - i0
		// Columns from i0 on: the diagonal block and everything right of it.
		C := mat.NewDense(b, n-i0, buf[:b*(n-i0)])
		kernel.CrossSqDists(C, X.Slice(i0, i1, 0, d).(*mat.Dense), X.Slice(i0, n, 0, d).(*mat.Dense), xn[:b], yn[i0:])
		for r := 0; r < b; r++ {
			C.Set(r, r, 0)
		}
		fromSqDists(k, C)
		for r := 0; r < b; r++ {
			row := C.RawRowView(r)
			var s float64
			for c, v := range row[r+1:] {
				s += wt(i0+r+1+c) * v
			}
			wi := wt(i0 + r)
			sum += wi * (wi*row[r] + 2*s)
		}
	}
	return sum
}

// Len returns the number of reference draws S.
func (m *MMD) Len() int { r, _ := m.y.Dims(); return r }

// RefTerm returns (1/S²) Σₛₜ k(yₛ, yₜ).
func (m *MMD) RefTerm() float64 { return m.yy }

// MMD2 returns the squared MMD between the weighted particles in the rows
// of X (n×d, weights w; nil means 1/n) and the reference draws, without the
// paper's ½. It allocates its block scratch.
func (m *MMD) MMD2(X *mat.Dense, w []float64) float64 {
	n, d := X.Dims()
	S, dy := m.y.Dims()
	if d != dy {
		panic("metric: dimension mismatch")
	}
	if w == nil {
		w = make([]float64, n)
		for i := range w {
			w[i] = 1 / float64(n)
		}
	}
	if len(w) != n {
		panic("metric: weights length mismatch")
	}
	xx := selfSum(m.k, X, w)
	xn := make([]float64, n)
	// Particle–reference term, in row blocks of X.
	rows := max(1, min(n, blockEntries/S))
	buf := make([]float64, rows*S)
	yn := make([]float64, S)
	var xy float64
	for i0 := 0; i0 < n; i0 += rows {
		i1 := min(i0+rows, n)
		C := mat.NewDense(i1-i0, S, buf[:(i1-i0)*S])
		kernel.CrossRadial(m.k, C, X.Slice(i0, i1, 0, d).(*mat.Dense), m.y, xn[:i1-i0], yn)
		for r := 0; r < i1-i0; r++ {
			var s float64
			for _, v := range C.RawRowView(r) {
				s += v
			}
			xy += w[i0+r] * s
		}
	}
	return xx - 2*xy/float64(S) + m.yy
}

// fromSqDists replaces every squared distance in sq by k of it.
func fromSqDists(k kernel.Radial, sq *mat.Dense) {
	switch k := k.(type) {
	case kernel.RBF:
		k.FromSqDists(sq, sq)
	case kernel.IMQ:
		k.FromSqDists(sq, sq)
	default:
		r, _ := sq.Dims()
		for i := 0; i < r; i++ {
			row := sq.RawRowView(i)
			for j, v := range row {
				row[j] = k.FromSqDist(v)
			}
		}
	}
}
