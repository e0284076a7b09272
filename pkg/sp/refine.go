package sp

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// Termination thresholds of the refinement, the original's fminsearch
// tolerances TolFun = TolX = 10⁻³, the latter relative to the initial
// simplex edge h (see stall).
const (
	nmTolF = 1e-3
	nmTolX = 1e-3
)

// refiner runs gonum's Nelder–Mead on the objective. Its method, converger
// and settings are kept between steps so that gonum's simplex storage is
// reused.
type refiner struct {
	obj      *objective
	nm       optimize.NelderMead
	conv     stall
	init     optimize.Location
	settings optimize.Settings
	// problem is the objective and status check handed to gonum, made
	// once; ctx is the context of the current refinement, which its
	// status check reads.
	problem optimize.Problem
	ctx     context.Context

	tolF, tolX float64 // stall's tolerances, tolX relative to the simplex edge

	// lo and hi bound the search box of the current refinement (nil: no
	// box). A location outside is answered +∞ without a score call.
	lo, hi []float64

	max     int // the cap of the current refinement
	left    int // evaluations left under the cap in the current refinement
	refused int // evaluations asked for beyond the cap, answered +∞ unscored
	outside int // evaluations outside the box, answered +∞ unscored
}

func newRefiner(o *objective) *refiner {
	r := &refiner{obj: o, tolF: nmTolF, tolX: nmTolX}
	r.settings.InitValues = &r.init
	r.settings.Converger = &r.conv
	r.settings.Concurrent = 1
	r.problem = optimize.Problem{Func: r.eval, Status: r.status}
	return r
}

// status ends the refinement when its context is done or the objective
// has failed.
func (r *refiner) status() (optimize.Status, error) {
	if err := r.ctx.Err(); err != nil {
		return optimize.Failure, err
	}
	if err := r.obj.err; err != nil {
		return optimize.Failure, err
	}
	return optimize.NotTerminated, nil
}

// run refines from x0, whose objective value f0 is known (so gonum does not
// evaluate it again), with an axis simplex of edge h and at most maxEvals
// objective evaluations. The result is the objective's best location; the
// number of score calls is the objective's count, the evaluations outside
// the box (r.lo, r.hi; nil for none) are counted in r.outside.
//
// With one task gonum checks the evaluation limit after every evaluation
// and hands out no evaluation after the limit, so it stops exactly at
// maxEvals. The objective is nevertheless guarded: an evaluation beyond
// the cap would be answered +∞ without a score call (and counted in
// refused), so the cap and the cost accounting hold whatever gonum does.
func (r *refiner) run(ctx context.Context, x0 []float64, f0, h float64, maxEvals int) error {
	r.max, r.left = maxEvals, maxEvals
	r.outside = 0
	r.nm.SimplexSize = h
	r.conv.tolF, r.conv.tolX, r.conv.window = r.tolF, r.tolX*h, len(x0)+1
	r.init.F = f0
	r.settings.FuncEvaluations = maxEvals
	r.ctx = ctx
	_, err := optimize.Minimize(r.problem, x0, &r.settings, &r.nm)
	r.ctx = nil
	if r.obj.err != nil {
		return r.obj.err
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("sp: Nelder–Mead: %w", err)
	}
	return ctx.Err()
}

// eval is the objective under the evaluation cap, restricted to the box.
// A location outside the box uses up one evaluation of the cap, as gonum
// counts it, but no score call. Locations answered +∞ (outside the box or
// with a non-finite objective) never become vertices, so the stopping test
// does not see them.
func (r *refiner) eval(x []float64) float64 {
	if r.left <= 0 {
		r.refused++
		return math.Inf(1)
	}
	r.left--
	r.obj.site.Step = r.max - r.left
	if r.lo != nil {
		for j, v := range x {
			if !(v >= r.lo[j] && v <= r.hi[j]) {
				r.outside++
				return math.Inf(1)
			}
		}
	}
	f := r.obj.eval(x)
	if !math.IsInf(f, 1) {
		r.conv.see(x, f)
	}
	return f
}

// stall is the refinement's stopping test. MATLAB's fminsearch, which the
// original used, stops when every vertex of the simplex lies within TolFun
// of the best in value and within TolX of it in every coordinate. A gonum
// Converger sees only the best vertex at each major iteration, not the
// simplex; but every vertex is a point the objective evaluated, so stall
// watches those instead: it stops when, for window consecutive major
// iterations, every point evaluated since the previous major iteration lay
// within tolF above the best value and within tolX of the best vertex in
// every coordinate. With window = d + 1 the worst vertex has been replaced
// (or the simplex shrunk) d + 1 times by points that close, and a simplex
// that has collapsed to that size proposes only points that close, so the
// test and fminsearch's stop within a few iterations of each other.
// gonum's own FunctionConverge, which watches only the best value, stops
// far from the optimum here: the best vertex often stays put for many
// iterations while the simplex is still reshaping.
type stall struct {
	tolF, tolX float64
	window     int

	lo, hi     []float64 // bounding box of the points evaluated since the last major iteration
	fmax       float64   // their largest value
	seen, iter int
}

// Init implements optimize.Converger.
func (c *stall) Init(dim int) {
	if cap(c.lo) < dim {
		c.lo, c.hi = make([]float64, dim), make([]float64, dim)
	}
	c.lo, c.hi = c.lo[:dim], c.hi[:dim]
	c.seen, c.iter = 0, 0
}

// see records an evaluated point and its value.
func (c *stall) see(x []float64, f float64) {
	if c.seen == 0 {
		copy(c.lo, x)
		copy(c.hi, x)
		c.fmax = f
	} else {
		for j, v := range x {
			c.lo[j] = math.Min(c.lo[j], v)
			c.hi[j] = math.Max(c.hi[j], v)
		}
		c.fmax = math.Max(c.fmax, f)
	}
	c.seen++
}

// Converged implements optimize.Converger; loc is the best vertex.
func (c *stall) Converged(loc *optimize.Location) optimize.Status {
	if c.seen == 0 {
		// The starting location, before any evaluation.
		return optimize.NotTerminated
	}
	close := c.fmax-loc.F <= c.tolF
	for j, v := range loc.X {
		close = close && c.hi[j]-v <= c.tolX && v-c.lo[j] <= c.tolX
	}
	c.seen = 0
	if !close {
		c.iter = 0
		return optimize.NotTerminated
	}
	c.iter++
	if c.iter >= c.window {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}
