package sampler

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// State is a run of a method between two of its steps, the one shape in
// which every method of this module can be driven a step at a time: a
// method's Init (mmdfw.NewState) makes one from the target, the start, the
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
//	mmdfw    NewState      one particle (candidate, LMO, weights) N particles, or StopKSD met
//	svgd     Init          one update of every particle          Iterations, or StopPlateau met
//	sp       Init          one point                             N points, or StopKSD met
//	sgld     Init          one iteration of every chain          Iterations, or StopConverged met
//	hmc      Init          one transition of every chain         Warmup+Draws iterations
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
// diagnostics excluded; zero from a State that does not time itself, see
// Drive) and GradEvals, the per-datapoint gradient evaluations (calls ×
// target.NData), in all and broken down by Parts where the method knows
// them.
type Cost struct {
	Seconds   float64
	GradEvals int64
	// Parts names the parts of the cost that come before or beside the
	// method's steps, each counted in the totals above: "map" (the MAP
	// search), "laplace" (the Laplace fit), "scale" (the MAP and Laplace
	// fit of a whitened run, when not told apart), "start" (an SVGD run
	// drawing the starting particles), "pool" (a sample pool), "training"
	// (the training of a start), "references" (reference draws). A part
	// the run did not have is absent.
	Parts []Part
}

// Part is one named part of a Cost.
type Part struct {
	Name      string
	Seconds   float64
	GradEvals int64
}

// Part returns the part of c named name and whether there is one.
func (c Cost) Part(name string) (Part, bool) {
	for _, p := range c.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return Part{}, false
}

// Drive runs st to its end: it records the start (Step 0) and the set
// after every step through rec (nil records nothing), steps until st.Done,
// and returns st.Result. particle.ErrStop from rec ends the run with the
// result at that snapshot and a nil error (beside Strict's); another error
// from rec, from ctx or from Step ends it with that error wrapped and the
// result of the steps made so far when a cancellation left the state
// readable. Drive does not close st. The snapshots' Seconds and, when st
// does not time itself (Result's Cost.Seconds is zero), the result's, are
// the seconds of the steps, recording excluded; their GradEvals is
// st.Evals. A snapshot before the method has a set (SGLD's burn-in, HMC's
// warm-up) is skipped. Each snapshot copies the set (State.Set into one
// buffer that Drive reuses): a recorder that keeps a snapshot past its
// Record call copies it.
func Drive(ctx context.Context, st State, rec particle.Recorder) (Result, error) {
	var sw particle.Stopwatch
	var set particle.Set
	snap := func(step int) (bool, error) {
		if rec == nil {
			return false, nil
		}
		sw.Stop()
		st.Set(&set)
		sw.Start()
		if set.X == nil {
			return false, nil
		}
		return particle.Report(rec, &sw, particle.Snapshot{Step: step, X: set.X, W: set.W, GradEvals: st.Evals()})
	}
	end := func(err error) (Result, error) {
		sw.Stop()
		res, rerr := st.Result()
		if res.Cost.Seconds == 0 {
			res.Cost.Seconds = sw.Seconds()
		}
		if err != nil {
			return res, err
		}
		return res, rerr
	}
	sw.Start()
	if stop, err := snap(0); stop || err != nil {
		return end(wrapRec(err, 0))
	}
	for step := 1; !st.Done(); step++ {
		if err := ctx.Err(); err != nil {
			return end(err)
		}
		if err := st.Step(ctx); err != nil {
			if ctx.Err() != nil {
				// A cancelled state is still readable.
				return end(err)
			}
			sw.Stop()
			return Result{}, err
		}
		if stop, err := snap(step); stop || err != nil {
			return end(wrapRec(err, step))
		}
	}
	return end(nil)
}

// wrapRec wraps a recorder's error with the step of its snapshot.
func wrapRec(err error, step int) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sampler: recorder at step %d: %w", step, err)
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

// Set returns the set of r with err: Set(m.Run(…)) for a caller that
// keeps only the particles, as Sampler.Run returns them.
func Set(r Result, err error) (particle.Set, error) { return r.Set, err }
