package sgld

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Settings configure Run. The zero value is usable: every field documents
// the default that its zero value stands for.
type Settings struct {
	// Iterations is the number of updates of every chain with StopFixed
	// and their ceiling with StopConverged. Default 10000 with StopFixed,
	// DefaultCeiling with StopConverged.
	Iterations int `toml:"iterations" json:"iterations,omitempty"`
	// BurnIn is the number of initial iterations of every chain whose states
	// are discarded (with ScheduleAdaptive, those of the step's
	// adaptation). Zero means Iterations/2 with StopFixed and
	// DefaultWarmup with StopConverged; NoBurnIn (-1) discards nothing.
	// Other negative values are errors.
	BurnIn int `toml:"burn_in" json:"burn_in,omitempty"`
	// Thin keeps every Thin-th state after the burn-in: the state after
	// iteration t is kept when t > BurnIn and (t − BurnIn) is a multiple of
	// Thin. Default 10.
	Thin int `toml:"thin" json:"thin,omitempty"`
	// Keep, when positive, keeps only the last Keep draws of each chain, so
	// that the particle set has a fixed budget of Chains·Keep particles
	// however long the run (with StopConverged, the last Keep of the second
	// half its monitor reads; see Monitor). Default 0: every kept draw.
	Keep int `toml:"-" json:"-"`

	// Chains is the number of independent chains. Default 4.
	Chains int `toml:"chains" json:"chains,omitempty"`

	// Batch is the minibatch size |B| for a target.Stochastic target, whose
	// likelihood is rescaled by N/|B|. A target that is not Stochastic, or
	// has N ≤ Batch datapoints, gets the full-data gradient. Default 100.
	Batch int `toml:"batch" json:"batch,omitempty"`

	// Schedule names the step-size schedule: ScheduleAdaptive (the
	// default, also "", with WhitenLaplace), SchedulePolynomial (the
	// default with WhitenNone) or ScheduleConstant.
	Schedule Schedule `toml:"schedule" json:"schedule,omitempty"`

	// A, B and Gamma set the polynomial step size ε_t = A·(B + t)^(−Gamma)
	// of iteration t = 1, 2, … (Welling & Teh); the constant schedule has
	// ε_t = A and takes neither B nor Gamma; the adaptive schedule starts
	// at A, which is also its ceiling. Steps are in the run's coordinates.
	// With WhitenNone the constant schedule needs A, and for the polynomial
	// schedule the zero A means 1/N with N = target.NData(t) (1 for a
	// target without data): the posterior of N datapoints has a curvature
	// of order N, and ε·curvature ≪ 1 keeps the Langevin discretisation
	// stable and its bias small. With WhitenLaplace the posterior's
	// curvature is about 1 in every direction and the zero A means
	// DefaultWhitenedStep (the polynomial schedule's first step then
	// being DefaultWhitenedStep).
	A float64 `toml:"a" json:"a,omitempty"`
	// B delays the decay of the step size. Default 1000, so that
	// ε_1 ≈ 0.022·A and the step falls only by a factor (1 + T/1000)^0.55
	// over T iterations.
	B float64 `toml:"b" json:"b,omitempty"`
	// Gamma is the decay exponent; Welling & Teh need Gamma ∈ (0.5, 1] for
	// Σε_t = ∞, Σε_t² < ∞. Default 0.55.
	Gamma float64 `toml:"gamma" json:"gamma,omitempty"`

	// InitScale is the standard deviation of the Gaussian perturbation of the
	// starting points around the start point X0 (particle.Start.X0; in
	// posterior standard deviations around the MAP with WhitenLaplace; see
	// Init). Zero means 1; NoInitScale (-1) means none. Other negative values
	// are errors.
	InitScale float64 `toml:"init_scale" json:"init_scale,omitempty"`

	// Frame is the run frame SGLD shares (its keys whiten, stop and
	// strict; Workers; NoDiagnostics): Whiten WhitenLaplace (the default)
	// runs the chains in z = L⁻¹(x − x̂), the coordinates of the Laplace fit
	// N(x̂, LLᵀ) at the MAP, i.e. preconditioned Langevin dynamics
	// θ ← θ + (ε/2)Σĝ + N(0, εΣ) with Σ = LLᵀ, WhitenNone in the target's
	// own coordinates; Stop StopConverged (the default) ends the chains
	// when the draws of their second halves agree (R̂) and are plentiful
	// (ESS), Iterations being a ceiling whose reaching flags the result,
	// StopFixed after exactly Iterations; Workers is the number of
	// goroutines that run the chains (the particles do not depend on it;
	// default min(Chains, GOMAXPROCS)). SGLD takes no KSDSize.
	sampler.Frame
	// MaxRhat is StopConverged's bound on the largest rank-normalised
	// split-R̂ over the coordinates. Zero means DefaultMaxRhat (1.01).
	MaxRhat float64 `toml:"max_rhat" json:"max_rhat,omitempty"`
	// MinESS is StopConverged's bound on the smallest bulk effective
	// sample size over the coordinates, all chains together. Zero means
	// DefaultMinESS (400).
	MinESS float64 `toml:"min_ess" json:"min_ess,omitempty"`
	// Monitor selects the draws StopConverged's R̂ and ESS read when Keep
	// caps the set: MonitorAll (the default, also "") the second half of
	// every draw kept since the burn-in, the set being the last Keep of
	// them (autocorrelated draws, worth fewer than Chains·Keep
	// independent ones: the set's distance to the monitored draws' mean is
	// checked, flag "kept", see FlagKeptZ); MonitorKept only the second
	// half of the last Keep draws, which is also the set (Chains·⌈Keep/2⌉
	// particles). Without Keep the two are the same. See the constants.
	Monitor Monitor `toml:"monitor" json:"monitor,omitempty"`

	// RecordEvery is the number of iterations between two snapshots.
	// Default 100. The last iteration is always reported.
	RecordEvery int `toml:"record_every" json:"record_every,omitempty"`
}

