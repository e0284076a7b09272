package sgld

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// State is an SGLD run between two iterations of its chains: Init makes
// one, Step advances every chain by one iteration (Steps by several, the
// chains on Settings.Workers goroutines, with the same result), and Run is
// the loop
//
//	st, err := Init(ctx, t, start, s, src)
//	for !st.Done() { err = Steps(ctx, st, RecordEvery) }
//	res, err := st.Result()
//
// with its snapshots. The chains' positions, random streams, minibatch
// orders, step-size adaptations and kept draws live inside the State; the
// fields below are what a caller reads between steps. Step sets them.
type State struct {
	// Iteration is the number of iterations every chain has made, 0
	// after Init.
	Iteration int
	// GradEvals is the number of per-datapoint gradient evaluations spent
	// so far: those of the MAP search and the Laplace fit with
	// WhitenLaplace, then |B| per iteration and chain with minibatches
	// (N with full-data gradients).
	GradEvals int64
	// Converged reports that StopConverged's criterion (R̂ below MaxRhat
	// and bulk ESS at least MinESS over the second half of every chain's
	// kept draws) was met at the last check. The checks come every
	// RecordEvery iterations and at Iterations, at most every tenth of the
	// iterations since the burn-in. Always false with StopFixed.
	Converged bool

	r *state
	// s is the resolved Settings of the caller (in x with WhitenLaplace;
	// r.s are those of the chains in z).
	s Settings
	// wh maps the run's coordinates z to the target's x (its W nil with
	// WhitenNone, where the run is in x) and holds what the fit cost.
	wh sampler.Whitened
}

// state holds the chains of a run in the coordinates of t and the workers
// that advance them.
type state struct {
	t      target.Target
	s      Settings // resolved
	fr     *laplace.Frame
	d      int
	chains []*chain
	cv     *convergence
	snap   []float64 // the retained draws (collect)
	w      []float64

	// Worker k advances chains k, k+Workers, … to the iteration it
	// receives, under ctx.
	ctx   context.Context
	start []chan int
	done  chan struct{}
}

// Init returns the state of an SGLD run before its first iteration: the
// chains at their starts, each with its own random stream seeded in turn
// from src. With WhitenNone a chain starts at start.X0 + InitScale·z,
// z ~ N(0, I), when start.X0 is not nil (length Dim), else at a draw of
// the prior when the target is a target.PriorSampler, and at InitScale·z
// otherwise. With WhitenLaplace (the default) Init first searches the MAP
// x̂ from start.X0 (default a prior draw, else the origin) and fits the
// Laplace approximation N(x̂, LLᵀ) there, under ctx, charging their
// gradient evaluations to the state, and the chains start at
// x̂ + InitScale·Lz. A drawn start whose log density or score is not finite
// (outside a bounded support) is drawn again, up to MaxStartDraws times;
// a single start point (X0 with NoInitScale) outside is an error. A starting
// set (start.Particles) is an error.
//
// The State keeps Settings.Workers goroutines: Close releases them.
func Init(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source) (*State, error) {
	s, err := s.withDefaults(t, start)
	if err != nil {
		return nil, err
	}
	if s.Whiten != WhitenLaplace {
		r, err := newState(t, s, start.X0, src, nil)
		if err != nil {
			return nil, err
		}
		return &State{r: r, s: s}, nil
	}
	d := t.Dim()
	sc, err := laplace.FitFromStart(ctx, t, "sgld", start.X0, rand.New(src), laplace.MAPSettings{}, laplace.FitSettings{})
	if err != nil {
		if e := ctx.Err(); e != nil {
			return nil, fmt.Errorf("sgld: stopped while fitting the target's scales: %w", e)
		}
		return nil, err
	}
	w := sc.Whitening
	inner := s
	inner.Whiten = WhitenNone
	// Strict applies to the set in x (Result).
	inner.Strict = false
	// In z the chains start around the origin, the MAP.
	r, err := newState(w.Target(t), inner, make([]float64, d), src, &laplace.Frame{Target: t, W: w})
	if err != nil {
		return nil, err
	}
	return &State{GradEvals: sc.GradEvals, r: r, s: s, wh: sampler.Fit(sc)}, nil
}

