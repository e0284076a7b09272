package sampler

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// State is a run of a method between two of its steps, the one shape in
// which every method of this module can be driven a step at a time: a
// method's Init (mmdfw.Init) makes one from the target, the start, the
// settings and the source, and
//
//	for !st.Done() {
//		if err := st.Step(ctx); err != nil { … }
//	}
//	res, err := st.Result()
//	st.Close()
//
// is the run (Drive is this loop with snapshots and a clock). What one
// step is belongs to the method:
//
//	method   Init          one Step                             Done
//	mmdfw    Init          one particle (candidate, LMO, weights) N particles, or StopKSD met
//	svgd     Init          one update of every particle          Iterations, or StopPlateau met
//	sp       Init          one point                             N points, or StopKSD met
//	sgld     Init          one iteration of every chain          Iterations, or StopConverged met
//	hmc      Init          one transition of every chain         Warmup+DrawsPerChain iterations
//
// Before this contract the five States differed in shape:
//
//	          step              done flag        current set           result                  close
//	mmdfw     Step(ctx, st)     Settled field    Set() particle.Set    (mmdfw.Result, error)   none
//	svgd      Step(ctx, st)     Settled field    Particles(*mat.Dense) (particle.Set, error)   Close()
//	sp        Step(ctx, st)     Settled field    Particles(*mat.Dense) (particle.Set, error)   none
//	sgld      Step(ctx, st)     Converged field  Draws(*mat.Dense)     (particle.Set, error)   Close()
//	hmc       Step(ctx, st)     none             none                  (*hmc.Result, error)    Close()
//
// and now each has, beside the package functions and fields that remain:
//
//	Step(ctx context.Context) error
//	Done() bool
//	Set(dst *particle.Set)
//	Evals() int64
//	Result() (sampler.Result, error)
//	Close()
//
// Step makes one step; an error (a cancelled ctx, a non-finite value)
// leaves the state not to be stepped again, except that a cancellation
// before the step changes nothing. Done reports that the method's own
// stopping rule has fired or its ceiling is reached; a caller may step
// past it where the method allows (each Step says). Set writes the current
// weighted set, in the target's coordinates, into dst: dst.X and dst.W are
// reused when they have the right size and allocated otherwise, and
// dst.Diag is cleared (diagnostics come with Result). Evals returns the
// per-datapoint gradient evaluations spent so far, the set-up's included
// (the GradEvals field of every State). Result returns the
// set with its diagnostics, the cost and the method's own facts (Detail)
// without changing the state, and with the method's Strict setting the
// *particle.FlaggedError of a flagged set. Close releases what the state
// holds (goroutines, timers); it is a no-op where there is nothing, and
// Set and Result may follow it.
type State interface {
	Step(ctx context.Context) error
	Done() bool
	Set(dst *particle.Set)
	Evals() int64
	Result() (Result, error)
	Close()
}

// Result is what a run gives: the weighted set with its diagnostics and
// flags (Set.Diag), what it cost, and the facts only its method knows.
type Result struct {
	// Set is the weighted particle set, in the target's coordinates, with
	// its diagnostics in Set.Diag.
	Set particle.Set
	// Cost is the bill of the run.
	Cost Cost
	// Detail holds the method's own result, nil when it has none beyond
	// Set and Cost: *mmdfw.Result (kernel, bandwidth, MMD² trace, Laplace
	// fit, training), *hmc.Result (per-chain draws and statistics) or
	// sp.Cost (the point-by-point objective trace).
	Detail any
}

// Cost is what a run spent: Seconds of compute (recording and the final
// diagnostics excluded; Run and Drive fill it in for a State that does not
// time itself) and GradEvals, the per-datapoint gradient evaluations
// (calls × target.NData), in all and broken down into the parts that come
// before or beside the method's steps, each counted in the totals. A part
// the run did not have is zero; a part's Seconds are zero where the method
// does not time it apart.
type Cost struct {
	Seconds   float64
	GradEvals int64
	// MAP is the search for the mode (of a whitened run, of MMD-FW's
	// target scales or first particle).
	MAP Part
	// Laplace is the Laplace fit at the mode or at the first particle.
	Laplace Part
	// Start is the run that drew the starting particles (MMD-FW's SVGD
	// particles).
	Start Part
	// Pool is the drawing of a sample pool.
	Pool Part
	// Training is the training of a start (MMD-FW's FirstTrained).
	Training Part
	// References is the reference draws a run was given to measure
	// against, charged by the caller that shares them.
	References Part
}

// Part is one named part of a Cost.
type Part struct {
	Seconds   float64
	GradEvals int64
}

// SetOf writes the rows of x (nil for none) with the weights w into dst as
// State.Set asks: dst.X and dst.W reused when their sizes match, and
// dst.Diag cleared. x and w are copied. It is a helper of the methods'
// Set.
func SetOf(dst *particle.Set, x mat.Matrix, w []float64) {
	if x == nil {
		dst.X, dst.W, dst.Diag = nil, dst.W[:0], particle.Diagnostics{}
		return
	}
	n, d := x.Dims()
	Resize(dst, n, d).Copy(x)
	copy(dst.W, w)
}

// Resize readies dst for a set of n rows of dimension d as State.Set
// asks: it reuses dst.X when it is n×d and allocates it otherwise, sets
// dst.W to n equal weights 1/n (reusing its storage) and clears dst.Diag.
// It returns dst.X, for the caller to fill. It is a helper of the
// methods' Set.
func Resize(dst *particle.Set, n, d int) *mat.Dense {
	if dst.X == nil {
		dst.X = mat.NewDense(n, d, nil)
	} else if r, c := dst.X.Dims(); r != n || c != d {
		dst.X = mat.NewDense(n, d, nil)
	}
	if cap(dst.W) < n {
		dst.W = make([]float64, n)
	}
	dst.W = dst.W[:n]
	for i := range dst.W {
		dst.W[i] = 1 / float64(n)
	}
	dst.Diag = particle.Diagnostics{}
	return dst.X
}
