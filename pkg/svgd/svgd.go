package svgd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/par"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"

	"gonum.org/v1/gonum/mat"
)

// Defaults of the zero Settings.
const (
	DefaultN          = 100
	DefaultIterations = 1000
	DefaultStepSize   = 1e-3
	DefaultAlpha      = 0.9
	DefaultFudge      = 1e-6
	DefaultBatch      = 100
	DefaultInitScale  = 1.0
)

// FullBatch is the Batch that asks for full-data scores on every
// target: each iteration then costs n·N per-datapoint gradients and the
// updates are deterministic given the initial particles. A Batch of
// at least N has the same effect. It is the one negative Batch
// (batch = -1 in an experiment file); any other is an error.
const FullBatch = -1

// Settings configures Run. The zero value is usable: every field documents
// its default, and the defaults are those of the reference code's update
// function. Validate (called by Run) refuses negative and non-finite
// values; the one negative value allowed is Batch's FullBatch.
//
// The struct tags are the fields' names in experiment files (TOML) and in
// recorded settings (JSON).
type Settings struct {
	// N is the number n of particles drawn when the start has no
	// Particles (see Init). Zero means DefaultN (100, the reference
	// logistic regression; its neural network uses 20).
	N int `toml:"-" json:"-"`

	// Iterations is the number of SVGD updates with StopFixed and their
	// ceiling with StopPlateau. Zero means DefaultIterations (1000, the
	// reference update's n_iter; its logistic regression runs 6000, its
	// neural network 2000) with StopFixed and DefaultCeiling with
	// StopPlateau.
	Iterations int `toml:"iterations" json:"iterations,omitempty"`

	// StepSize is the master step size ε of AdaGrad, in the run's coordinates
	// (posterior standard deviations with WhitenLaplace). Zero means
	// DefaultStepSize (1e-3, the reference update's default and its neural
	// network's master_stepsize; its logistic regression uses 0.05) with
	// WhitenNone and DefaultWhitenedStep with WhitenLaplace.
	StepSize float64 `toml:"step_size" json:"step_size,omitempty"`

	// Batch is the minibatch size |B| of a target.Stochastic target,
	// whose likelihood is rescaled by N/|B|. Zero means DefaultBatch
	// (100). FullBatch (-1; other negative values are errors), a batch at
	// least as large as the data, or a target that is not Stochastic, uses
	// the full-data LogProbGrad.
	Batch int `toml:"batch" json:"batch,omitempty"`

	// Sequential walks the data in its stored order instead of a
	// permutation: iteration t (0 based) uses the rows
	// (t·|B| + k) mod N, k = 0 … |B|−1, as the reference neural-network
	// code does. The default (false) walks one random permutation of the
	// data in consecutive batches, wrapping around modulo N.
	Sequential bool `toml:"sequential" json:"sequential,omitempty"`

	// Bandwidth fixes the RBF bandwidth h, in the run's coordinates. Zero
	// means, with WhitenNone, the median heuristic h = √(½ med / log(n+1)),
	// recomputed from the particles at every iteration as the reference
	// code does, and with WhitenLaplace the rule of BandwidthRule.
	Bandwidth float64 `toml:"bandwidth" json:"bandwidth,omitempty"`
	// BandwidthRule selects the bandwidth when Bandwidth is zero:
	// BandwidthParticles (the default with WhitenLaplace, also "") is the
	// particles' median distance at every iteration, BandwidthLaplace the
	// Laplace fit's laplace.WhitenedBandwidth(d), frozen; with
	// WhitenNone the zero value is the reference median heuristic, and
	// BandwidthParticles may be chosen there too. See the constants.
	BandwidthRule BandwidthRule `toml:"bandwidth_rule" json:"bandwidth_rule,omitempty"`
	// BandwidthScale multiplies the bandwidth of BandwidthParticles:
	// h = BandwidthScale·√med, h² = c·med/2 with c = 2·BandwidthScale².
	// Zero means 1 (the median distance); it has no effect under another
	// rule or with a fixed Bandwidth. It exists to compare the rule with
	// its neighbours (docs/DECISIONS.md, "SVGD's bandwidth follows its
	// particles").
	BandwidthScale float64 `toml:"bandwidth_scale" json:"bandwidth_scale,omitempty"`

	// RecordEvery reports a snapshot after every RecordEvery iterations.
	// The initial particles (step 0) and the final ones are always
	// reported. Zero reports only those two.
	RecordEvery int `toml:"record_every" json:"record_every,omitempty"`

	// Alpha is the momentum of the squared-gradient history,
	// hist ← α hist + (1−α) φ², in [0, 1). Zero means DefaultAlpha (0.9).
	Alpha float64 `toml:"alpha" json:"alpha,omitempty"`

	// Fudge keeps the AdaGrad denominator ε_f + √hist away from zero.
	// Zero means DefaultFudge (1e-6).
	Fudge float64 `toml:"fudge" json:"fudge,omitempty"`

	// ExcludeDiagonal takes the median of the heuristic over the n(n−1)/2
	// distinct pairs instead of all n² entries of the distance matrix. The
	// default (false) counts the zero diagonal, as the reference code does.
	ExcludeDiagonal bool `toml:"exclude_diagonal" json:"exclude_diagonal,omitempty"`

	// InitScale is the standard deviation of the initial particles around
	// the start point X0 (WhitenNone), or around the MAP in posterior
	// standard deviations (WhitenLaplace); see Init. Zero means
	// DefaultInitScale (1).
	InitScale float64 `toml:"init_scale" json:"init_scale,omitempty"`

	// Frame is the run frame SVGD shares (its keys whiten, stop and
	// strict; Workers; NoDiagnostics): Whiten WhitenLaplace (the default)
	// runs SVGD in the target's own scales, the coordinates of the Laplace
	// fit at the MAP, so that the kernel is an RBF on whitened coordinates
	// and the start spread InitScale and the step StepSize are in posterior
	// standard deviations, WhitenNone in the target's coordinates as the
	// reference code does; Stop StopPlateau (the default) ends the run
	// when the particles' moments have settled, Iterations being a ceiling
	// whose reaching flags the result, StopFixed after exactly Iterations
	// updates, as the reference code does. SVGD takes no KSDSize.
	//
	// Workers is the number of goroutines that evaluate the particles'
	// scores. Zero means runtime.GOMAXPROCS(0). The result does not depend
	// on it. A target that scores all particles in one call
	// (target.StochasticBatched with minibatches, target.Batched with full
	// data) is called once per iteration and parallelises on its own,
	// except that the minibatch scores of model.Logistic and model.BNN
	// share the run's team. A target with a gradient-only minibatch pass
	// (MinibatchGradBatch, as both models have) is called through it: SVGD
	// never reads the log densities. With Workers and GOMAXPROCS above 1
	// and n²d ≥ 2¹⁶ (n particles in dimension d), a run also keeps a
	// par.Team of min(Workers, GOMAXPROCS) goroutines, the caller's
	// included, that splits the direction and the update of every
	// iteration (and the logistic scores) by blocks of rows; its helper
	// blocks when idle for a few microseconds.
	sampler.Frame

	// StopTol is the change of the window-averaged particles' means and
	// standard deviations, in those standard deviations, below which
	// StopPlateau counts a window as settled. Zero means DefaultStopTol.
	StopTol float64 `toml:"stop_tol" json:"stop_tol,omitempty"`
}