// Schedule names SGLD's step-size schedule (Settings.Schedule); the empty
// text is the default of the run's coordinates.
type Schedule string

// Step-size schedules (Settings.Schedule).
const (
	// SchedulePolynomial is ε_t = A·(B + t)^(−Gamma), decaying so that
	// Σε_t = ∞ and Σε_t² < ∞ when Gamma ∈ (0.5, 1].
	SchedulePolynomial Schedule = "polynomial"
	// ScheduleConstant is ε_t = A at every iteration: the chain then has a
	// stationary law of its own, biased by O(A), and mixes at a constant
	// rate.
	ScheduleConstant Schedule = "constant"
)

// NoBurnIn as Settings.BurnIn keeps the states from the first iteration
// on, and NoInitScale as Settings.InitScale starts the chains without a
// perturbation. They are the only negative values of their fields
// (burn_in = -1, init_scale = -1 in an experiment file).
const (
	NoBurnIn    = -1
	NoInitScale = -1.0
)

// Default values of Settings.
const (
	DefaultIterations  = 10000
	DefaultThin        = 10
	DefaultChains      = 4
	DefaultBatch       = 100
	DefaultB           = 1000
	DefaultGamma       = 0.55
	DefaultRecordEvery = 100
)

// Validate returns a *setting.Error naming the first invalid field, nil
// when s is valid: every field is non-negative (except BurnIn = NoBurnIn
// and InitScale = NoInitScale), Gamma is 0 or in (0.5, 1], and a burn-in and
// thinning that are given leave draws to keep. Zero fields are valid: they
// take their defaults.
func (s Settings) Validate() error {
	if err := setting.NonNegative("iterations", s.Iterations, "thin", s.Thin, "keep", s.Keep,
		"chains", s.Chains, "workers", s.Workers, "batch", s.Batch, "a", s.A, "b", s.B, "gamma", s.Gamma,
		"record_every", s.RecordEvery); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"a", s.A}, {"b", s.B}, {"init_scale", s.InitScale}} {
		if math.IsInf(f.v, 0) || math.IsNaN(f.v) {
			return setting.Errorf(f.name, f.v, "must be finite")
		}
	}
	if s.BurnIn < 0 && s.BurnIn != NoBurnIn {
		return setting.Errorf("burn_in", s.BurnIn, "must not be negative (NoBurnIn, -1, discards nothing)")
	}
	if s.InitScale < 0 && s.InitScale != NoInitScale {
		return setting.Errorf("init_scale", s.InitScale, "must not be negative (NoInitScale, -1, means none)")
	}
	switch s.Schedule {
	case "", SchedulePolynomial:
	case ScheduleAdaptive:
		switch {
		case s.B != 0:
			return setting.Errorf("b", s.B, "applies only to the polynomial schedule")
		case s.Gamma != 0:
			return setting.Errorf("gamma", s.Gamma, "applies only to the polynomial schedule")
		}
	case ScheduleConstant:
		switch {
		case s.A == 0 && s.Whiten == WhitenNone:
			return setting.Errorf("a", s.A, "the constant schedule needs a positive step a")
		case s.B != 0:
			return setting.Errorf("b", s.B, "applies only to the polynomial schedule")
		case s.Gamma != 0:
			return setting.Errorf("gamma", s.Gamma, "applies only to the polynomial schedule")
		}
	default:
		return setting.OneOf("schedule", s.Schedule, ScheduleAdaptive, SchedulePolynomial, ScheduleConstant)
	}
	if s.Gamma != 0 && (s.Gamma <= 0.5 || s.Gamma > 1) {
		return setting.Errorf("gamma", s.Gamma, "is outside (0.5, 1]")
	}
	if err := s.validateScale(); err != nil {
		return err
	}
	iters := cmp.Or(s.Iterations, s.defaultIterations())
	burn := s.BurnIn
	switch {
	case burn == 0:
		burn = s.defaultBurnIn(iters)
	case burn == NoBurnIn:
		burn = 0
	}
	if burn >= iters {
		return setting.Errorf("burn_in", s.BurnIn, "leaves none of %d iterations to keep", iters)
	}
	if thin := cmp.Or(s.Thin, DefaultThin); (iters-burn)/thin == 0 {
		return setting.Errorf("thin", thin, "leaves no draw of %d post-burn-in iterations to keep", iters-burn)
	}
	return nil
}

