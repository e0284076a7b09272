package laplace

import (
	"context"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// DenseMaxDim is the largest dimension whose Whitening uses the full
// Cholesky factor of the Laplace covariance; above it the whitening is
// diagonal (the marginal scales), which costs O(d) per gradient instead of
// O(d²).
const DenseMaxDim = 200

// Whitening is the affine change of variables
//
//	x = M + L z,   z = L⁻¹(x − M),
//
// with L the lower Cholesky factor of a covariance Σ = LLᵀ (or diag σ when
// the whitening is diagonal). Under a Laplace approximation N(M, Σ) of the
// target, z is standard normal: every coordinate of z has the posterior's
// own scale 1, whatever the units of x. A method run on the target in z
// (Target) with an isotropic kernel, unit start spreads and unit steps thus
// has, in x, a kernel k(L⁻¹x, L⁻¹y) and spreads and steps that follow the
// posterior's scales and correlations.
type Whitening struct {
	// M is the centre (the MAP).
	M []float64
	// L is the lower Cholesky factor of the covariance, nil for a diagonal
	// whitening.
	L *mat.TriDense
	// SD holds the per-coordinate scales of a diagonal whitening (nil when
	// L is set).
	SD []float64
}

// Whitening returns the whitening of l: dense (l.Chol) up to DenseMaxDim
// dimensions, diagonal (l.SD) above.
func (l *Approx) Whitening() *Whitening {
	w := &Whitening{M: append([]float64(nil), l.X...)}
	if len(l.X) <= DenseMaxDim {
		w.L = mat.NewTriDense(len(l.X), mat.Lower, nil)
		w.L.Copy(l.Chol)
	} else {
		w.SD = append([]float64(nil), l.SD...)
	}
	return w
}

// Dim returns the dimension.
func (w *Whitening) Dim() int { return len(w.M) }

// ToX writes x = M + L z into dst (which must not alias z).
func (w *Whitening) ToX(dst, z []float64) {
	d := len(w.M)
	if len(dst) != d || len(z) != d {
		panic("laplace: Whitening.ToX length mismatch")
	}
	if w.L == nil {
		for j, s := range w.SD {
			dst[j] = w.M[j] + s*z[j]
		}
		return
	}
	raw := w.L.RawTriangular()
	for i := 0; i < d; i++ {
		v := w.M[i]
		for k, a := range raw.Data[i*raw.Stride : i*raw.Stride+i+1] {
			v += a * z[k]
		}
		dst[i] = v
	}
}

// ToZ writes z = L⁻¹(x − M) into dst (which may alias x).
func (w *Whitening) ToZ(dst, x []float64) {
	d := len(w.M)
	if len(dst) != d || len(x) != d {
		panic("laplace: Whitening.ToZ length mismatch")
	}
	if w.L == nil {
		for j, s := range w.SD {
			dst[j] = (x[j] - w.M[j]) / s
		}
		return
	}
	raw := w.L.RawTriangular()
	for i := 0; i < d; i++ {
		v := x[i] - w.M[i]
		row := raw.Data[i*raw.Stride : i*raw.Stride+i+1]
		for k, a := range row[:i] {
			v -= a * dst[k]
		}
		dst[i] = v / row[i]
	}
}

// GradToZ writes the score in z, Lᵀ∇ₓlog p, into dst (which must not alias
// gx), from the score gx in x.
func (w *Whitening) GradToZ(dst, gx []float64) {
	d := len(w.M)
	if w.L == nil {
		for j, s := range w.SD {
			dst[j] = s * gx[j]
		}
		return
	}
	raw := w.L.RawTriangular()
	for k := range dst[:d] {
		dst[k] = 0
	}
	for i := 0; i < d; i++ {
		g := gx[i]
		for k, a := range raw.Data[i*raw.Stride : i*raw.Stride+i+1] {
			dst[k] += a * g
		}
	}
}

// GradToX writes the score in x, ∇ₓlog p = L⁻ᵀ∇_z log p, into dst (which
// may alias gz), from the score gz in z: the inverse of GradToZ, by back
// substitution in Lᵀ.
func (w *Whitening) GradToX(dst, gz []float64) {
	d := len(w.M)
	if len(dst) != d || len(gz) != d {
		panic("laplace: Whitening.GradToX length mismatch")
	}
	if w.L == nil {
		for j, s := range w.SD {
			dst[j] = gz[j] / s
		}
		return
	}
	raw := w.L.RawTriangular()
	copy(dst, gz)
	for k := d - 1; k >= 0; k-- {
		// dst[k] = (gz[k] − Σ_{i>k} L[i][k]·dst[i]) / L[k][k]
		v := dst[k]
		for i := k + 1; i < d; i++ {
			v -= raw.Data[i*raw.Stride+k] * dst[i]
		}
		dst[k] = v / raw.Data[k*raw.Stride+k]
	}
}

// RowsGradToX writes the score in x (GradToX) of every row of gz into the
// rows of dst (allocated when nil) and returns dst.
func (w *Whitening) RowsGradToX(dst, gz *mat.Dense) *mat.Dense {
	n, _ := gz.Dims()
	if dst == nil {
		dst = mat.NewDense(n, len(w.M), nil)
	}
	for i := 0; i < n; i++ {
		w.GradToX(dst.RawRowView(i), gz.RawRowView(i))
	}
	return dst
}

// RowsToX writes x = M + L z for every row of z into the rows of dst
// (allocated when nil) and returns dst.
func (w *Whitening) RowsToX(dst, z *mat.Dense) *mat.Dense {
	n, _ := z.Dims()
	if dst == nil {
		dst = mat.NewDense(n, len(w.M), nil)
	}
	for i := 0; i < n; i++ {
		w.ToX(dst.RawRowView(i), z.RawRowView(i))
	}
	return dst
}

// Snapshot returns the rows of z in x, written into *buf (grown when
// short, and kept for the next call), as a method's snapshot holds them;
// z itself, not copied, when w is nil (a run in the target's own
// coordinates).
func (w *Whitening) Snapshot(buf *[]float64, z *mat.Dense) *mat.Dense {
	if w == nil {
		return z
	}
	n, d := z.Dims()
	if cap(*buf) < n*d {
		*buf = make([]float64, n*d, 2*n*d)
	}
	return w.RowsToX(mat.NewDense(n, d, (*buf)[:n*d]), z)
}

// RowsToZ writes z = L⁻¹(x − M) for every row of x into the rows of dst
// (allocated when nil) and returns dst.
func (w *Whitening) RowsToZ(dst, x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	if dst == nil {
		dst = mat.NewDense(n, len(w.M), nil)
	}
	for i := 0; i < n; i++ {
		w.ToZ(dst.RawRowView(i), x.RawRowView(i))
	}
	return dst
}

// Target returns t in the whitened coordinates: log p(M + Lz), whose score
// is Lᵀ∇ₓlog p(M + Lz) (the constant log|L| omitted). A target.Stochastic
// stays one, with the same NData and minibatches, so that a method run on
// the result charges the same gradient evaluations; prior draws, batched
// evaluation and Hessians are not carried over. The result is safe for
// concurrent use and allocates nothing per call once warm.
func (w *Whitening) Target(t target.Target) target.Target {
	if t.Dim() != len(w.M) {
		panic(fmt.Sprintf("laplace: whitening of dimension %d for a target of dimension %d", len(w.M), t.Dim()))
	}
	b := &whitened{w: w, t: t}
	b.pool.New = func() any { s := make([]float64, 2*len(w.M)); return &s }
	if st, ok := t.(target.Stochastic); ok {
		return &whitenedStochastic{whitened: b, st: st}
	}
	return b
}

type whitened struct {
	w    *Whitening
	t    target.Target
	pool sync.Pool // *[]float64 of length 2d: x, then ∇ₓ
}

func (b *whitened) Dim() int { return len(b.w.M) }

func (b *whitened) LogProbGrad(z, grad []float64) float64 {
	return b.eval(z, grad, func(x, gx []float64) float64 { return b.t.LogProbGrad(x, gx) })
}

func (b *whitened) eval(z, grad []float64, f func(x, gx []float64) float64) float64 {
	d := len(b.w.M)
	buf := b.pool.Get().(*[]float64)
	x, gx := (*buf)[:d], (*buf)[d:]
	b.w.ToX(x, z)
	lp := f(x, gx)
	b.w.GradToZ(grad, gx)
	b.pool.Put(buf)
	return lp
}

type whitenedStochastic struct {
	*whitened
	st target.Stochastic
}

func (b *whitenedStochastic) NData() int { return b.st.NData() }

func (b *whitenedStochastic) MinibatchLogProbGrad(z, grad []float64, batch []int) float64 {
	return b.eval(z, grad, func(x, gx []float64) float64 { return b.st.MinibatchLogProbGrad(x, gx, batch) })
}

// Recorder returns a recorder that hands rec the snapshots of a run in the
// whitened coordinates with their particles mapped back to x, the seconds
// and gradient evaluations spent before the run (the MAP and the fit)
// added. A nil rec gives nil. The particles are written into one buffer
// that the next snapshot reuses, as particle.Snapshot allows.
func (w *Whitening) Recorder(rec particle.Recorder, seconds float64, grads int64) particle.Recorder {
	if rec == nil {
		return nil
	}
	var buf []float64
	return particle.RecorderFunc(func(s particle.Snapshot) error {
		if s.X != nil {
			n, d := s.X.Dims()
			if cap(buf) < n*d {
				buf = make([]float64, n*d, 2*n*d)
			}
			x := mat.NewDense(n, d, buf[:n*d])
			w.RowsToX(x, s.X)
			s.X = x
		}
		s.Seconds += seconds
		s.GradEvals += grads
		return rec.Record(s)
	})
}

// WhitenedBandwidth is the RBF bandwidth h = √(median of χ²_d) in
// whitened coordinates of dimension d: 2h² is the median squared distance
// between two draws of N(0, I_d), the Laplace fit there (about 2d).
// MMD-FW in the target's scales takes it, frozen, as its default; SVGD
// there takes the particles' median distance at every iteration
// (svgd.BandwidthParticles), since a width frozen at the mode is too
// narrow where the posterior widens away from it (a hierarchical
// model's neck). SVGD's reference heuristic h² = ½ med / log(n+1) is smaller by a factor
// log(n+1) (4.6 for 100 particles): its particles then repel too weakly
// and, on a Gaussian target, settle at variances too small by a factor
// that grows with d/n (0.7 in 5 dimensions, 0.2 in 20, with 100
// particles), where this kernel's settle within 5 % in 5 dimensions and
// 10 % in 20. MMD-FW's median distance √2 h is a kernel that fits a
// curved target less well (a banana's E[b] off by up to 0.3 sd).
func WhitenedBandwidth(d int) float64 {
	return math.Sqrt(distuv.ChiSquared{K: float64(d)}.Quantile(0.5))
}

// WhitenFloor is FitAtMAP's default relative floor of the precision's
// eigenvalues (FitSettings.Floor): scales that differ by up to 10⁶ keep
// their own.
const WhitenFloor = 1e-12

// Scaled is the result of FitAtMAP: the MAP, the Laplace approximation
// there and its whitening, with what they cost.
type Scaled struct {
	MAP       MAPResult
	Approx    *Approx
	Whitening *Whitening
	// GradEvals is the MAP's and the fit's per-datapoint gradient
	// evaluations together.
	GradEvals int64
}

// FitAtMAP finds the MAP from x0 (FindMAP with ms) and fits the Laplace
// approximation there (Fit with fs): the target's own scales, for a method
// that runs in its whitened coordinates. The zero fs.Floor is WhitenFloor
// here: Fit's own default, 1e-6, would raise the precision along the
// widest axis of a posterior whose scales differ by 10³ (a condition
// number of 10⁶) and distort its whitening. The evaluations are counted
// also when an error is returned.
func FitAtMAP(ctx context.Context, t target.Target, x0 []float64, ms MAPSettings, fs FitSettings) (Scaled, error) {
	var sc Scaled
	if fs.Floor == 0 {
		fs.Floor = WhitenFloor
	}
	m, err := FindMAP(ctx, t, x0, ms)
	sc.MAP = m
	sc.GradEvals = m.GradEvals
	if err != nil {
		return sc, err
	}
	a, err := Fit(ctx, t, m.X, fs)
	if a != nil {
		sc.GradEvals += a.GradEvals
	}
	if err != nil {
		return sc, err
	}
	for _, s := range a.SD {
		if !(s > 0) || math.IsInf(s, 0) {
			return sc, fmt.Errorf("laplace: Laplace fit at the MAP has scale %v", s)
		}
	}
	sc.Approx = a
	sc.Whitening = a.Whitening()
	return sc, nil
}
