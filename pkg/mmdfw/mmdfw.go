package mmdfw

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/rff"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Result is the Detail of Run's sampler.Result (a *Result): the particles
// and what the run decided and spent.
type Result struct {
	// Set holds the weighted particles.
	Set particle.Set
	// Kernel is the frozen kernel of the run and Bandwidth its h (with
	// ScaleTarget both act on the whitened coordinates L⁻¹(x − x̂) of
	// Laplace).
	Kernel    Kernel
	Bandwidth float64
	// Seconds is the compute time and GradEvals the per-datapoint gradient
	// evaluations of the whole run (MAP search and pool included).
	Seconds   float64
	GradEvals int64
	// MAPGradEvals, PoolGradEvals, SVGDGradEvals and LaplaceGradEvals
	// are the parts of GradEvals spent finding the first particle,
	// drawing the pool, running SVGD first and fitting the Laplace
	// approximations (of ScaleLaplace or ScaleTarget, and of InitLaplace's
	// candidates under ScaleBandwidth).
	MAPGradEvals     int64
	PoolGradEvals    int64
	SVGDGradEvals    int64
	LaplaceGradEvals int64
	// TrainGradEvals is the part spent training the first particle
	// (FirstTrained) and Train the training's outcome (nil otherwise).
	TrainGradEvals int64
	Train          *optim.Result
	// Scales are the per-coordinate scales of ScaleGiven (nil otherwise).
	Scales []float64
	// Laplace is the Laplace approximation of ScaleLaplace, or the fit
	// at the MAP whose coordinates ScaleTarget whitens (nil otherwise).
	Laplace *laplace.Approx
	// WeightSolve describes the pairwise solves of the Stein and MMD rules
	// (SolverPairwise; zero otherwise).
	WeightSolve WeightStats
	// MMD2 is ½‖μ̂ − μ_p‖² of the run's own (not normalised) weights after
	// each particle, when z is available (for an exact embedding it is
	// exact; for a pool it is the pool's estimate); nil otherwise.
	MMD2 []float64
}

// Keys of the statistics a run reports in particle.Snapshot.Stats.
const (
	// StatMMD2Kernel is ‖μ̂ − μ_p‖² (no ½, as metric.MMD2) of the
	// snapshot's particles and reported weights in the run's own kernel,
	// from the exact embedding (ZExact): the objective the run minimises,
	// in the kernel it minimises it in. With random features it is MMD² in
	// their finite-dimensional feature space, computed there directly.
	StatMMD2Kernel = "mmd2_kernel"
	// StatMMD2KernelPool is the same quantity with z and ∫∫k dp dp
	// estimated from the pool (ZPool): an estimate, named apart so that it
	// is never mistaken for the exact value.
	StatMMD2KernelPool = "mmd2_kernel_pool"
)

// Run approximates the target by N weighted particles added greedily by
// Frank-Wolfe on MMD² (the paper's Alg. 2/3) and returns them. rec receives
// a snapshot after every added particle; particle.ErrStop from rec ends the
// run with the particles so far. src seeds every random choice.
//
// start is where the run begins: start.X0 the first particle of FirstGiven
// (length Dim) and the point the MAP search (FirstMAP, ScaleTarget) or the
// training (FirstTrained) starts from, default a prior draw, else the
// origin; start.Particles the SVGD particles (rows) of InitSVGD, of the
// SVGD→MMD-FW start and of the median heuristic, which Inputs.SVGD draws
// when nil. s.Inputs holds the run's data and strategies (see Inputs; the
// zero value asks for none). Settings that contradict s.Inputs or start
// are an error wrapping a *setting.Error.
//
// A non-finite log density or score at a particle (iteration n, particle n,
// counted from 1) or at a candidate of its LMO (iteration n, candidate n,
// LMO step t from 1; the minibatch estimate when Settings.Batch is set) ends
// the run with a *particle.NonFiniteError and the n − 1 particles before.
// The returned set carries its diagnostics (Set.Diag, see diagnose, in the
// target's coordinates with ScaleTarget); with Settings.Strict a flagged
// set (a "ceiling" of StopKSD included) comes with a *particle.FlaggedError.
//
// Run is the loop over Init and Step, with the snapshots. The Result's
// Detail is the *Result: the kernel and bandwidth, the MMD² trace, the
// parts of the cost, the Laplace fit, the training.
func Run(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
	return sampler.Run(ctx, func(rec particle.Recorder) (sampler.State, error) {
		st, _, done, err := initState(ctx, t, start, s, src, rec)
		if st == nil || (done && err != nil) {
			return nil, err
		}
		// done with a nil error: the recorder stopped the run in its
		// set-up, and sampler.Run finishes it at once.
		return st, nil
	}, rec)
}