// Validate returns a *setting.Error naming the first invalid field, nil
// when s is valid. Zero fields are valid: they take their defaults.
func (s Settings) Validate() error {
	if err := setting.NonNegative("particles", s.N, "iterations", s.Iterations, "step_size", s.StepSize,
		"alpha", s.Alpha, "fudge", s.Fudge, "bandwidth", s.Bandwidth, "workers", s.Workers,
		"record_every", s.RecordEvery, "init_scale", s.InitScale, "bandwidth_scale", s.BandwidthScale); err != nil {
		return err
	}
	if s.Batch < 0 && s.Batch != FullBatch {
		return setting.Errorf("batch", s.Batch, "must not be negative (FullBatch, -1, is the full batch)")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"step_size", s.StepSize}, {"fudge", s.Fudge}, {"bandwidth", s.Bandwidth}, {"init_scale", s.InitScale}} {
		if math.IsInf(f.v, 0) {
			return setting.Errorf(f.name, f.v, "must be finite")
		}
	}
	if s.Alpha >= 1 {
		return setting.Errorf("alpha", s.Alpha, "is outside [0, 1)")
	}
	if err := s.Frame.Validate(rules); err != nil {
		return err
	}
	return s.validateScale()
}

// resolved returns s with the defaults filled in, or an error naming the
// first invalid field.
func (s Settings) resolved() (Settings, error) {
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("svgd: %w", err)
	}
	s.N = cmp.Or(s.N, DefaultN)
	s.resolveScale()
	s.Alpha = cmp.Or(s.Alpha, DefaultAlpha)
	s.Fudge = cmp.Or(s.Fudge, DefaultFudge)
	s.Batch = cmp.Or(s.Batch, DefaultBatch)
	s.InitScale = cmp.Or(s.InitScale, DefaultInitScale)
	s.Workers = cmp.Or(s.Workers, runtime.GOMAXPROCS(0))
	return s, nil
}

