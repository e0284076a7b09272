package laplace

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// FitSettings configure Fit.
type FitSettings struct {
	// Batch is the number of datapoints of the one fixed minibatch on which
	// every gradient of the finite differences is evaluated (a
	// target.Stochastic); 0, or a size ≥ NData, uses full-data gradients.
	// The same batch at every point keeps the differences smooth, and the
	// scaled minibatch Hessian is an unbiased estimate of the full one.
	Batch int
	// Step is the relative central-difference step: coordinate j moves by
	// Step·max(1, |xⱼ|). Default 1e-4.
	Step float64
	// Floor is the smallest eigenvalue of the precision relative to its
	// largest: an eigenvalue below Floor·λmax in absolute value (a flat
	// direction) is raised to it. Default 1e-6.
	Floor float64
	// Src draws the minibatch; it is needed only when Batch is used.
	Src rand.Source
	// FiniteDiff uses central differences even when the target offers its
	// exact Hessian (target.Hessian). Default false.
	FiniteDiff bool
}

// Approx is the Gaussian approximation N(X, Cov) of a target at a point,
// with Cov the inverse of the negative Hessian of log p there.
type Approx struct {
	// X is the point (a copy).
	X []float64
	// Cov is the covariance and SD the square roots of its diagonal, the
	// marginal posterior scales of the coordinates.
	Cov *mat.SymDense
	SD  []float64
	// Chol is the lower Cholesky factor L of Cov = LLᵀ, for Sample.
	Chol *mat.TriDense
	// Flipped counts the eigenvalues of −∇²log p that were negative (the
	// point is not a maximum) and were replaced by their absolute value;
	// Floored those raised to the floor.
	Flipped, Floored int
	// Exact reports that the precision is the target's exact Hessian
	// (target.Hessian) rather than finite differences.
	Exact bool
	// GradEvals counts the per-datapoint gradient evaluations spent, or
	// their equivalent: 2d gradients on the batch for finite differences;
	// ⌈N·d/2⌉ for an exact Hessian (HessianGradEvals).
	GradEvals int64
}

// HessianGradEvals is the cost charged for one exact Hessian of a target
// of dimension d over n datapoints, in per-datapoint gradient
// evaluations: ⌈n·d/2⌉. The Hessian of a generalised linear model is
// XᵀDX, d multiply-adds per entry of the N×d design, against two per
// entry for a gradient, so one Hessian costs about d/2 full gradients.
func HessianGradEvals(n, d int) int64 {
	return (int64(n)*int64(d) + 1) / 2
}

// Fit approximates the target near x by N(x, (−∇²log p(x))⁻¹). When the
// target implements target.Hessian, FitSettings.Batch is 0 and
// FitSettings.FiniteDiff is false, P = −∇²log p(x) is the target's exact
// Hessian, charged HessianGradEvals(N, d) in Approx.GradEvals. Otherwise
// the Hessian comes from central differences of the gradient, column by
// column (2d gradient evaluations), symmetrised. Either way its eigenvalues are made positive
// (absolute values, then a floor) so that the covariance exists away from
// a maximum as well. At the MAP point it is the classical Laplace
// approximation, whose scales are the posterior's own, not the prior's.
func Fit(ctx context.Context, t target.Target, x []float64, s FitSettings) (*Approx, error) {
	d := t.Dim()
	if len(x) != d {
		panic("laplace: Fit point length differs from the target dimension")
	}
	if s.Step <= 0 {
		s.Step = 1e-4
	}
	if s.Floor <= 0 {
		s.Floor = 1e-6
	}
	res := &Approx{X: append([]float64(nil), x...)}
	if ht, ok := t.(target.Hessian); ok && s.Batch == 0 && !s.FiniteDiff {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		P := mat.NewSymDense(d, nil)
		ht.LogProbHessian(P, x)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				v := -P.At(i, j)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("laplace: Hessian entry (%d, %d) is %v", i, j, v)
				}
				P.SetSym(i, j, v)
			}
		}
		res.Exact = true
		res.GradEvals = HessianGradEvals(target.NData(t), d)
		return res, finish(res, P, s.Floor)
	}
	st, stoch := t.(target.Stochastic)
	var batch []int
	per := int64(target.NData(t))
	if stoch && s.Batch > 0 && s.Batch < st.NData() {
		if s.Src == nil {
			return nil, errors.New("laplace: Fit with a minibatch needs FitSettings.Src")
		}
		batch = make([]int, s.Batch)
		perm := rand.New(s.Src).Perm(st.NData())
		copy(batch, perm[:s.Batch])
		per = int64(s.Batch)
	}
	// Row j of G± holds the gradient at x ± δⱼ eⱼ.
	pts := mat.NewDense(2*d, d, nil)
	del := make([]float64, d)
	for j := 0; j < d; j++ {
		del[j] = s.Step * math.Max(1, math.Abs(x[j]))
		p, m := pts.RawRowView(2*j), pts.RawRowView(2*j+1)
		copy(p, x)
		copy(m, x)
		p[j] += del[j]
		m[j] -= del[j]
	}
	grads := mat.NewDense(2*d, d, nil)
	lp := make([]float64, 2*d)
	switch {
	case batch != nil:
		if sb, ok := t.(target.StochasticBatched); ok {
			sb.MinibatchLogProbGradBatch(pts, grads, lp, batch)
		} else {
			for i := 0; i < 2*d; i++ {
				st.MinibatchLogProbGrad(pts.RawRowView(i), grads.RawRowView(i), batch)
			}
		}
	default:
		if b, ok := t.(target.Batched); ok {
			b.LogProbGradBatch(pts, grads, lp)
		} else {
			for i := 0; i < 2*d; i++ {
				if i%16 == 0 {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
				}
				t.LogProbGrad(pts.RawRowView(i), grads.RawRowView(i))
			}
		}
	}
	res.GradEvals = 2 * int64(d) * per
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// P = −∇²log p, symmetrised.
	P := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			hij := (grads.At(2*j, i) - grads.At(2*j+1, i)) / (2 * del[j])
			hji := (grads.At(2*i, j) - grads.At(2*i+1, j)) / (2 * del[i])
			v := -(hij + hji) / 2
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("laplace: Hessian entry (%d, %d) is %v", i, j, v)
			}
			P.SetSym(i, j, v)
		}
	}
	return res, finish(res, P, s.Floor)
}