// finish assembles the Result of r after its run ended with err (nil, a
// stop or the ceiling): the particles with their reported weights, the
// diagnostics and Strict when err is nil. A run that fails (other than by
// cancellation) returns no particles.
func (r *run) finish(ctx context.Context, err error) (Result, error) {
	s := r.s
	res := Result{
		Kernel: r.k, Bandwidth: r.h,
		Seconds: r.sw.Seconds(), GradEvals: r.evals,
		MAPGradEvals: r.mapEvals, PoolGradEvals: r.poolEvals, SVGDGradEvals: r.svgdEvals,
		LaplaceGradEvals: r.lapEvals, Laplace: r.lap,
		TrainGradEvals: r.trainEvals, Train: r.train, Scales: r.sig,
		MMD2: r.mmd,
	}
	if err != nil && ctx.Err() == nil {
		// A failure leaves nothing that could pass for an answer.
		return res, err
	}
	if r.n == 0 && r.x1 != nil {
		// Stopped at the early snapshot of the first particle.
		res.Set = particle.Set{X: mat.NewDense(1, r.d, append([]float64(nil), r.x1...)), W: []float64{1}}
	}
	if r.n > 0 {
		res.Set = particle.Set{
			X: mat.DenseCopyOf(r.X.Slice(0, r.n, 0, r.d)),
			W: append([]float64(nil), r.reported()...),
		}
	}
	r.weightStats(&res)
	if err == nil {
		r.ks.finish(&res.Set)
		if !s.NoDiagnostics {
			r.diagnose(&res.Set)
		}
		err = particle.Strict("mmdfw", res.Set, s.Strict)
	}
	return res, err
}

type run struct {
	t     target.Target
	s     Settings
	in    *given      // the run's own copy: set-up fills TrainTarget and SVGDParticles
	src   rand.Source // the source of rng, saved by MarshalState
	rng   *rand.Rand
	rec   particle.Recorder
	sw    particle.Stopwatch
	d     int
	ndata int64

	evals, mapEvals, poolEvals, svgdEvals, lapEvals, trainEvals int64

	// train is the outcome of FirstTrained; sig the scales of ScaleGiven.
	train *optim.Result
	sig   []float64
	// early records that the first particle's snapshot was reported as
	// soon as it existed, before the scales and the bandwidth.
	early bool
	x1    []float64

	// lap is the Laplace approximation of ScaleLaplace; eps the AdaGrad
	// step of every coordinate.
	lap *laplace.Approx
	eps []float64
	// claw is the law of InitLaplace's candidates under ScaleBandwidth:
	// a Laplace fit at the first particle for the candidates alone.
	claw *laplace.Approx

	h      float64
	k      Kernel
	steinK kernel.RBF // base kernel of the Stein weights
	emb    Embedder
	gemb   GradEmbedder
	self   float64

	n  int
	X  *mat.Dense // N×d particles
	S  *mat.Dense // N×d cached scores
	lp []float64  // N cached log densities, for the diagnostics
	wt *weights

	mmd  []float64
	wrep []float64 // reported weights (normalised unless RawWeights)

	// Random-feature fast path: the features of the particles, and scratch.
	rff   *rff.Features
	field *rff.SteinField
	phi   *mat.Dense // N×D features of the particles
	agg   []float64  // Σᵢ wᵢ φ(xᵢ)
	feat  []float64  // scratch, length D

	// stats is the map of every snapshot's Stats (nil without z), statKey
	// its one key.
	stats   map[string]float64
	statKey string
	// rec is the recorder of the set-up (nil after it); snapped the
	// count of particles of the last snapshot reported.
	snapped int
	// ksPrev is StopKSD's state before the last particle: a run that its
	// recorder stops at a particle's snapshot reports the rule as it
	// stood before that particle's check.
	ksPrev ksdStop

	// Views of the first n rows of X and S during an LMO (xv, sv: the
	// headers xview, sview), and its step; snapX is the header of the
	// snapshots' particles. The headers are reused: a step allocates none.
	xv, sv              *mat.Dense
	xview, sview, snapX mat.Dense
	lmoStep             int

	// LMO scratch; best is the best candidate start of Settings.Starts.
	g, hist, tmp, sx, krow, k0row, best []float64
	batch                               []int

	// ks is the state of StopKSD (nil without it).
	ks *ksdStop
	// cand is the candidate of the next particle (the first particle
	// while the run is set up).
	cand []float64
	// frame is where the diagnostics are computed (nil: in t's
	// coordinates).
	frame *laplace.Frame
}

// setup is the algorithm up to the first particle: the checks of the
// inputs, the SVGD particles and the pool it may draw, the first
// particle's scales, the frozen bandwidth and kernel, the embedding, the
// buffers, the first particle and the law of the candidates. It returns
// done when the run ends there (an error, or a stop from the recorder at
// the first particle's snapshots).
func (r *run) setup(ctx context.Context) (done bool, err error) {
	if err := r.checkInputs(); err != nil {
		return true, err
	}
	if err := r.svgdInit(ctx); err != nil {
		return true, err
	}
	if err := r.checkSources(); err != nil {
		return true, err
	}
	pool, err := r.drawPool(ctx)
	if err != nil {
		return true, err
	}
	x := make([]float64, r.d)
	r.cand = x
	firstDone, done, err := r.scales(ctx, x)
	if done {
		return true, err
	}
	if firstDone, done, err = r.bandwidth(ctx, x, pool, firstDone); done {
		return true, err
	}
	if err := r.kernel(); err != nil {
		return true, err
	}
	if err := r.embedding(pool); err != nil {
		return true, err
	}
	r.allocate()

	if !firstDone {
		if err := r.first(ctx, x); err != nil {
			return true, err
		}
	}
	if stop, err := r.add(x); stop || err != nil {
		return true, err
	}
	if err := r.candidateLaw(ctx); err != nil {
		return true, err
	}
	return false, nil
}