// newState starts the chains of the resolved s on t around x0 (nil: the
// default start) and their workers, the diagnostics in the coordinates of
// fr (nil: those of t).
func newState(t target.Target, s Settings, x0 []float64, src rand.Source, fr *laplace.Frame) (*state, error) {
	d := t.Dim()
	rows, keep := (s.Iterations-s.BurnIn)/s.Thin, 0
	if s.Keep > 0 {
		if s.Stop == StopConverged && s.Monitor != MonitorKept {
			// The monitor reads every draw since the burn-in; the set
			// the last Keep of its second half.
			keep = s.Keep
		} else {
			rows = min(rows, s.Keep)
		}
	}
	r := &state{t: t, s: s, fr: fr, d: d}
	s0, scale := x0, s.InitScale
	master := rand.New(src)
	r.chains = make([]*chain, s.Chains)
	for i := range r.chains {
		pcg := rand.NewPCG(master.Uint64(), master.Uint64())
		rng := rand.New(pcg)
		c := &chain{
			id:    i,
			s:     &r.s,
			x:     make([]float64, d),
			g:     make([]float64, d),
			rng:   rng,
			pcg:   pcg,
			draws: make([]float64, 0, min(rows, 1024)*d),
			rows:  rows,
			keep:  keep,
		}
		ps, ok := t.(target.PriorSampler)
		switch {
		case s0 != nil:
			c.redraw = func(x []float64) { copy(x, s0); jitter(x, scale, c.rng) }
		case ok:
			c.redraw = func(x []float64) { ps.SamplePrior(c.rng, x) }
		default:
			c.redraw = func(x []float64) { clear(x); jitter(x, scale, c.rng) }
		}
		if scale == 0 && (s0 != nil || !ok) {
			c.fixed = true // one start point, nothing to redraw
		}
		c.redraw(c.x)
		if err := particle.CheckFinite(fmt.Sprintf("sgld: chain %d", i), 0, c.x); err != nil {
			return nil, err
		}
		c.est = newEstimator(t, s.Batch, rng)
		c.ad = r.s.adaptation(c.est, d)
		r.chains[i] = c
	}
	r.cv = r.s.converge(len(r.chains), d)
	r.ctx = context.Background()
	if s.Workers > 1 {
		r.start = make([]chan int, s.Workers)
		r.done = make(chan struct{}, s.Workers)
		for k := range r.start {
			r.start[k] = make(chan int)
			go func(k int, todo <-chan int) {
				for until := range todo {
					for i := k; i < len(r.chains); i += s.Workers {
						r.chains[i].run(r.ctx, until)
					}
					r.done <- struct{}{}
				}
			}(k, r.start[k])
		}
	}
	return r, nil
}

// Step advances every chain of st by one iteration,
//
//	θ ← θ + (ε_t/2)·ĝ(θ) + √ε_t·z,  z ~ N(0, I),
//
// on the calling goroutine, keeps the state after the burn-in every Thin
// iterations, and at the checks of StopConverged sets Converged. It
// allocates nothing once the chains' draw buffers have grown (their first
// pass). A cancelled ctx returns an error wrapping ctx.Err() before the
// iteration; a chain that diverges, or whose log density or score is not
// finite, returns the error Run returns (naming the chain and the
// iteration); st is then not to be stepped again.
func Step(ctx context.Context, st *State) error {
	return st.advance(ctx, st.Iteration+1)
}

// Steps advances every chain of st by k iterations: k calls of Step, with
// the same result bit for bit, the chains on Settings.Workers goroutines.
func Steps(ctx context.Context, st *State, k int) error {
	end := st.Iteration + k
	for st.Iteration < end {
		every := st.r.s.RecordEvery
		next := (st.Iteration/every + 1) * every
		if st.Iteration < st.s.Iterations {
			next = min(next, st.s.Iterations)
		}
		if err := st.advance(ctx, min(next, end)); err != nil {
			return err
		}
	}
	return nil
}