// Run moves n particles along the SVGD direction for s.Iterations AdaGrad
// steps and returns them with equal weights 1/n.
//
// src seeds the prior draws of the initialisation and the permutation that
// orders the minibatches (none when s.Sequential). rec (nil records nothing)
// receives snapshots; its
// ErrStop ends the run with the current particles and a nil error. When ctx
// is cancelled Run returns the current particles with ctx.Err(). A
// non-finite particle ends the run with an error naming the iteration and
// an empty set; so does a non-finite log density or score (the minibatch
// estimate with minibatches) of particle i (from 0) at iteration t (from
// 1), with a *particle.NonFiniteError, before the particles move.
//
// The returned set carries its diagnostics (Set.Diag, see diagnose, in the
// target's coordinates with WhitenLaplace), which also check the final
// particles they evaluate; with Settings.Strict a flagged set (a "ceiling"
// of StopPlateau included) comes with a *particle.FlaggedError.
func Run(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
	return sampler.Run(ctx, func(particle.Recorder) (sampler.State, error) {
		return Init(ctx, t, start, s, src)
	}, rec)
}

// state is one SVGD run: the particles, their scores and direction, the
// AdaGrad history, the minibatch order and the score workers.
type state struct {
	t  target.Target
	st target.Stochastic        // nil for full-data scores
	sb target.StochasticBatched // non-nil when minibatch scores come in one batch
	gb gradBatched              // non-nil when they come without the log densities
	bt target.Batched           // non-nil when full-data scores come in one batch
	s  Settings
	// frame is where the diagnostics are computed (nil: in t's
	// coordinates).
	frame *laplace.Frame

	x, scores, phi, hist *mat.Dense
	w                    []float64
	lp                   []float64 // log densities (or their minibatch estimates) of the particles
	ws                   *Workspace
	kern                 kernel.RBF
	upd                  adagradStep
	plat                 *plateau // nil with StopFixed
	h                    float64  // the bandwidth of the last update

	perm  []int // minibatch order: one permutation of the data
	pos   int   // start of the next minibatch in perm
	batch []int
	ahead []int      // the next minibatch, for pf
	pf    prefetcher // non-nil when the target prefetches rows
	evals int64
	cost  int64 // gradient evaluations per iteration

	// team splits the direction, the update and the scores of a target
	// that takes one (teamBatched); nil when Workers is 1, GOMAXPROCS is 1
	// or the problem is too small to split.
	team *par.Team
	tb   teamBatched
	gtb  gradTeamBatched
	pick teamPick

	// Score workers 1..len(start) take the particle blocks after the
	// caller's block 0.
	start []chan struct{}
	wg    sync.WaitGroup
	lo    []int // block k holds particles lo[k] ≤ i < lo[k+1]
}