// next adds one particle: the candidate, its LMO, the particle with its
// weights (and snapshot), then StopKSD's check. It reports stop when the
// recorder asked to stop or StopKSD is met.
func (st *State) next() (stop bool, err error) {
	r := st.r
	x := r.cand
	r.candidate(x)
	if err := r.lmo(x); err != nil {
		return true, err
	}
	if err := particle.CheckFinite("mmdfw", r.n+1, x); err != nil {
		return true, err
	}
	if stop, err := r.add(x); stop || err != nil {
		st.sync()
		return true, err
	}
	if r.ks != nil {
		r.ksPrev = *r.ks
	}
	st.Settled = r.ks.add(r.wt)
	st.sync()
	return st.Settled, nil
}

// checkInputs checks the dimensions of what the settings give against the
// target's and takes the target itself as the training target of
// FirstTrained when none is given.
func (r *run) checkInputs() error {
	s, d := &r.s, r.d
	if s.First == FirstGiven && len(r.in.X0) != d {
		return fmt.Errorf("mmdfw: FirstGiven needs X0 of length %d, have %d", d, len(r.in.X0))
	}
	if r.in.Scales != nil && len(r.in.Scales) != d {
		return fmt.Errorf("mmdfw: Scales has length %d, target dimension is %d", len(r.in.Scales), d)
	}
	if s.First == FirstTrained && r.in.TrainTarget == nil {
		st, ok := r.t.(target.Stochastic)
		if !ok {
			return errors.New("mmdfw: FirstTrained needs a target.Stochastic or Inputs.TrainTarget")
		}
		r.in.TrainTarget = st
	}
	if r.in.TrainTarget != nil && r.in.TrainTarget.Dim() != d {
		return fmt.Errorf("mmdfw: TrainTarget has dimension %d, target dimension is %d", r.in.TrainTarget.Dim(), d)
	}
	if r.in.SVGDParticles != nil {
		if _, c := r.in.SVGDParticles.Dims(); c != d {
			return fmt.Errorf("mmdfw: SVGD particles have %d columns, target dimension is %d", c, d)
		}
	}
	return nil
}

// svgdInit draws the SVGD particles from Inputs.SVGD (the run's stream
// as its source, N as the size it asks for) when it is given without
// the start's Particles, and makes them the run's SVGD particles; its gradient evaluations
// are charged to the run.
func (r *run) svgdInit(ctx context.Context) error {
	s := &r.s
	if r.in.SVGDParticles != nil || r.in.SVGD == nil {
		return nil
	}
	x, ev, err := r.in.SVGD.SamplePool(ctx, r.t, s.N, r.rng)
	r.svgdEvals = ev
	r.evals += ev
	if err != nil {
		return fmt.Errorf("mmdfw: SVGD initialisation: %w", err)
	}
	r.in.SVGDParticles = x
	return nil
}

// checkSources refuses settings whose particles, candidates or weights
// need what the run does not have: SVGD particles, a prior, a z.
func (r *run) checkSources() error {
	s := &r.s
	if s.CandidateInit == InitSVGD && r.in.SVGDParticles == nil {
		return errors.New("mmdfw: InitSVGD needs Start.Particles (SVGD particles) or Inputs.SVGD")
	}
	if _, hasPrior := r.t.(target.PriorSampler); (s.First == FirstPrior || s.CandidateInit == InitPrior) && !hasPrior {
		return errors.New("mmdfw: a prior start or prior candidates need a target.PriorSampler")
	}
	if s.Weights.needsZ() && s.Z == ZAuto {
		return fmt.Errorf("mmdfw: weight rule %v needs z: set Inputs.Embed (exact) or a pool", s.Weights)
	}
	if s.Starts > 1 && s.Z == ZAuto {
		return fmt.Errorf("mmdfw: Starts %d needs z to compare the starts: set Inputs.Embed (exact) or a pool", s.Starts)
	}
	return nil
}

// drawPool returns the pool of ZPool: Inputs.Pool, or one the
// PoolSampler draws (its gradient evaluations charged to the run); nil
// when the run has none.
func (r *run) drawPool(ctx context.Context) (*mat.Dense, error) {
	s := &r.s
	pool := r.in.Pool
	if s.Z == ZPool && pool == nil {
		if r.in.PoolSampler == nil {
			return nil, errors.New("mmdfw: ZPool needs Inputs.Pool or Inputs.PoolSampler")
		}
		p, ev, err := r.in.PoolSampler.SamplePool(ctx, r.t, s.PoolSize, r.rng)
		if err != nil {
			return nil, fmt.Errorf("mmdfw: drawing the pool: %w", err)
		}
		r.poolEvals = ev
		r.evals += ev
		pool = p
	}
	if pool != nil {
		if _, c := pool.Dims(); c != r.d {
			return nil, fmt.Errorf("mmdfw: pool has %d columns, target dimension is %d", c, r.d)
		}
	}
	return pool, nil
}