// advance runs every chain to iteration until (one segment, no check of
// StopConverged within), then checks StopConverged when until is one of
// its points: a multiple of RecordEvery, or Iterations.
func (st *State) advance(ctx context.Context, until int) error {
	r := st.r
	if until-st.Iteration > 1 && r.start != nil {
		r.ctx = ctx
		for _, ch := range r.start {
			ch <- until
		}
		for range r.start {
			<-r.done
		}
		r.ctx = context.Background()
	} else {
		for _, c := range r.chains {
			c.run(ctx, until)
		}
	}
	// The earliest divergence, lowest chain first: the same error
	// whatever the scheduling.
	var bad *chain
	for _, c := range r.chains {
		if c.err != nil && (bad == nil || c.it < bad.it) {
			bad = c
		}
	}
	st.GradEvals = st.wh.Evals + r.evals()
	if bad != nil {
		st.Iteration = r.lowest(until)
		return bad.err
	}
	if err := ctx.Err(); err != nil {
		st.Iteration = r.lowest(until)
		return fmt.Errorf("sgld: stopped after iteration %d: %w", st.Iteration, err)
	}
	st.Iteration = until
	if until%r.s.RecordEvery == 0 || until == r.s.Iterations {
		st.Converged = r.cv.check(r.chains, until)
	}
	return nil
}

// lowest returns the least iteration of the chains, at most until.
func (r *state) lowest(until int) int {
	lo := until
	for _, c := range r.chains {
		lo = min(lo, c.it)
	}
	return lo
}

// evals returns the gradient evaluations of the chains.
func (r *state) evals() int64 {
	var e int64
	for _, c := range r.chains {
		e += c.est.evals
	}
	return e
}

// collect gathers the retained draws of the chains, chain by chain and
// oldest first, into r.snap and returns their number.
func (r *state) collect() int {
	d := r.d
	n := 0
	for _, c := range r.chains {
		n += c.retained()
	}
	if cap(r.snap) < n*d {
		r.snap, r.w = make([]float64, n*d, 2*n*d), make([]float64, n, 2*n)
	}
	r.snap, r.w = r.snap[:n*d], r.w[:n]
	off := 0
	for _, c := range r.chains {
		off += c.copyDraws(r.snap[off:])
	}
	return n
}

// result returns the retained draws with equal weights, in the chains'
// coordinates; an empty set when none is kept yet.
func (r *state) result() particle.Set {
	n := r.collect()
	if n == 0 {
		return particle.Set{}
	}
	return particle.Set{
		X: mat.NewDense(n, r.d, append([]float64(nil), r.snap[:n*r.d]...)),
		W: particle.Equal(n),
	}
}

// finish returns the set after iteration at with its diagnostics, and
// the convergence monitor's when the run ended by it (concluded): then
// its R̂ and ESS stand, and the diagnostics add no R̂ of their own.
func (r *state) finish(at int, concluded bool) (particle.Set, error) {
	set := r.result()
	if concluded {
		set = r.cv.finish(set, r.chains)
	}
	redrawns := 0
	for _, c := range r.chains {
		redrawns += c.redrawns
	}
	if redrawns > 0 {
		set.Diag.Set("start_redraws", float64(redrawns))
	}
	if r.s.NoDiagnostics || set.Len() == 0 {
		return set, nil
	}
	rhat := !concluded || r.cv == nil
	if err := diagnose(&set, r.t, r.fr, r.chains, rhat, at, r.evals()); err != nil {
		return set, err
	}
	return set, particle.Strict("sgld", set, r.s.Strict)
}

// Len returns the number of draws kept so far over all chains (with
// StopConverged, after a check, those of the second half of every
// chain's kept draws): the rows of Draws.
func (st *State) Len() int {
	n := 0
	for _, c := range st.r.chains {
		n += c.retained()
	}
	return n
}

// Draws writes the draws kept so far, chain by chain and oldest first, in
// the target's coordinates, into dst (Len()×d; allocated when nil) and
// returns it; nil when no draw is kept yet (during the burn-in).
func (st *State) Draws(dst *mat.Dense) *mat.Dense {
	r := st.r
	n := r.collect()
	if n == 0 {
		return nil
	}
	if dst == nil {
		dst = mat.NewDense(n, r.d, nil)
	}
	z := mat.NewDense(n, r.d, r.snap[:n*r.d])
	if st.wh.W != nil {
		return st.wh.W.RowsToX(dst, z)
	}
	dst.Copy(z)
	return dst
}

// Close stops the workers of st. Step must not be called after it;
// Draws and Result may.
func (st *State) Close() {
	for _, ch := range st.r.start {
		close(ch)
	}
	st.r.start = nil
}

// end returns set, the run's set, and err as Run does (see
// sampler.Whitened.End).
func (st *State) end(ctx context.Context, set particle.Set, err error) (particle.Set, error) {
	return st.wh.End(ctx, "sgld", set, err, st.s.Strict)
}