// withDefaults fills the zero fields of s, or returns the error of
// Validate or of a start that is not a point of t's dimension.
func (s Settings) withDefaults(t target.Target, start particle.Start) (Settings, error) {
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("sgld: %w", err)
	}
	if err := start.NoParticles("sgld"); err != nil {
		return s, err
	}
	if start.X0 != nil && len(start.X0) != t.Dim() {
		return s, fmt.Errorf("sgld: X0 has length %d, target dimension is %d", len(start.X0), t.Dim())
	}
	s.Iterations = cmp.Or(s.Iterations, s.defaultIterations())
	switch {
	case s.BurnIn == 0:
		s.BurnIn = s.defaultBurnIn(s.Iterations)
	case s.BurnIn == NoBurnIn:
		s.BurnIn = 0
	}
	s.Thin = cmp.Or(s.Thin, DefaultThin)
	s.Chains = cmp.Or(s.Chains, DefaultChains)
	s.Workers = cmp.Or(s.Workers, runtime.GOMAXPROCS(0))
	s.Workers = min(s.Workers, s.Chains)
	s.Batch = cmp.Or(s.Batch, DefaultBatch)
	s.resolveScale(t)
	switch {
	case s.InitScale == 0:
		s.InitScale = 1
	case s.InitScale == NoInitScale:
		s.InitScale = 0
	}
	s.RecordEvery = cmp.Or(s.RecordEvery, DefaultRecordEvery)
	return s, nil
}

// stepAt is the step size of iteration t under the resolved settings.
func (s *Settings) stepAt(t int) float64 {
	if s.Schedule == ScheduleConstant || s.Schedule == ScheduleAdaptive {
		return s.A
	}
	return StepSize(s.A, s.B, s.Gamma, t)
}

// StepSize returns the step size ε_t = a·(b + t)^(−γ) of iteration t.
func StepSize(a, b, gamma float64, t int) float64 {
	return a * math.Pow(b+float64(t), -gamma)
}