// scales fixes the coordinate scales of ScaleLaplace (the Laplace fit at
// the first particle) and ScaleGiven (Inputs.Scales, or the trained
// start's, clamped), finding the first particle x and reporting it first.
// firstDone says whether x is found; done ends the run with err.
func (r *run) scales(ctx context.Context, x []float64) (firstDone, done bool, err error) {
	s := &r.s
	if s.Scale == ScaleLaplace || s.Scale == ScaleGiven {
		if err := r.first(ctx, x); err != nil {
			return false, true, err
		}
		firstDone = true
		if stop, err := r.reportFirst(x); stop || err != nil {
			return true, true, err
		}
	}
	if s.Scale == ScaleGiven {
		switch {
		case r.in.Scales != nil:
			r.sig = append([]float64(nil), r.in.Scales...)
		case r.train != nil:
			r.sig = make([]float64, r.d)
			for j, v := range r.train.Scale {
				r.sig[j] = min(max(v, TrainedScaleMin), TrainedScaleMax)
			}
		default:
			return firstDone, true, errors.New("mmdfw: ScaleGiven needs Inputs.Scales or FirstTrained")
		}
	}
	if s.Scale == ScaleLaplace {
		l, err := laplace.Fit(ctx, r.t, x, laplace.FitSettings{Batch: s.LaplaceBatch, Src: r.rng})
		if err != nil {
			return firstDone, true, err
		}
		r.lap = l
		r.lapEvals = l.GradEvals
		r.evals += l.GradEvals
	}
	return firstDone, false, nil
}

// bandwidth fixes the RBF bandwidth for the whole run: Settings.Bandwidth,
// or the median heuristic over draws of the widest law the run knows (SVGD
// particles, the Laplace approximation, N(x₁, diag σ²), the pool, the
// prior, or draws around the first particle, Inputs.LocalSampler's, which
// it then finds and reports). firstDone and done are as in scales.
func (r *run) bandwidth(ctx context.Context, x []float64, pool *mat.Dense, firstDone bool) (bool, bool, error) {
	s, d := &r.s, r.d
	r.h = s.Bandwidth
	if r.h > 0 {
		return firstDone, false, nil
	}
	var init *mat.Dense
	prior, hasPrior := r.t.(target.PriorSampler)
	switch {
	case r.in.SVGDParticles != nil:
		init = r.in.SVGDParticles
	case r.lap != nil:
		// With ScaleLaplace every scale of the run comes from the
		// Laplace fit; a pool only estimates z.
		init = r.lap.Sample(s.MedianDraws, r.rng)
	case r.sig != nil:
		// Draws of N(x₁, diag σ²).
		init = mat.NewDense(s.MedianDraws, d, nil)
		for i := 0; i < s.MedianDraws; i++ {
			row := init.RawRowView(i)
			for j, sj := range r.sig {
				row[j] = x[j] + sj*r.rng.NormFloat64()
			}
		}
	case pool != nil:
		init = pool
	case hasPrior:
		init = mat.NewDense(s.MedianDraws, d, nil)
		for i := 0; i < s.MedianDraws; i++ {
			prior.SamplePrior(r.rng, init.RawRowView(i))
		}
	default:
		// No prior: draws around the first particle.
		if !firstDone {
			if err := r.first(ctx, x); err != nil {
				return firstDone, true, err
			}
			firstDone = true
			if stop, err := r.reportFirst(x); stop || err != nil {
				return firstDone, true, err
			}
		}
		var err error
		if init, err = r.localDraws(ctx, x); err != nil {
			return firstDone, true, err
		}
	}
	r.h = medianBandwidth(init)
	if !(r.h > 0) || math.IsInf(r.h, 0) {
		return firstDone, true, fmt.Errorf("mmdfw: median heuristic gave bandwidth %v", r.h)
	}
	return firstDone, false, nil
}

// kernel builds the run's kernel of bandwidth h (RBF, or random features
// drawn from the run's stream) and the RBF base kernel of the Stein
// weights.
func (r *run) kernel() error {
	r.steinK = kernel.RBF{H: r.h}
	switch r.s.Kernel {
	case "", RBFKernel:
		r.k = kernel.RBF{H: r.h}
	case RFFKernel:
		r.k = rff.New(r.rng, r.d, r.s.Features, r.h)
	default:
		return fmt.Errorf("mmdfw: unknown kernel kind %q", r.s.Kernel)
	}
	return nil
}

// embedding builds the embedding z of the target in the run's kernel
// (exact, or from the pool), its self-integral ∫∫k dp dp, the snapshot
// statistic it allows, and the gradient embedding of Direction Exact.
func (r *run) embedding(pool *mat.Dense) error {
	s := &r.s
	switch s.Z {
	case ZExact:
		if r.in.Embed == nil {
			return errors.New("mmdfw: ZExact needs Inputs.Embed")
		}
		e, err := r.in.Embed(r.k)
		if err != nil {
			return fmt.Errorf("mmdfw: exact embedding: %w", err)
		}
		r.emb = e
	case ZPool:
		r.emb = NewPoolEmbedder(r.k, pool)
	}
	if r.emb != nil {
		r.self = r.emb.SelfIntegral()
		r.statKey = StatMMD2Kernel
		if s.Z == ZPool {
			r.statKey = StatMMD2KernelPool
		}
		r.stats = map[string]float64{r.statKey: math.NaN()}
	}
	if s.Direction == Exact {
		ge, ok := r.emb.(GradEmbedder)
		if !ok {
			return errors.New("mmdfw: Direction Exact needs an exact embedding with gradient (GradEmbedder)")
		}
		r.gemb = ge
	}
	return nil
}

