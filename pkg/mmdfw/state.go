package mmdfw

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// State is an MMD-FW run between two particles: Init sets the run up and
// places the first particle, Step adds one more (a candidate, its LMO, the
// particle, and the weights solved again), and Run is the loop
//
//	st, err := Init(ctx, t, start, s, src)
//	for !st.Done() { err = st.Step(ctx) }
//	res, err := st.Result() // res.Detail is the *Result
//
// with its snapshots. The particles, their cached scores, the weights'
// Gram matrices, the kernel and the embedding live inside the State; the
// fields below are what a caller reads between steps. Step sets them.
// A State is a sampler.Checkpointer: MarshalState saves it between two
// particles and UnmarshalState restores it into a State that Init made
// from the same inputs and source (a *rand.PCG or *rand.ChaCha8), which
// then continues bit for bit.
type State struct {
	// Particles is the number n of particles placed, 1 after Init.
	Particles int
	// GradEvals is the number of per-datapoint gradient evaluations
	// spent so far, the set-up's (MAP search, Laplace fits, pool, SVGD
	// start, bandwidth draws) included.
	GradEvals int64
	// Bandwidth is the frozen RBF bandwidth h of the run's kernel, in the
	// run's coordinates (whitened with ScaleTarget).
	Bandwidth float64
	// Settled reports that StopKSD's criterion has been met: the weighted
	// particles' KSD² is at most that of KSDSize independent draws.
	// Always false without StopKSD.
	Settled bool

	r *run
	// s is the resolved Settings of the caller (ScaleTarget's in x; r.s
	// are those of the run in z).
	s Settings
	// With ScaleTarget: w maps the run's coordinates z to x, and pre holds
	// the seconds and gradient evaluations of the MAP and the fit.
	w   *laplace.Whitening
	pre Result
	buf []float64 // the snapshots' rows in x
}

// Init validates s, sets an MMD-FW run on t up and places its first
// particle (see Settings.First): the MAP search and the Laplace fit of
// ScaleTarget (the default), the SVGD particles, the pool, the scales and
// the bandwidth as Settings asks, all under ctx and charged to the state.
// src seeds every random choice of the run.
func Init(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source) (*State, error) {
	st, _, _, err := initState(ctx, t, start, s, src, nil)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Step adds one particle to st: a candidate (Settings.CandidateInit), the
// Approx-LMO's AdaGrad steps from it, the particle with its score, and the
// weights solved again (Settings.Weights); then StopKSD's check. The
// buffers hold Settings.N particles: a Step past them is an error. A
// cancelled ctx returns
// ctx.Err() before the particle; a non-finite log density or score at the
// particle or a candidate returns a *particle.NonFiniteError naming them,
// and st is then not to be stepped again.
func Step(ctx context.Context, st *State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := st.r
	if r.n >= r.s.N {
		return fmt.Errorf("mmdfw: Step past the ceiling of %d particles (Settings.N)", r.s.N)
	}
	r.sw.Start()
	_, err := st.next()
	r.sw.Stop()
	return err
}

// sync copies the run's counters into the exported fields.
func (st *State) sync() {
	r := st.r
	st.Particles = r.n
	st.GradEvals = st.pre.GradEvals + r.evals
	st.Bandwidth = r.h
}

// initState is Init with the recorder of Run: it returns the state
// (nil, with the partial Result and the error, when the settings are
// invalid or ScaleTarget's MAP and fit fail), and done when the run ended
// in its set-up (with err, or a stop of the recorder at the first
// particle).
func initState(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (*State, Result, bool, error) {
	if err := s.Validate(); err != nil {
		return nil, Result{}, true, fmt.Errorf("mmdfw: %w", err)
	}
	g := newGiven(start, s.Inputs)
	if err := g.check(&s); err != nil {
		return nil, Result{}, true, fmt.Errorf("mmdfw: %w", err)
	}
	s.defaults(g)
	rng := rand.New(src)
	st := &State{s: s}
	inner, innerG, fr := s, g, (*laplace.Frame)(nil)
	rt := t
	if s.Scale == ScaleTarget {
		var sw particle.Stopwatch
		sw.Start()
		d := t.Dim()
		sc, err := laplace.FitFromStart(ctx, t, "mmdfw", g.X0, rng,
			laplace.MAPSettings{Iterations: s.MAPIterations, GradTol: s.MAPGradTol, Batch: s.MAPBatch, Src: rng, NewtonTol: s.MAPNewtonTol},
			laplace.FitSettings{Batch: s.LaplaceBatch, Src: rng})
		res := Result{GradEvals: sc.GradEvals, MAPGradEvals: sc.MAP.GradEvals, LaplaceGradEvals: sc.GradEvals - sc.MAP.GradEvals}
		if err != nil {
			sw.Stop()
			res.Seconds = sw.Seconds()
			return nil, res, true, err
		}
		w := sc.Whitening
		ig := *g
		innerG = &ig
		inner.Scale, innerG.Scales = ScaleGiven, make([]float64, d)
		for j := range innerG.Scales {
			innerG.Scales[j] = 1
		}
		innerG.X0 = make([]float64, d)
		if s.First == FirstGiven {
			w.ToZ(innerG.X0, g.X0)
		}
		inner.First = FirstGiven
		if inner.Bandwidth == 0 {
			inner.Bandwidth = laplace.WhitenedBandwidth(d)
		}
		// Strict applies to the set in x (result).
		inner.Strict = false
		sw.Stop()
		res.Seconds = sw.Seconds()
		res.Laplace = sc.Approx
		st.w, st.pre = w, res
		rt, fr = w.Target(t), &laplace.Frame{Target: t, W: w}
		rec = w.Recorder(rec, res.Seconds, sc.GradEvals)
	}
	r := &run{t: rt, s: inner, in: innerG, src: src, rng: rng, rec: rec, d: rt.Dim(), ndata: int64(target.NData(rt)), ks: inner.ksdStop(), frame: fr}
	st.r = r
	r.sw.Start()
	done, err := r.setup(ctx)
	r.sw.Stop()
	// The set-up reports its snapshots itself; then sampler.Run's loop
	// does (Snapshot).
	r.rec = nil
	st.sync()
	return st, Result{}, done, err
}

// result assembles the Result of st after its run ended with err, as
// Run returns it: with ScaleTarget, the seconds and gradient
// evaluations of the MAP and the fit added, the particles mapped to x
// and the caller's Strict.
func (st *State) result(ctx context.Context, err error) (Result, error) {
	res, err := st.r.finish(ctx, err)
	w := st.w
	if w == nil {
		return res, err
	}
	pre := st.pre
	res.Seconds += pre.Seconds
	res.GradEvals += pre.GradEvals
	res.MAPGradEvals += pre.MAPGradEvals
	res.LaplaceGradEvals += pre.LaplaceGradEvals
	res.Laplace, res.Scales = pre.Laplace, nil
	if res.Set.X != nil {
		res.Set.X = w.RowsToX(nil, res.Set.X)
		res.Set.Diag.Set("scale_grad_evals", float64(pre.GradEvals))
	}
	if err == nil {
		err = particle.Strict("mmdfw", res.Set, st.s.Strict)
	}
	return res, err
}