// chain is the state of one Langevin chain.
type chain struct {
	id  int
	s   *Settings
	x   []float64 // current state
	g   []float64 // gradient buffer
	rng *rand.Rand
	pcg *rand.PCG // rng's source, whose state MarshalState saves
	est *estimator

	it  int   // iterations done
	err error // divergence, with the iteration
	ad  *adaptation

	redraw   func(x []float64) // draws a start point into x
	fixed    bool              // the start is one point (no jitter, no prior)
	redrawns int               // start points redrawn (see restart)

	draws   []float64 // ring of capacity rows of length d, grown on the first pass
	rows    int
	kept    int  // draws kept so far, including those overwritten in the ring
	skip    int  // oldest retained draws left out of the set (StopConverged's second half)
	keep    int  // when positive, the set's cap per chain within the monitored draws (Settings.Keep, MonitorAll)
	dropped bool // the last kept draw was taken back (see step)
}

// step performs iteration t = c.it+1:
//
//	θ ← θ + (ε_t/2)·ĝ(θ) + √ε_t·z,  z ~ N(0, I).
//
// It reports false when θ is no longer finite, or when the log density or
// score (their minibatch estimates with minibatches) at θ is not: then the
// error is a *particle.NonFiniteError naming the iteration and the chain,
// and θ, which is no draw of the target, is taken back from the kept draws
// if it was kept. A θ made by a move of ScheduleAdaptive's burn-in is
// instead rejected (adaptation.step, adaptation.retreat).
func (c *chain) step() bool {
	t := c.it + 1
	eps := c.s.stepAt(t)
	lp := c.est.eval(c.x, c.g)
	if t == 1 && !particle.FiniteEval(lp, c.g) {
		if lp = c.restart(lp); c.err != nil {
			return false
		}
	}
	if !c.ad.warming(t) && !particle.FiniteEval(lp, c.g) {
		c.err = particle.NonFinite(particle.Site{Method: "sgld", Iteration: t, Point: "chain", Index: c.id}, lp, c.g)
		if b := c.s.BurnIn; c.it > b && (c.it-b)%c.s.Thin == 0 {
			c.kept--
			c.dropped = true
		}
		return false
	}
	if c.ad != nil {
		eps = c.ad.step(t, c.x, c.g, &lp)
	}
	h, sd := eps/2, math.Sqrt(eps)
	x := c.x
	for j, g := range c.g[:len(x)] {
		x[j] += h*g + sd*c.rng.NormFloat64()
	}
	if particle.CheckFinite("sgld", t, x) != nil && !c.ad.retreat(t, x) {
		c.err = particle.CheckFinite(fmt.Sprintf("sgld: chain %d", c.id), t, x)
		return false
	}
	c.it = t
	if b := c.s.BurnIn; t > b && (t-b)%c.s.Thin == 0 {
		i := c.kept % c.rows
		if (i+1)*len(x) > len(c.draws) {
			// The first pass through the rows grows the buffer, so that a
			// long ceiling reserves no memory it does not use.
			c.draws = append(c.draws, x...)
		} else {
			copy(c.draws[i*len(x):(i+1)*len(x)], x)
		}
		c.kept++
	}
	return true
}

// MaxStartDraws is the number of start points a chain draws (X0 +
// InitScale·z, a prior draw, or InitScale·z; in the whitened coordinates x̂ +
// InitScale·Lz, draws of the Laplace fit) until one has a finite log density
// and score: a support with a boundary (log p = −∞ outside) can lie within
// the jitter of the start, as Gamma(3, 1)'s 0 lies 1.4 Laplace sds below
// its mode. Runs whose first start is inside draw nothing more.
const MaxStartDraws = 100

// restart replaces a start point whose evaluation (lp, c.g) is not finite
// by fresh draws of the start's law, up to MaxStartDraws points in all,
// and returns the log density of the first finite one (c.x and c.g hold it).
// With a single start point, or when every draw is outside, c.err says so.
func (c *chain) restart(lp float64) float64 {
	site := particle.Site{Method: "sgld", Iteration: 0, Point: "chain", Index: c.id}
	if c.fixed {
		c.err = fmt.Errorf("%w; the start point (X0, no jitter) is outside the target's support",
			particle.NonFinite(site, lp, c.g))
		return lp
	}
	for k := 1; k < MaxStartDraws; k++ {
		c.redraw(c.x)
		if err := particle.CheckFinite(fmt.Sprintf("sgld: start of chain %d", c.id), 0, c.x); err != nil {
			c.err = err
			return lp
		}
		if lp = c.est.eval(c.x, c.g); particle.FiniteEval(lp, c.g) {
			c.redrawns = k
			return lp
		}
	}
	c.err = fmt.Errorf("%w; none of %d start points drawn has a finite log density and score "+
		"(the start's law lies outside the target's support: give an X0 inside it, or a smaller InitScale (key init_scale))",
		particle.NonFinite(site, lp, c.g), MaxStartDraws)
	return lp
}