// allocate makes the particles, scores, weights and every buffer of the
// loop (which then allocates nothing), and the AdaGrad steps εⱼ =
// StepSize·σⱼ (σ the Laplace sd, the given scales, or h).
func (r *run) allocate() {
	s, d, N := &r.s, r.d, r.s.N
	r.X = mat.NewDense(N, d, nil)
	r.S = mat.NewDense(N, d, nil)
	r.lp = make([]float64, N)
	r.wt = newWeights(s.Weights, N, r.emb != nil, s.Jitter*r.k.Eval(make([]float64, d), make([]float64, d)), s.ScheduleC, s.SteinIterations)
	if s.WeightSolver == SolverPairwise {
		r.wt.usePairwise(s.WeightTol, s.WeightIterations, r.self)
	}
	r.wrep = make([]float64, N)
	if r.emb != nil {
		r.mmd = make([]float64, 0, N) // one value per particle, appended
	}
	r.eps = make([]float64, d)
	for j := range r.eps {
		switch {
		case r.lap != nil:
			r.eps[j] = s.StepSize * r.lap.SD[j]
		case r.sig != nil:
			r.eps[j] = s.StepSize * r.sig[j]
		default:
			r.eps[j] = s.StepSize * r.h
		}
	}
	r.g = make([]float64, d)
	r.hist = make([]float64, d)
	r.tmp = make([]float64, d)
	r.sx = make([]float64, d)
	// The Gram and Stein kernel rows are scratch for the rules that keep
	// those matrices only.
	if r.wt.needsGram() {
		r.krow = make([]float64, N)
	}
	if r.wt.K0 != nil {
		r.k0row = make([]float64, N)
	}
	if s.Batch > 0 {
		r.batch = make([]int, s.Batch)
	}
	if s.Starts > 1 {
		r.best = make([]float64, d)
	}
	if rk, ok := r.k.(*rff.Features); ok {
		D := rk.Len()
		r.rff = rk
		r.field = rff.NewSteinField(rk)
		r.field.Reserve(N)
		r.phi = mat.NewDense(N, D, nil)
		r.agg = make([]float64, D)
		r.feat = make([]float64, D)
	}
}

// add appends x as particle n+1: caches its score, updates the weights and
// reports a snapshot.
func (r *run) add(x []float64) (stop bool, err error) {
	n := r.n
	step := n + 1
	copy(r.X.RawRowView(n), x)
	if r.rff != nil {
		r.rff.Map(r.phi.RawRowView(n), x)
	}
	sc := r.S.RawRowView(n)
	lp := r.t.LogProbGrad(x, sc)
	r.evals += r.ndata
	if !particle.FiniteEval(lp, sc) {
		return false, particle.NonFinite(particle.Site{Method: "mmdfw", Iteration: step, Point: "particle", Index: step}, lp, sc)
	}
	r.lp[n] = lp
	// The rows handed to the weights: nil where the rule never reads them.
	var krow, k0row []float64
	switch {
	case !r.wt.needsGram():
		// Equal, classic, schedule and Stein weights without an embedding
		// never read the Gram row: O(n·d) saved per particle.
	case r.rff != nil:
		// k_D(x, xᵢ) = φ(x)ᵀφ(xᵢ) from the cached features: O(n·D) for the
		// new row instead of recomputing the 2D features of every pair.
		krow = r.krow[:n+1]
		px := r.phi.RawRowView(n)
		for i := range krow {
			krow[i] = floats.Dot(px, r.phi.RawRowView(i))
		}
	default:
		krow = r.krow[:n+1]
		for i := 0; i < n; i++ {
			krow[i] = r.k.Eval(x, r.X.RawRowView(i))
		}
		krow[n] = r.k.Eval(x, x)
	}
	var z float64
	if r.emb != nil {
		z = r.emb.Embedding(x)
	}
	if r.wt.K0 != nil {
		k0row = r.k0row[:n+1]
		for i := range k0row {
			k0row[i] = r.steinK.Stein(x, r.X.RawRowView(i), sc, r.S.RawRowView(i))
		}
	}
	if err := r.wt.add(krow, z, k0row); err != nil {
		return false, fmt.Errorf("mmdfw: weights at step %d: %w", step, err)
	}
	r.n++
	if err := particle.CheckFinite("mmdfw: weights", step, r.wt.w[:r.n]); err != nil {
		return false, err
	}
	if r.emb != nil {
		r.mmd = append(r.mmd, r.wt.mmd2(r.self))
	}
	if r.rec == nil || (r.n == 1 && r.early) {
		// Reported by the run's loop (State.Snapshot), or by reportFirst.
		return false, nil
	}
	r.snapped = r.n
	return particle.Report(r.rec, &r.sw, r.snapshot())
}