// finish turns the precision P into res's covariance, scales and Cholesky
// factor: eigenvalues made positive (absolute values, then the floor
// relative to the largest) and inverted.
func finish(res *Approx, P *mat.SymDense, relFloor float64) error {
	d := P.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(P, true) {
		return errors.New("laplace: eigendecomposition of the Hessian failed")
	}
	lam := eig.Values(nil)
	var Q mat.Dense
	eig.VectorsTo(&Q)
	var top float64
	for _, v := range lam {
		top = math.Max(top, math.Abs(v))
	}
	if !(top > 0) {
		return errors.New("laplace: the Hessian is zero")
	}
	floor := relFloor * top
	for i, v := range lam {
		if v < 0 {
			res.Flipped++
			v = -v
		}
		if v < floor {
			res.Floored++
			v = floor
		}
		lam[i] = 1 / v
	}
	// Cov = Q diag(1/λ) Qᵀ.
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		qi := Q.RawRowView(i)
		for j := i; j < d; j++ {
			qj := Q.RawRowView(j)
			var v float64
			for k, l := range lam {
				v += qi[k] * l * qj[k]
			}
			cov.SetSym(i, j, v)
		}
	}
	res.Cov = cov
	res.SD = make([]float64, d)
	for j := range res.SD {
		res.SD[j] = math.Sqrt(cov.At(j, j))
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return errors.New("laplace: covariance is not positive definite")
	}
	res.Chol = mat.NewTriDense(d, mat.Lower, nil)
	ch.LTo(res.Chol)
	return nil
}

// Noise writes c·Lz into dst, a draw of N(0, c²Cov) when z holds d
// independent standard normal draws (the caller's, so that the noise
// costs no allocation and no random source of its own).
func (l *Approx) Noise(dst []float64, c float64, z []float64) {
	d := len(l.X)
	if len(dst) != d || len(z) != d {
		panic("laplace: Noise length mismatch")
	}
	raw := l.Chol.RawTriangular()
	for i := 0; i < d; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+i+1]
		var v float64
		for k, a := range row {
			v += a * z[k]
		}
		dst[i] = c * v
	}
}

// Sample writes n draws of N(X, Cov), drawn from src, into the rows of a
// new n×d matrix.
func (l *Approx) Sample(n int, src rand.Source) *mat.Dense {
	rng := rand.New(src)
	d := len(l.X)
	out := mat.NewDense(n, d, nil)
	z := make([]float64, d)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		l.Noise(row, 1, z)
		for j, v := range l.X {
			row[j] += v
		}
	}
	return out
}