// run advances the chain to iteration until, stopping early when ctx is
// cancelled or the chain diverges. ctx.Err of a cancellable context is an
// atomic load: cheap enough for every iteration.
func (c *chain) run(ctx context.Context, until int) {
	for c.it < until && c.err == nil {
		if ctx.Err() != nil {
			return
		}
		if !c.step() {
			return
		}
	}
}

// monitored returns the number of draws of c that StopConverged's monitor
// reads: the last min(kept, rows) kept (one fewer than the ring holds when
// its last draw was taken back), less the oldest skip.
func (c *chain) monitored() int {
	n := min(c.kept, c.rows)
	if c.dropped {
		n = min(c.kept, c.rows-1)
	}
	return max(0, n-c.skip)
}

// retained returns the number of draws of c that are in the particle set:
// the last keep of the monitored ones (all of them when keep is 0).
func (c *chain) retained() int {
	n := c.monitored()
	if c.keep > 0 {
		n = min(n, c.keep)
	}
	return n
}

// copyDraws writes the retained draws of c, oldest first, into dst and
// returns the number of values written.
func (c *chain) copyDraws(dst []float64) int { return c.copyLast(dst, c.retained()) }

// copyLast writes the last n draws of c, oldest first, into dst and
// returns the number of values written.
func (c *chain) copyLast(dst []float64, n int) int {
	d := len(c.x)
	first := c.kept - n
	for k := 0; k < n; k++ {
		i := (first + k) % c.rows
		copy(dst[k*d:(k+1)*d], c.draws[i*d:(i+1)*d])
	}
	return n * d
}

// Run samples the posterior t with stochastic gradient Langevin dynamics and
// returns the thinned post-burn-in draws of all chains, chain by chain and
// oldest first, with equal weights (with StopConverged, those of the
// second half of each chain's kept draws, the last Keep of them when Keep is
// set). With WhitenLaplace the MAP
// search and the Laplace fit come first, charged to the run.
//
// Each chain has its own random stream, seeded in turn from src before any
// chain starts, so the result depends on src and s only, not on the
// scheduling of the goroutines. The chains advance in lockstep segments of
// RecordEvery iterations; after each segment rec (when not nil) receives the
// particles kept so far, unless none are kept yet (during the burn-in).
//
// When rec returns particle.ErrStop, Run returns the particles kept so far and
// a nil error. When ctx is cancelled, Run returns promptly with the particles
// kept so far and an error wrapping ctx.Err(). When a chain diverges, or its
// log density or score is not finite at its state (a *particle.NonFiniteError
// naming the iteration t from 1 and the chain from 0), Run returns an error
// naming the chain and the iteration, with the (finite) particles kept
// before in the target's coordinates and none with WhitenLaplace. The one
// exception is the burn-in of ScheduleAdaptive (the zero value's), whose
// states are discarded: a move there to a non-finite point, log density
// or score is rejected and the step halved. Invalid settings return an
// error wrapping a *setting.Error (Validate) and no particles.
//
// The returned set carries its diagnostics (Set.Diag, see diagnose, in the
// target's coordinates with WhitenLaplace), which also check the draws
// they evaluate; with Settings.Strict a flagged set (a "ceiling" of
// StopConverged included, or a "kept" set of Keep draws per chain that
// lies further from the monitored draws' mean than as many independent
// draws would) comes with a *particle.FlaggedError.
func Run(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
	return sampler.Run(ctx, func(particle.Recorder) (sampler.State, error) {
		return Init(ctx, t, start, s, src)
	}, rec)
}

// jitter adds sd·z, z ~ N(0, I), to x.
func jitter(x []float64, sd float64, rng *rand.Rand) {
	if sd == 0 {
		return
	}
	for j := range x {
		x[j] += sd * rng.NormFloat64()
	}
}
