package hmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// leapfrog advances (x, p) by one leapfrog step of size eps under the
// metric m, in place. g holds ∇log p(x) on entry and on exit; the new
// log p(x) is returned. Chains use it for the diagonal metric; for the dense
// one it is the direct form (M⁻¹p recomputed for the drift), against which
// leapfrogDense is tested.
func leapfrog(t target.Target, x, p, g []float64, m *euclidean, eps float64) float64 {
	h := 0.5 * eps
	if m.dense {
		for j, gj := range g {
			p[j] += h * gj
		}
		v := m.velocity(p)
		for j, vj := range v {
			x[j] += eps * vj
		}
	} else {
		for j, gj := range g {
			p[j] += h * gj
			x[j] += eps * m.minv[j] * p[j]
		}
	}
	lp := t.LogProbGrad(x, g)
	for j, gj := range g {
		p[j] += h * gj
	}
	return lp
}

// leapfrogDense is leapfrog under a dense metric carrying the velocity
// v = M⁻¹p and u = M⁻¹∇log p(x) along, so that a step costs one d×d product
// (for the new u) instead of two (M⁻¹p for the drift and for the kinetic
// energy ½pᵀv):
//
//	p ← p + (ε/2)g,  v ← v + (ε/2)u,  x ← x + εv,
//	g ← ∇log p(x),   u ← M⁻¹g,         p ← p + (ε/2)g,  v ← v + (ε/2)u.
//
// v equals M⁻¹p up to rounding. g and u hold their values for x on entry and
// on exit; the new log p(x) is returned.
func leapfrogDense(t target.Target, x, p, v, g, u []float64, m *euclidean, eps float64) float64 {
	h := 0.5 * eps
	for j, gj := range g {
		p[j] += h * gj
		v[j] += h * u[j]
		x[j] += eps * v[j]
	}
	lp := t.LogProbGrad(x, g)
	m.mul(u, g)
	for j, gj := range g {
		p[j] += h * gj
		v[j] += h * u[j]
	}
	return lp
}