// snapshot is the snapshot of the n particles placed, in the run's
// coordinates: their reported weights and, with z, the statistics.
func (r *run) snapshot() particle.Snapshot {
	w := r.reported()
	if r.stats != nil {
		r.stats[r.statKey] = r.kernelMMD2(w)
	}
	return particle.Snapshot{
		Step:      r.n,
		X:         firstRows(&r.snapX, r.X, r.n),
		W:         w,
		GradEvals: r.evals,
		Stats:     r.stats,
	}
}

// kernelMMD2 returns ‖Σᵢ wᵢ k(xᵢ, ·) − μ_p‖² in the run's kernel for the
// first n particles with weights w (needs z). With the exact random-feature
// embedding it is ‖Σᵢ wᵢ φ(xᵢ) − E[φ]‖² in feature space, free of the
// cancellation of the quadratic form; otherwise wᵀKw − 2wᵀz + ∫∫k dp dp.
func (r *run) kernelMMD2(w []float64) float64 {
	if g, ok := r.emb.(*rffGauss); ok {
		diff := r.feat
		for j, m := range g.e.Mean() {
			diff[j] = -m
		}
		for i, wi := range w {
			for j, v := range r.phi.RawRowView(i) {
				diff[j] += wi * v
			}
		}
		return dot(diff, diff)
	}
	return r.wt.quadratic(w, r.self)
}

// reported returns the weights to report: the run's weights, rescaled to
// sum to one unless Settings.RawWeights.
func (r *run) reported() []float64 {
	w := r.wrep[:r.n]
	copy(w, r.wt.w[:r.n])
	if !r.s.RawWeights {
		var t float64
		for _, v := range w {
			t += v
		}
		if t != 0 {
			for i := range w {
				w[i] /= t
			}
		}
	}
	return w
}

// candidateLaw fits, for InitLaplace under ScaleBandwidth, the Laplace
// approximation at the first particle that the candidates are drawn from
// (charged to the run) when a candidate will follow; the other scales
// carry theirs already.
func (r *run) candidateLaw(ctx context.Context) error {
	if r.s.CandidateInit != InitLaplace || r.lap != nil || r.sig != nil || r.n >= r.s.N {
		return nil
	}
	l, err := laplace.Fit(ctx, r.t, r.X.RawRowView(0), laplace.FitSettings{Batch: r.s.LaplaceBatch, Src: r.rng})
	if err != nil {
		return fmt.Errorf("mmdfw: the candidates' Laplace fit: %w", err)
	}
	r.claw = l
	r.lapEvals += l.GradEvals
	r.evals += l.GradEvals
	return nil
}

// candidate writes the starting point of the next LMO into x: one draw of
// Settings.CandidateInit, or with Settings.Starts > 1 the draw of smallest LMO
// objective F_n(x) = Σᵢ wᵢ k(x, xᵢ) − z(x) among Starts draws.
func (r *run) candidate(x []float64) {
	k := r.s.Starts
	if k <= 1 {
		r.draw(x)
		return
	}
	bestF := math.Inf(1)
	for range k {
		r.draw(x)
		if f := r.objective(x); f < bestF || math.IsInf(bestF, 1) {
			bestF = f
			copy(r.best, x)
		}
	}
	copy(x, r.best)
}

// objective returns the LMO objective F_n(x) = Σᵢ wᵢ k(x, xᵢ) − z(x) of the
// current particles and weights (z from the run's embedding).
func (r *run) objective(x []float64) float64 {
	var f float64
	for i, wi := range r.wt.w[:r.n] {
		f += wi * r.k.Eval(x, r.X.RawRowView(i))
	}
	return f - r.emb.Embedding(x)
}

// draw writes one starting point of Settings.CandidateInit into x.
func (r *run) draw(x []float64) {
	s := &r.s
	n := r.n
	switch s.CandidateInit {
	case InitLaplace:
		copy(x, r.X.RawRowView(0))
		r.spread(x)
	case InitPrior:
		r.t.(target.PriorSampler).SamplePrior(r.rng, x)
	case InitSVGD:
		m, _ := r.in.SVGDParticles.Dims()
		copy(x, r.in.SVGDParticles.RawRowView(n%m))
		if n >= m {
			r.perturb(x)
		}
	case InitPerturb:
		i := r.rng.IntN(n)
		if s.Pick == PickByWeight {
			w := r.wt.w[:n]
			var tot float64
			for _, v := range w {
				tot += math.Abs(v)
			}
			u := r.rng.Float64() * tot
			for i = 0; i < n-1; i++ {
				u -= math.Abs(w[i])
				if u < 0 {
					break
				}
			}
		}
		copy(x, r.X.RawRowView(i))
		r.perturb(x)
	default:
		panic("mmdfw: unknown candidate initialisation")
	}
}

// reportFirst reports the first particle, with weight one, as soon as it
// exists: before the scales, the bandwidth and the weights are set up, so
// that the time to the first snapshot is that of the first particle alone.
// The snapshot carries no statistics.
func (r *run) reportFirst(x []float64) (stop bool, err error) {
	r.early = true
	r.x1 = append([]float64(nil), x...)
	if r.rec != nil {
		r.snapped = 1
	}
	return particle.Report(r.rec, &r.sw, particle.Snapshot{
		Step:      1,
		X:         mat.NewDense(1, r.d, r.x1),
		W:         []float64{1},
		GradEvals: r.evals,
	})
}