// newState starts the run of s on t from start: its Particles, else N
// draws around its X0, else N prior draws.
func newState(t target.Target, s Settings, start particle.Start, src rand.Source) (*state, error) {
	s, err := s.resolved()
	if err != nil {
		return nil, err
	}
	d := t.Dim()
	if d < 1 {
		return nil, fmt.Errorf("svgd: target dimension %d < 1", d)
	}
	rng := rand.New(src)
	var x *mat.Dense
	if init := start.Particles; init != nil {
		n, c := init.Dims()
		if c != d {
			return nil, fmt.Errorf("svgd: the starting particles have %d columns, target dimension is %d", c, d)
		}
		x = mat.NewDense(n, d, nil)
		x.Copy(init)
		s.N = n
	} else if x0 := start.X0; x0 != nil {
		if len(x0) != d {
			return nil, fmt.Errorf("svgd: X0 has length %d, target dimension is %d", len(x0), d)
		}
		x = mat.NewDense(s.N, d, nil)
		for i := 0; i < s.N; i++ {
			for j, row := 0, x.RawRowView(i); j < d; j++ {
				row[j] = x0[j] + s.InitScale*rng.NormFloat64()
			}
		}
	} else {
		ps, ok := t.(target.PriorSampler)
		if !ok {
			return nil, errors.New("svgd: no starting particles, no X0 and the target is not a target.PriorSampler")
		}
		x = mat.NewDense(s.N, d, nil)
		for i := 0; i < s.N; i++ {
			ps.SamplePrior(rng, x.RawRowView(i))
		}
	}
	n := s.N
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("svgd: initial particle %d: coordinate %d is %v", i, j, v)
			}
		}
	}
	st := &state{
		t: t, s: s, x: x,
		scores: mat.NewDense(n, d, nil),
		phi:    mat.NewDense(n, d, nil),
		hist:   mat.NewDense(n, d, nil),
		w:      particle.Equal(n),
		ws:     NewWorkspace(n, d),
		kern:   kernel.RBF{H: s.Bandwidth},
		plat:   s.plateau(),
	}
	if sto, ok := t.(target.Stochastic); ok && s.Batch > 0 && s.Batch < sto.NData() {
		st.st = sto
		if s.Sequential {
			st.perm = make([]int, sto.NData())
			for i := range st.perm {
				st.perm[i] = i
			}
		} else {
			st.perm = rng.Perm(sto.NData())
		}
		st.batch = make([]int, s.Batch)
		st.cost = int64(n) * int64(s.Batch)
		if sb, ok := t.(target.StochasticBatched); ok {
			st.sb = sb
		}
		if gb, ok := t.(gradBatched); ok {
			st.gb = gb
		}
		if pf, ok := t.(prefetcher); ok {
			st.pf = pf
			st.ahead = make([]int, s.Batch)
		}
	} else {
		st.cost = int64(n) * int64(target.NData(t))
		if bt, ok := t.(target.Batched); ok {
			st.bt = bt
		}
	}
	st.lp = make([]float64, n)
	if st.bt == nil && st.sb == nil {
		st.startWorkers(min(s.Workers, n))
	}
	if s.Workers > 1 && runtime.GOMAXPROCS(0) > 1 && n*n*d >= teamWork {
		st.team = par.NewTeam(s.Workers)
		if tb, ok := t.(teamBatched); ok && st.sb != nil {
			st.tb = tb
		}
		if gtb, ok := t.(gradTeamBatched); ok && st.sb != nil {
			st.gtb = gtb
		}
	}
	return st, nil
}

// gradBatched is a minibatch-batched target that also gives the scores
// alone, with the bits of MinibatchLogProbGradBatch's gradients and
// without its log densities, which SVGD never reads (model.Logistic and
// model.BNN are two).
type gradBatched interface {
	MinibatchGradBatch(xs, grads *mat.Dense, batch []int)
}