// dot returns Σ aⱼbⱼ.
func dot(a, b []float64) float64 {
	var s float64
	for j, aj := range a {
		s += aj * b[j]
	}
	return s
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// chain is the state of one Markov chain; it is touched only by its own
// goroutine while a phase runs.
type chain struct {
	id  int
	t   target.Target
	s   *Settings
	x0  []float64 // the start point, nil for the default start
	rng *rand.Rand
	pcg *rand.PCG // rng's source, whose state a checkpoint saves

	started bool // begin has run
	it      int  // iterations done, warm-up and sampling together

	x, g   []float64 // current state and its gradient
	lp     float64
	xp, gp []float64 // proposal
	p      []float64 // momentum
	v      []float64 // M⁻¹p along a dense trajectory
	u, up  []float64 // M⁻¹g and M⁻¹gp for a dense metric, nil for a diagonal one
	m      *euclidean
	eps    float64

	da  dualAveraging
	win windows
	wf  welford

	calls                    int64
	acceptSum                float64
	adaptSum                 float64 // acceptance statistics since the last dual-averaging restart
	adaptN                   int
	steps                    int64
	nSample                  int
	capped                   int // sampling transitions that MaxSteps truncated
	divergent, warmDivergent int
}

func newChain(id int, t target.Target, s *Settings, x0 []float64, pcg *rand.PCG) *chain {
	d := t.Dim()
	dense := s.denseFor(d)
	c := &chain{
		id: id, t: t, s: s, x0: x0, rng: rand.New(pcg), pcg: pcg,
		x: make([]float64, d), g: make([]float64, d),
		xp: make([]float64, d), gp: make([]float64, d),
		p:   make([]float64, d),
		m:   newEuclidean(d, dense),
		eps: s.StepSize,
		da:  dualAveraging{delta: s.TargetAccept},
		win: newWindows(s.Warmup),
		wf:  newWelford(d, dense),
	}
	if dense {
		c.v, c.u, c.up = make([]float64, d), make([]float64, d), make([]float64, d)
	}
	return c
}

// start finds a finite initial point, trying up to 100 dispersed draws as
// Stan does.
func (c *chain) start() error {
	ps, hasPrior := c.t.(target.PriorSampler)
	for try := 0; try < 100; try++ {
		switch {
		case c.x0 != nil:
			for j, v := range c.x0 {
				c.x[j] = v + c.s.InitScale*c.rng.NormFloat64()
			}
		case hasPrior:
			ps.SamplePrior(c.rng, c.x)
		default:
			for j := range c.x {
				c.x[j] = 4*c.rng.Float64() - 2
			}
		}
		c.lp = c.t.LogProbGrad(c.x, c.g)
		c.calls++
		if finite(c.x) && finite(c.g) && !math.IsNaN(c.lp) && !math.IsInf(c.lp, 0) {
			c.metricChanged()
			return nil
		}
	}
	return fmt.Errorf("hmc: chain %d: no initial point with finite log density and gradient in 100 tries", c.id)
}

// pathLength draws the number of leapfrog steps of one transition and
// reports whether Settings.MaxSteps truncated it (the jittered path reached
// the cap).
func (c *chain) pathLength() (steps int, capped bool) {
	base := c.s.NominalSteps(c.eps)
	if c.s.Jitter > 0 {
		base *= 1 + c.s.Jitter*(2*c.rng.Float64()-1)
	}
	if !(base < float64(c.s.MaxSteps)) { // also catches NaN
		return c.s.MaxSteps, true
	}
	return max(1, int(math.Ceil(base))), false
}

// metricChanged recomputes what a dense metric carries for the current
// state, u = M⁻¹g, after the metric or the state was set from outside a
// trajectory.
func (c *chain) metricChanged() {
	if c.u != nil {
		c.m.mul(c.u, c.g)
	}
}

// trajectory draws a momentum and runs steps leapfrog steps from the current
// state into the proposal (xp, gp, up), and returns the initial and final
// energies and the final log density. It stops early, with diverged true,
// when the energy error exceeds maxEnergyError.
func (c *chain) trajectory(steps int) (h0, h, lp float64, diverged bool) {
	copy(c.xp, c.x)
	copy(c.gp, c.g)
	lp = c.lp
	if c.u != nil {
		c.m.drawDense(c.rng, c.p, c.v)
		copy(c.up, c.u)
		h0 = -c.lp + 0.5*dot(c.p, c.v)
		h = h0
		for range steps {
			lp = leapfrogDense(c.t, c.xp, c.p, c.v, c.gp, c.up, c.m, c.eps)
			c.calls++
			h = -lp + 0.5*dot(c.p, c.v)
			if !(h-h0 <= maxEnergyError) { // NaN included
				return h0, h, lp, true
			}
		}
		return h0, h, lp, false
	}
	c.m.draw(c.rng, c.p)
	h0 = -c.lp + c.m.kinetic(c.p)
	h = h0
	for range steps {
		lp = leapfrog(c.t, c.xp, c.p, c.gp, c.m, c.eps)
		c.calls++
		h = -lp + c.m.kinetic(c.p)
		if !(h-h0 <= maxEnergyError) { // NaN included
			return h0, h, lp, true
		}
	}
	return h0, h, lp, false
}

// transition performs one HMC transition from the current state and returns
// its acceptance statistic and whether it diverged. It allocates nothing.
func (c *chain) transition(steps int) (accept float64, divergent bool) {
	h0, h, lp, div := c.trajectory(steps)
	if div {
		return 0, true
	}
	accept = math.Min(1, math.Exp(h0-h))
	if accept == 1 || c.rng.Float64() < accept {
		c.x, c.xp = c.xp, c.x
		c.g, c.gp = c.gp, c.g
		c.u, c.up = c.up, c.u
		c.lp = lp
	}
	return accept, false
}

// check reports a non-finite current state, which no rejection can repair.
func (c *chain) check(phase string, it int) error {
	if finite(c.x) && finite(c.g) && !math.IsNaN(c.lp) && !math.IsInf(c.lp, 0) {
		return nil
	}
	return fmt.Errorf("hmc: chain %d, %s iteration %d: non-finite state (log p = %v, finite θ: %v, finite ∇log p: %v)",
		c.id, phase, it, c.lp, finite(c.x), finite(c.g))
}

// initStepSize is Stan's heuristic: double or halve ε until the acceptance
// probability of one leapfrog step from the current point crosses 0.8.
//
// It does not look at a context: the search ends within about 1100 leapfrog
// steps (ε reaches 1e7 or 0), and a chain stopped only between whole
// iterations can always be checkpointed.
func (c *chain) initStepSize() error {
	const logTarget = -0.2231435513142097 // log 0.8
	deltaH := func() float64 {
		h0, h, _, _ := c.trajectory(1)
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		return h0 - h
	}
	dir := -1.0
	if deltaH() > logTarget {
		dir = 1
	}
	for {
		dh := deltaH()
		if dir == 1 && !(dh > logTarget) || dir == -1 && !(dh < logTarget) {
			return nil
		}
		if dir == 1 {
			c.eps *= 2
		} else {
			c.eps *= 0.5
		}
		if c.eps > 1e7 {
			return fmt.Errorf("hmc: chain %d: step size heuristic passed 1e7: is the posterior improper?", c.id)
		}
		if c.eps == 0 {
			return fmt.Errorf("hmc: chain %d: step size heuristic reached 0: no finite gradient near the initial point", c.id)
		}
	}
}

// begin finds a starting point and, when there is a warm-up, the initial
// step size and the centre of dual averaging.
func (c *chain) begin() error {
	if err := c.start(); err != nil {
		return err
	}
	if c.s.Warmup > 0 {
		if err := c.initStepSize(); err != nil {
			return err
		}
		c.restartAdaptation()
	}
	c.started = true
	return nil
}

// advance runs the chain's iterations c.it … to−1, counted over warm-up and
// sampling together: iteration it < Warmup adapts ε and the inverse mass
// matrix, and iteration Warmup + i writes sampling draw i into row
// i·Chains + id of pooled. It returns early, between two transitions, with
// ctx.Err() when ctx is done and with errPause when pause is set, so that
// c's state is always that after c.it whole iterations.
func (c *chain) advance(ctx context.Context, to int, pooled *mat.Dense, pause *atomic.Bool) error {
	if !c.started {
		if err := c.begin(); err != nil {
			return err
		}
	}
	w := c.s.Warmup
	for c.it < to {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pause != nil && pause.Load() {
			return errPause
		}
		if c.it < w {
			if err := c.warmupIteration(c.it); err != nil {
				return err
			}
			if c.it == w-1 {
				c.eps = c.da.final()
			}
		} else if err := c.sampleIteration(c.it-w, pooled); err != nil {
			return err
		}
		c.it++
		if c.s.Progress != nil {
			c.s.Progress(c.progress())
		}
	}
	return nil
}

// warmupIteration is warm-up iteration it: a transition, then one step of
// dual averaging and of the windowed metric adaptation.
func (c *chain) warmupIteration(it int) error {
	steps, _ := c.pathLength()
	a, div := c.transition(steps)
	if div {
		c.warmDivergent++
	}
	if err := c.check("warm-up", it); err != nil {
		return err
	}
	c.eps = c.da.learn(a)
	c.adaptSum += a
	c.adaptN++
	if c.win.learn(&c.wf, c.x, c.m) {
		c.metricChanged()
		if err := c.initStepSize(); err != nil {
			return err
		}
		c.restartAdaptation()
	}
	return nil
}

// restartAdaptation restarts dual averaging around log(10ε), as Stan does
// after the heuristic step size search.
func (c *chain) restartAdaptation() {
	c.da.restart(c.eps)
	c.adaptSum, c.adaptN = 0, 0
}

// sampleIteration is sampling iteration it; its draw goes into row
// it·Chains + id of pooled.
func (c *chain) sampleIteration(it int, pooled *mat.Dense) error {
	steps, capped := c.pathLength()
	a, div := c.transition(steps)
	if err := c.check("sampling", it); err != nil {
		return err
	}
	c.steps += int64(steps)
	if capped {
		c.capped++
	}
	c.acceptSum += a
	c.nSample++
	if div {
		c.divergent++
	}
	copy(pooled.RawRowView(it*c.s.Chains+c.id), c.x)
	return nil
}

func (c *chain) diagnostics() ChainDiagnostics {
	n := float64(c.nSample)
	return ChainDiagnostics{
		AcceptRate:        c.acceptSum / n,
		AdaptAccept:       c.adaptSum / float64(c.adaptN),
		Divergences:       c.divergent,
		WarmupDivergences: c.warmDivergent,
		StepSize:          c.eps,
		InvMass:           append([]float64(nil), c.m.minv...),
		InvMetric:         c.m.denseCopy(),
		MeanSteps:         float64(c.steps) / n,
		PathSteps:         c.s.NominalSteps(c.eps),
		Capped:            c.capped,
		GradCalls:         c.calls,
		Warmup:            min(c.it, c.s.Warmup),
		Draws:             c.nSample,
	}
}

// dualAveraging is the step-size adaptation of Hoffman & Gelman (2014) with
// Stan's constants.
type dualAveraging struct {
	delta          float64
	mu, sBar, xBar float64
	count          int
}

const (
	daGamma = 0.05
	daT0    = 10
	daKappa = 0.75
)

// restart centres the adaptation on log(10ε).
func (d *dualAveraging) restart(eps float64) {
	d.mu = math.Log(10 * eps)
	d.sBar, d.xBar, d.count = 0, 0, 0
}

// learn takes one acceptance statistic and returns the next step size.
func (d *dualAveraging) learn(accept float64) float64 {
	d.count++
	n := float64(d.count)
	accept = math.Min(1, accept)
	eta := 1 / (n + daT0)
	d.sBar = (1-eta)*d.sBar + eta*(d.delta-accept)
	x := d.mu - d.sBar*math.Sqrt(n)/daGamma
	xEta := math.Pow(n, -daKappa)
	d.xBar = (1-xEta)*d.xBar + xEta*x
	return math.Exp(x)
}

// final returns the averaged step size exp(x̄).
func (d *dualAveraging) final() float64 { return math.Exp(d.xBar) }

// windows is Stan's windowed adaptation schedule.
type windows struct {
	warmup, initBuf, termBuf int
	off                      bool
	counter                  int
	size, next               int
}

func newWindows(warmup int) windows {
	w := windows{warmup: warmup, initBuf: 75, termBuf: 50, size: 25}
	switch {
	case warmup < 20:
		w.off = true
	case w.initBuf+w.size+w.termBuf > warmup:
		w.initBuf = int(0.15 * float64(warmup))
		w.termBuf = int(0.1 * float64(warmup))
		w.size = warmup - (w.initBuf + w.termBuf)
	}
	w.next = w.initBuf + w.size - 1
	return w
}

func (w *windows) inWindow() bool {
	return !w.off && w.counter >= w.initBuf && w.counter < w.warmup-w.termBuf && w.counter != w.warmup
}

func (w *windows) endWindow() bool {
	return !w.off && w.counter == w.next && w.counter != w.warmup
}

func (w *windows) computeNext() {
	if w.next == w.warmup-w.termBuf-1 {
		return
	}
	w.size *= 2
	w.next = w.counter + w.size
	if w.next != w.warmup-w.termBuf-1 {
		if w.next+2*w.size >= w.warmup-w.termBuf {
			w.next = w.warmup - w.termBuf - 1
		}
	}
}

// learn adds the draw x to the estimate inside slow windows and, at the end
// of one, writes the regularised estimate into m and reports true.
func (w *windows) learn(wf *welford, x []float64, m *euclidean) bool {
	if w.inWindow() {
		wf.add(x)
	}
	if w.endWindow() {
		w.computeNext()
		wf.update(m)
		wf.restart()
		w.counter++
		return true
	}
	w.counter++
	return false
}