// spread adds to x a draw of InitLaplace's N(0, Σ): Σ the Laplace
// covariance (ScaleLaplace, or the candidates' own fit), diag σ² with the
// given scales (the unit matrix in whitened coordinates).
func (r *run) spread(x []float64) {
	if r.sig != nil {
		for j, sj := range r.sig {
			x[j] += sj * r.rng.NormFloat64()
		}
		return
	}
	l := r.lap
	if l == nil {
		l = r.claw
	}
	for j := range r.sx {
		r.sx[j] = r.rng.NormFloat64()
	}
	l.Noise(r.tmp, 1, r.sx)
	for j, v := range r.tmp {
		x[j] += v
	}
}

// perturb adds the candidate noise to x: N(0, (Noise·h)² I), N(0,
// Noise²Σ) with the Laplace covariance Σ, or N(0, Noise²·diag σ²) with
// the given scales σ.
func (r *run) perturb(x []float64) {
	if r.sig != nil {
		for j, sj := range r.sig {
			x[j] += r.s.Noise * sj * r.rng.NormFloat64()
		}
		return
	}
	if r.lap != nil {
		for j := range r.sx {
			r.sx[j] = r.rng.NormFloat64()
		}
		r.lap.Noise(r.tmp, r.s.Noise, r.sx)
		for j, v := range r.tmp {
			x[j] += v
		}
		return
	}
	for j := range x {
		x[j] += r.s.Noise * r.h * r.rng.NormFloat64()
	}
}

// lmo runs the Approx-LMO: T AdaGrad steps (momentum 0.9, fudge 1e-6) along
// the estimated −∇F_n, moving x in place. A non-finite log density or score
// of the candidate ends it with a *particle.NonFiniteError.
func (r *run) lmo(x []float64) error {
	s := &r.s
	n := r.n
	w := r.wt.w[:n]
	a := float64(n) / float64(n+1)
	b := 1 / float64(n+1)
	r.xv = firstRows(&r.xview, r.X, n)
	r.sv = firstRows(&r.sview, r.S, n)
	if r.rff != nil {
		// Summaries in feature space make each step O(D·d) whatever n.
		switch s.Direction {
		case Frozen, Self:
			r.field.Reset(r.xv, r.sv, w)
		case Exact:
			for j := range r.agg {
				r.agg[j] = 0
			}
			for i, wi := range w {
				for j, v := range r.phi.RawRowView(i) {
					r.agg[j] += wi * v
				}
			}
		}
	}
	for it := 0; it < s.LMOSteps; it++ {
		r.lmoStep = it
		if err := r.step(x, w, it, a, b); err != nil {
			return err
		}
	}
	return nil
}

// step is one AdaGrad step of the LMO: hist = g² at the first step, then
// hist ← 0.9 hist + 0.1 g², and x ← x + ε g/(10⁻⁶ + √hist).
func (r *run) step(x, w []float64, it int, a, b float64) error {
	g, hist := r.g, r.hist
	var err error
	if r.rff != nil {
		err = r.rffDirection(x, w, a, b)
	} else {
		err = r.direction(x, w, a, b)
	}
	if err != nil {
		return err
	}
	if it == 0 {
		for j, v := range g {
			hist[j] = v * v
		}
	} else {
		for j, v := range g {
			hist[j] = 0.9*hist[j] + 0.1*v*v
		}
	}
	for j, v := range g {
		x[j] += r.eps[j] * v / (1e-6 + math.Sqrt(hist[j]))
	}
	return nil
}

// rffDirection writes the LMO direction at x into r.g for the random
// feature kernel, from the summaries of the frozen particles.
func (r *run) rffDirection(x, w []float64, a, b float64) error {
	g := r.g
	switch r.s.Direction {
	case Frozen:
		r.field.Direction(g, x)
	case Self:
		r.field.Direction(g, x)
		kxx := r.field.SelfKernel() // k_D(x, x) from the features just computed
		if err := r.score(x, r.sx); err != nil {
			return err
		}
		for j := range g {
			g[j] = a*g[j] + b*kxx*r.sx[j]
		}
	case Exact:
		// ∇μ_p(x) − Σᵢ wᵢ ∇ₓk(x, xᵢ) = ∇μ_p(x) − Σⱼ aggⱼ ∇φⱼ(x).
		r.gemb.EmbeddingGrad(g, x)
		for j, c := range r.agg {
			r.rff.GradFeature(r.tmp, x, j)
			for i, v := range r.tmp {
				g[i] -= c * v
			}
		}
	}
	return nil
}

