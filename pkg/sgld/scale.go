package sgld

import (
	"cmp"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The run frame's values (sampler.Frame) that SGLD takes.
const (
	// WhitenLaplace (the default) runs the chains in the coordinates of
	// the target's Laplace fit: there the posterior's curvature is about 1
	// in every direction, whatever the units of x or the number of data,
	// so that one step size fits every coordinate; in x the update is
	// preconditioned Langevin dynamics with the fit's covariance.
	WhitenLaplace = sampler.WhitenLaplace
	// WhitenNone runs the chains in the target's own coordinates.
	WhitenNone = sampler.WhitenNone
)

// Stopping rules (Settings.Stop).
const (
	// StopConverged ends the chains once the draws of their second halves
	// (after the burn-in) agree and are plentiful: after every segment of
	// RecordEvery iterations (at most every tenth of the iterations run
	// since the burn-in), the largest rank-normalised split-R̂ over the
	// coordinates (metric.SplitRhat, in the run's coordinates) is below
	// MaxRhat and the smallest bulk ESS (metric.BulkESS, all chains
	// together) is at least MinESS. The first half of every chain's kept
	// draws is discarded as further burn-in at every segment, so that the
	// set is always the second half. Iterations is the ceiling: a run that
	// reaches it first is returned with the flag "ceiling" in
	// particle.Set.Diag, which also records "iterations", "rhat_max" and
	// "ess_bulk_min" (and, with ScheduleAdaptive, "step", the chains' mean
	// adapted step, and "burnin_rejected", the moves of their burn-ins
	// rejected).
	StopConverged sampler.Stop = "converged"
	// StopFixed runs exactly Iterations iterations per chain.
	StopFixed = sampler.StopFixed
)

// rules is what of the run frame SGLD takes.
var rules = sampler.Rules{Stops: []sampler.Stop{StopConverged, StopFixed}, Whiten: true}

// Monitor selects the draws StopConverged reads (Settings.Monitor); the
// empty text is MonitorAll.
type Monitor string

// Monitors of StopConverged (Settings.Monitor) when Settings.Keep caps the
// particle set.
const (
	// MonitorAll tests R̂ and the ESS on the second half of every draw
	// kept since the burn-in, whatever Keep, and returns the last Keep
	// draws of each chain: the run stops when the chains agree, not when
	// Keep draws could show it, and a set of N = Chains·Keep particles has
	// N of them. With Keep = 25 (a set of 100 from four chains) the old
	// reading of the kept draws alone tested 12 draws per chain, whose
	// bulk ESS cannot reach 400, so every such run went to its ceiling.
	MonitorAll Monitor = "all"
	// MonitorKept tests the second half of the last Keep draws of each
	// chain and returns those (the rule before MonitorAll).
	MonitorKept Monitor = "kept"
)

// ScheduleAdaptive is a constant step after a burn-in that adapts it,
// each chain its own: starting at A, after every iteration of the burn-in
// log ε moves by (α − AdaptTarget)/(k + 10)^0.6 (never above log A), α the
// acceptance probability that a Metropolis-adjusted Langevin algorithm
// would give the move just made (computed from the log densities and
// scores the chain evaluates anyway), and the sampling phase keeps the
// geometric mean of the burn-in's second half. On a curvature the Laplace
// fit underestimates the moves become improbable and the step shrinks;
// where the fit is right the step stays at A, whose discretisation bias,
// on a Gaussian in whitened coordinates, inflates the variance by
// 1/(1 − A/4) (2.6 % at 0.1). Minibatch scores give no log density to
// compare, so their chains keep A.
//
// A move of the burn-in (the moves of iterations 1 … BurnIn) to a point
// whose log density or score is not finite, or whose Metropolis log ratio
// log α is below RejectLogRatio, is rejected: the chain stays at its
// previous state and the step halves. A step of 0.1 posterior standard
// deviations can be unstable where the target curves more steeply than its
// Laplace fit (a banana's tails), and a support with a boundary (log p =
// −∞ beyond it) can be crossed; the warm-up, whose states are discarded,
// is where that may be corrected. The moves of the sampling phase are
// never rejected: a non-finite log density or score there is the error of
// Run.
const ScheduleAdaptive Schedule = "adaptive"

// Defaults of the stopping rule and the whitened coordinates.
const (
	// DefaultCeiling is the zero Iterations with StopConverged.
	DefaultCeiling = 50000
	// DefaultWarmup is the zero BurnIn with StopConverged.
	DefaultWarmup = 1000
	// DefaultWhitenedStep is the zero A with WhitenLaplace.
	DefaultWhitenedStep = 0.1
	// DefaultMaxRhat and DefaultMinESS are the zero MaxRhat and MinESS.
	DefaultMaxRhat = 1.01
	DefaultMinESS  = 400
	// AdaptTarget is the acceptance probability ScheduleAdaptive steers
	// towards.
	AdaptTarget = 0.95
	// RejectLogRatio is the Metropolis log ratio log α below which
	// ScheduleAdaptive rejects a move of the burn-in: α < e⁻³ ≈ 0.05, a
	// move that a Metropolis-adjusted chain would make one time in twenty
	// where the adaptation steers towards AdaptTarget (0.95), into a region
	// the step is too long for. On the Gaussians of samplertest no move of
	// the burn-in falls below it; on its banana about ten of the chains'
	// 4000 do (docs/DECISIONS.md).
	RejectLogRatio = -3.0
)

// validateScale checks the frame, Monitor, MaxRhat and MinESS.
func (s Settings) validateScale() error {
	if err := s.Frame.Validate(rules); err != nil {
		return err
	}
	if err := setting.OneOf("monitor", s.Monitor, MonitorAll, MonitorKept); err != nil {
		return err
	}
	if math.IsNaN(s.MaxRhat) || math.IsInf(s.MaxRhat, 0) || (s.MaxRhat != 0 && s.MaxRhat <= 1) {
		return setting.Errorf("max_rhat", s.MaxRhat, "must be above 1")
	}
	if math.IsNaN(s.MinESS) || math.IsInf(s.MinESS, 0) || s.MinESS < 0 {
		return setting.Errorf("min_ess", s.MinESS, "must be finite and non-negative")
	}
	if s.Schedule == ScheduleAdaptive && s.Whiten == WhitenNone && s.A == 0 {
		return setting.Errorf("a", s.A, "the adaptive schedule in the target's coordinates needs a positive step a")
	}
	return nil
}

// defaultIterations is the zero Iterations of s.
func (s Settings) defaultIterations() int {
	return s.Frame.Ceiling(0, DefaultCeiling, DefaultIterations)
}

// defaultBurnIn is the zero BurnIn of s with iters iterations.
func (s Settings) defaultBurnIn(iters int) int {
	if s.Stop == StopFixed {
		return iters / 2
	}
	return min(DefaultWarmup, iters/2)
}

// resolveScale fills Whiten, Stop, Schedule, A, B, Gamma, MaxRhat and
// MinESS for the target t.
func (s *Settings) resolveScale(t target.Target) {
	s.Frame = s.Frame.Resolved(rules)
	s.MaxRhat = cmp.Or(s.MaxRhat, DefaultMaxRhat)
	s.MinESS = cmp.Or(s.MinESS, DefaultMinESS)
	if s.Whiten == WhitenLaplace {
		s.Schedule = cmp.Or(s.Schedule, ScheduleAdaptive)
	} else {
		s.Schedule = cmp.Or(s.Schedule, SchedulePolynomial)
	}
	if s.Schedule == SchedulePolynomial {
		s.B = cmp.Or(s.B, DefaultB)
		s.Gamma = cmp.Or(s.Gamma, DefaultGamma)
	}
	switch {
	case s.A != 0:
	case s.Whiten == WhitenNone:
		s.A = 1 / float64(target.NData(t))
	case s.Schedule == SchedulePolynomial:
		s.A = DefaultWhitenedStep * math.Pow(s.B+1, s.Gamma)
	default:
		s.A = DefaultWhitenedStep
	}
}

// adaptation is the step-size adaptation of one chain (ScheduleAdaptive).
type adaptation struct {
	warm         int // iterations of the burn-in
	logCap, logE float64
	sum          float64 // of log ε over the burn-in's second half
	cnt          int
	final        float64
	rejected     int // moves of the burn-in rejected
	// The previous state: its point, score, log density and step.
	xp, gp   []float64
	lpp, epp float64
	has      bool
}

// adaptation returns the adaptation of a chain with estimator e, nil when
// the schedule is not adaptive, there is no burn-in or the scores are
// minibatch estimates.
func (s *Settings) adaptation(e *estimator, d int) *adaptation {
	if s.Schedule != ScheduleAdaptive || s.BurnIn == 0 || e.st != nil {
		return nil
	}
	return &adaptation{warm: s.BurnIn, logCap: math.Log(s.A), logE: math.Log(s.A), final: s.A,
		xp: make([]float64, d), gp: make([]float64, d)}
}

// warming reports whether the state evaluated at iteration t was made by a
// move of the burn-in that may be rejected (step).
func (a *adaptation) warming(t int) bool { return a != nil && a.has && t <= a.warm+1 }

// retreat rejects the move of iteration t of the burn-in to the point x
// that is not finite (see ScheduleAdaptive): it puts the previous state
// back into x and halves the step. It reports false, and does nothing,
// after the burn-in or without an adaptation.
func (a *adaptation) retreat(t int, x []float64) bool {
	if a == nil || !a.has || t > a.warm {
		return false
	}
	copy(x, a.xp)
	a.rejected++
	a.logE -= math.Ln2
	return true
}

// step returns the step of iteration t at x (score g, log density lp, its
// finiteness checked unless warming(t)), learning from the move that led
// to x during the burn-in. A move that it rejects (see ScheduleAdaptive)
// puts the previous state back into x and g and its log density into *lp.
func (a *adaptation) step(t int, x, g []float64, lp *float64) float64 {
	if a.warming(t) {
		// log α of the move xp → x with step epp: p(x) q(xp | x) / (p(xp) q(x | xp)).
		la := math.Inf(-1)
		if particle.FiniteEval(*lp, g) {
			var fwd, bwd float64
			h := a.epp / 2
			for j, v := range x {
				f := v - a.xp[j] - h*a.gp[j]
				b := a.xp[j] - v - h*g[j]
				fwd += f * f
				bwd += b * b
			}
			la = *lp - a.lpp + (fwd-bwd)/(2*a.epp)
		}
		if !(la >= RejectLogRatio) { // NaN included
			copy(x, a.xp)
			copy(g, a.gp)
			*lp = a.lpp
			a.rejected++
			a.logE -= math.Ln2
		} else if t <= a.warm {
			alpha := math.Exp(math.Min(0, la))
			a.logE = math.Min(a.logCap, a.logE+(alpha-AdaptTarget)/math.Pow(float64(t)+10, 0.6))
		}
	}
	if t > a.warm {
		return a.final
	}
	if t > a.warm/2 {
		a.sum += a.logE
		a.cnt++
	}
	if t == a.warm && a.cnt > 0 {
		a.final = math.Exp(a.sum / float64(a.cnt))
	}
	eps := math.Exp(a.logE)
	copy(a.xp, x)
	copy(a.gp, g)
	a.lpp, a.epp, a.has = *lp, eps, true
	return eps
}

// convergence is the state of StopConverged; a nil *convergence never
// stops.
type convergence struct {
	s          *Settings
	draws      []*mat.Dense // scratch, one per chain
	buf        []float64
	rhat, ess  []float64
	last       int // iteration of the last check
	checked    bool
	rhatMax    float64
	essMin     float64
	done       bool
	iterations int
}

// converge returns the stopping state of s, nil with StopFixed.
func (s *Settings) converge(chains, d int) *convergence {
	if s.Stop != StopConverged {
		return nil
	}
	return &convergence{s: s, draws: make([]*mat.Dense, chains), rhat: make([]float64, d), ess: make([]float64, d),
		rhatMax: math.NaN(), essMin: math.NaN()}
}

// check sets every chain's draws to the second half of those kept, and at
// most every tenth of the iterations since the burn-in checks R̂ and the
// ESS at iteration at; it reports whether they are met.
func (c *convergence) check(chains []*chain, at int) bool {
	if c == nil {
		return false
	}
	c.iterations = at
	for _, ch := range chains {
		ch.skip = 0
		ch.skip = ch.monitored() / 2
	}
	burn := c.s.BurnIn
	if at < c.s.Iterations && at-c.last < max(c.s.RecordEvery, (at-burn)/10) {
		return false
	}
	n := chains[0].monitored()
	for _, ch := range chains {
		n = min(n, ch.monitored())
	}
	if n < 4 {
		return false
	}
	c.last = at
	d := len(chains[0].x)
	if cap(c.buf) < len(chains)*n*d {
		c.buf = make([]float64, len(chains)*n*d, 2*len(chains)*n*d)
	}
	for i, ch := range chains {
		b := c.buf[i*n*d : (i+1)*n*d]
		ch.copyLast(b, n)
		c.draws[i] = mat.NewDense(n, d, b)
	}
	metric.SplitRhat(c.draws, c.rhat)
	metric.BulkESS(c.draws, c.ess)
	c.rhatMax, c.essMin = math.Inf(-1), math.Inf(1)
	for j := range c.rhat {
		c.rhatMax = math.Max(c.rhatMax, c.rhat[j])
		c.essMin = math.Min(c.essMin, c.ess[j])
	}
	c.checked = true
	c.done = c.rhatMax < c.s.MaxRhat && c.essMin >= c.s.MinESS
	return c.done
}

// finish adds the run's diagnostics to set: the iterations per chain and,
// with StopConverged, the last R̂ and ESS and the flag "ceiling" when they
// were not met within Iterations.
func (c *convergence) finish(set particle.Set, chains []*chain) particle.Set {
	it := 0
	for _, ch := range chains {
		it = max(it, ch.it)
	}
	set.Diag.Set("iterations", float64(it))
	var eps float64
	var adapted, rejected int
	for _, ch := range chains {
		if ch.ad != nil {
			eps += ch.ad.final
			rejected += ch.ad.rejected
			adapted++
		}
	}
	if adapted > 0 {
		set.Diag.Set("step", eps/float64(adapted))
		set.Diag.Set("burnin_rejected", float64(rejected))
	}
	if c == nil {
		return set
	}
	if c.checked {
		set.Diag.Set("rhat_max", c.rhatMax)
		set.Diag.Set("ess_bulk_min", c.essMin)
	}
	if !c.done && it >= c.s.Iterations {
		set.Diag.Raise("ceiling", "sgld: %d iterations per chain (the ceiling) without R̂ < %g and bulk ESS ≥ %g (last R̂ %.3g, ESS %.0f)",
			it, c.s.MaxRhat, c.s.MinESS, c.rhatMax, c.essMin)
	}
	return set
}