// prefetcher is a minibatch target that can bring the rows of a batch
// into the processor's caches ahead of its pass (model.Logistic and
// model.BNN are two); it changes no result.
type prefetcher interface {
	Prefetch(batch []int)
}

// gradTeamBatched is gradBatched on a par.Team given by the caller, with
// side.Run(0) run once beside the scores.
type gradTeamBatched interface {
	MinibatchGradBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, batch []int)
}

// teamBatched is a minibatch-batched target that splits its work over a
// par.Team given by the caller, with the bits of
// MinibatchLogProbGradBatch (model.Logistic is one).
type teamBatched interface {
	MinibatchLogProbGradBatchOn(team *par.Team, side par.Runner, xs, grads *mat.Dense, lp []float64, batch []int)
}

// startWorkers splits the particles into w contiguous blocks and starts
// w−1 goroutines; the caller evaluates the first block itself.
func (st *state) startWorkers(w int) {
	n := st.s.N
	st.lo = make([]int, w+1)
	for k := 0; k <= w; k++ {
		st.lo[k] = k * n / w
	}
	st.start = make([]chan struct{}, w-1)
	for k := range st.start {
		c := make(chan struct{})
		st.start[k] = c
		go func(lo, hi int) {
			for range c {
				st.scoreBlock(lo, hi)
				st.wg.Done()
			}
		}(st.lo[k+1], st.lo[k+2])
	}
}

// close stops the score workers and the team.
func (st *state) close() {
	for _, c := range st.start {
		close(c)
	}
	st.team.Close()
}

// scoreBlock evaluates the scores of particles lo ≤ i < hi. Each row of
// scores is written by exactly one goroutine from its own row of x, so the
// result does not depend on the number of workers.
func (st *state) scoreBlock(lo, hi int) {
	for i := lo; i < hi; i++ {
		if st.st != nil {
			st.lp[i] = st.st.MinibatchLogProbGrad(st.x.RawRowView(i), st.scores.RawRowView(i), st.batch)
		} else {
			st.lp[i] = st.t.LogProbGrad(st.x.RawRowView(i), st.scores.RawRowView(i))
		}
	}
}

// fillBatch writes the minibatch that starts at position pos of perm into
// dst: consecutive entries of perm (the identity when Sequential), wrapping
// around modulo N.
func (st *state) fillBatch(dst []int, pos int) {
	nd := len(st.perm)
	for k := range dst {
		p := pos + k
		if p >= nd {
			p -= nd
		}
		dst[k] = st.perm[p]
	}
}

// computeScores fills scores for the current particles, on the next
// minibatch when the target is stochastic, and runs side.Run(0) (the median
// heuristic of the direction, independent of the scores) once: beside the
// scores on team (nil: the caller alone) when the target takes one, else
// before them.
func (st *state) computeScores(team *par.Team, side par.Runner) {
	if st.st != nil {
		st.fillBatch(st.batch, st.pos)
		st.pos = (st.pos + len(st.batch)) % len(st.perm)
	}
	switch {
	case st.gtb != nil:
		st.gtb.MinibatchGradBatchOn(team, side, st.x, st.scores, st.batch)
		return
	case st.tb != nil:
		st.tb.MinibatchLogProbGradBatchOn(team, side, st.x, st.scores, st.lp, st.batch)
		return
	}
	if side != nil {
		side.Run(0)
	}
	switch {
	case st.gb != nil:
		st.gb.MinibatchGradBatch(st.x, st.scores, st.batch)
		return
	case st.sb != nil:
		st.sb.MinibatchLogProbGradBatch(st.x, st.scores, st.lp, st.batch)
		return
	case st.bt != nil:
		st.bt.LogProbGradBatch(st.x, st.scores, st.lp)
		return
	}
	st.wg.Add(len(st.start))
	for _, c := range st.start {
		c <- struct{}{}
	}
	st.scoreBlock(st.lo[0], st.lo[1])
	st.wg.Wait()
}