// direction writes the LMO direction at x into r.g.
func (r *run) direction(x, w []float64, a, b float64) error {
	g := r.g
	switch r.s.Direction {
	case Frozen:
		SteinDirection(g, x, r.xv, r.sv, w, r.k, r.tmp)
	case Self:
		SteinDirection(g, x, r.xv, r.sv, w, r.k, r.tmp)
		kxx := r.k.Eval(x, x)
		if err := r.score(x, r.sx); err != nil {
			return err
		}
		for j := range g {
			g[j] = a*g[j] + b*kxx*r.sx[j]
		}
	case Exact:
		r.gemb.EmbeddingGrad(g, x)
		for i, wi := range w {
			r.k.GradX(r.tmp, x, r.X.RawRowView(i))
			for j, v := range r.tmp {
				g[j] -= wi * v
			}
		}
	}
	return nil
}

// score writes the candidate's score into dst, from a minibatch when
// Settings.Batch is set and the target is Stochastic. The log density (or
// its minibatch estimate) that comes with it and the score must be finite:
// otherwise the error names the particle the candidate is for and the LMO
// step.
func (r *run) score(x, dst []float64) error {
	var lp float64
	if st, ok := r.t.(target.Stochastic); ok && r.batch != nil && len(r.batch) < st.NData() {
		nd := st.NData()
		for i := range r.batch {
			r.batch[i] = r.rng.IntN(nd)
		}
		lp = st.MinibatchLogProbGrad(x, dst, r.batch)
		r.evals += int64(len(r.batch))
	} else {
		lp = r.t.LogProbGrad(x, dst)
		r.evals += r.ndata
	}
	if !particle.FiniteEval(lp, dst) {
		return particle.NonFinite(particle.Site{Method: "mmdfw", Iteration: r.n + 1, Point: "candidate", Index: r.n + 1,
			Stage: "LMO step", Step: r.lmoStep + 1}, lp, dst)
	}
	return nil
}

// first writes the first particle into x.
// localDraws returns MedianDraws draws around x, the bandwidth's initial
// set on a target without a prior: those of Inputs.LocalSampler (the
// run's stream as its source), else draws of the Laplace fit at the MAP
// found from x (laplace.FitAtMAP). Their gradient evaluations are charged
// to the run.
func (r *run) localDraws(ctx context.Context, x []float64) (*mat.Dense, error) {
	if ls := r.in.LocalSampler; ls != nil {
		draws, ev, err := ls.SampleAround(ctx, r.t, x, r.s.MedianDraws, r.rng)
		r.evals += ev
		if err != nil {
			return nil, fmt.Errorf("mmdfw: the bandwidth's draws around the first particle: %w", err)
		}
		return draws, nil
	}
	sc, err := laplace.FitAtMAP(ctx, r.t, x, laplace.MAPSettings{}, laplace.FitSettings{})
	r.evals += sc.GradEvals
	if err != nil {
		return nil, fmt.Errorf("mmdfw: the bandwidth's draws around the first particle (Laplace fit at the MAP): %w", err)
	}
	return sc.Approx.Sample(r.s.MedianDraws, r.rng), nil
}

func (r *run) first(ctx context.Context, x []float64) error {
	s := &r.s
	t := r.t
	d := r.d
	prior, hasPrior := t.(target.PriorSampler)
	switch s.First {
	case FirstMAP:
		switch {
		case r.in.X0 != nil:
			if len(r.in.X0) != d {
				return fmt.Errorf("mmdfw: X0 has length %d, target dimension is %d", len(r.in.X0), d)
			}
			copy(x, r.in.X0)
		case hasPrior:
			prior.SamplePrior(r.rng, x)
		}
		m, err := laplace.FindMAP(ctx, t, x, laplace.MAPSettings{Iterations: s.MAPIterations, GradTol: s.MAPGradTol,
			Batch: s.MAPBatch, Src: r.rng, NewtonTol: s.MAPNewtonTol})
		r.mapEvals = m.GradEvals
		r.evals += m.GradEvals
		if err != nil {
			return err
		}
		copy(x, m.X)
	case FirstPrior:
		prior.SamplePrior(r.rng, x)
	case FirstGiven:
		copy(x, r.in.X0)
	case FirstTrained:
		switch {
		case r.in.X0 != nil:
			copy(x, r.in.X0)
		case hasPrior:
			prior.SamplePrior(r.rng, x)
		}
		var ts optim.Settings
		if r.in.Train != nil {
			ts = *r.in.Train
		}
		tr, err := optim.Train(ctx, r.in.TrainTarget, x, ts, rand.NewPCG(r.rng.Uint64(), r.rng.Uint64()))
		r.trainEvals = tr.GradEvals
		r.evals += tr.GradEvals
		if err != nil {
			return fmt.Errorf("mmdfw: training the first particle: %w", err)
		}
		r.train = &tr
		copy(x, tr.X)
	case firstSVGD:
		copy(x, r.in.SVGDParticles.RawRowView(0))
	default:
		return fmt.Errorf("mmdfw: unknown start %q", s.First)
	}
	return particle.CheckFinite("mmdfw", 1, x)
}

// firstRows sets dst to a view of the first n ≥ 1 rows of m (as
// m.Slice(0, n, 0, c), sharing its data) without allocating, and returns
// it.
func firstRows(dst, m *mat.Dense, n int) *mat.Dense {
	raw := m.RawMatrix()
	dst.SetRawMatrix(blas64.General{Rows: n, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data[:(n-1)*raw.Stride+raw.Cols]})
	return dst
}