// step performs iteration it (0 based): scores, direction and the
// reference AdaGrad-with-momentum update
//
//	hist = φ² at it = 0, hist = α hist + (1−α) φ² afterwards,
//	x ← x + ε φ / (fudge + √hist).
//
// The update of each block of coordinates follows as soon as its direction
// is complete, inside the direction's last team job. A non-finite log
// density or score ends the iteration before the update, with a
// *particle.NonFiniteError naming the particle.
func (st *state) step(it int) error {
	team := st.team
	if team != nil {
		team = st.pick.start(team)
	}
	med := startDirection(team, st.x, st.scores, st.kern, st.s.ExcludeDiagonal, st.s.BandwidthRule == BandwidthParticles, cmp.Or(st.s.BandwidthScale, 1), st.ws)
	st.computeScores(team, med)
	if err := st.checkScores(it + 1); err != nil {
		return err
	}
	if st.pf != nil {
		// The rows of the next minibatch, prefetched by the parts of the
		// direction's last job.
		st.fillBatch(st.ahead, st.pos)
		med.pf, med.ahead = st.pf, st.ahead
	}
	st.upd = adagradStep{x: st.x, hist: st.hist, eps: st.s.StepSize, alpha: st.s.Alpha, fudge: st.s.Fudge, first: it == 0}
	st.h = finishDirection(st.phi, st.ws, &st.upd).H
	st.evals += st.cost
	if st.team != nil {
		st.pick.stop()
	}
	return nil
}

// teamPick chooses, block by block of pickBlock iterations, between the
// team and the caller alone by their measured time per iteration: on a
// machine whose other cores are busy the helper is often descheduled in
// the middle of a part, and the caller waits for it, so that one goroutine
// is faster. The faster way so far runs, and every pickExplore-th block
// the other is timed again. The results do not depend on the choice.
type teamPick struct {
	ns      [2]float64 // mean ns per iteration alone [0] and on the team [1], 0 when not yet timed
	mode    int        // of the current block
	left    int        // its iterations to run
	blocks  int
	elapsed time.Duration
	t0      time.Time
	always  bool // the team on every iteration (benchmarks)
}

const (
	pickBlock   = 32
	pickExplore = 8
)

// start returns team or nil for the next iteration and starts its clock.
func (p *teamPick) start(team *par.Team) *par.Team {
	if p.left == 0 {
		p.blocks++
		switch {
		case p.ns[1] == 0:
			p.mode = 1
		case p.ns[0] == 0:
			p.mode = 0
		default:
			p.mode = 0
			if p.ns[1] <= p.ns[0] {
				p.mode = 1
			}
			if p.blocks%pickExplore == 0 {
				p.mode = 1 - p.mode
			}
		}
		p.left, p.elapsed = pickBlock, 0
	}
	p.t0 = time.Now()
	if p.mode == 0 && !p.always {
		return nil
	}
	return team
}

// stop ends the iteration's clock and, after the block's last, updates the
// mean of its way (weight ½ for the new block, so the choice follows the
// machine's load within a few blocks).
func (p *teamPick) stop() {
	p.elapsed += time.Since(p.t0)
	p.left--
	if p.left == 0 {
		v := float64(p.elapsed.Nanoseconds()) / pickBlock
		if p.ns[p.mode] == 0 {
			p.ns[p.mode] = v
		} else {
			p.ns[p.mode] = (p.ns[p.mode] + v) / 2
		}
	}
}

// checkFinite returns an error naming the iteration when a particle is not
// finite.
func (st *state) checkFinite(it int) error {
	n, _ := st.x.Dims()
	for i := 0; i < n; i++ {
		if err := particle.CheckFinite("svgd", it, st.x.RawRowView(i)); err != nil {
			return fmt.Errorf("%w (particle %d)", err, i)
		}
	}
	return nil
}

// set returns the current particles with equal weights.
func (st *state) set() particle.Set {
	return particle.Set{X: mat.DenseCopyOf(st.x), W: particle.Equal(st.s.N)}
}
