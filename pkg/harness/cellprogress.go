package harness

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// The progress lines of a running cell: one when it starts, then, while it
// runs, one about every CellProgressInterval (its step, of how many when
// that is known, the share of its budget, the time it has run and an
// estimate of the time left), on top of the line when it finishes (which
// says how far the run is: the cells finished of those it computes and
// the time left, runProgress) and the bars on a terminal.

// CellProgressInterval is the time between two progress lines of a
// running cell.
const CellProgressInterval = 10 * time.Second

// cellProgressInterval is CellProgressInterval; tests shorten it.
var cellProgressInterval = CellProgressInterval

// SetStepCount gives the method kind name of r the number of snapshot
// steps one cell takes (its iterations, or one step per particle), for the
// progress lines; 0 when it is not known before the run (a stopping
// rule). S must be the settings type the kind was registered with.
func SetStepCount[S any](r *Registry, name string, f func(Footprint[S]) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := traitOf[S](r, name, "step count")
	m.steps = func(settings any, n int, e *Experiment) int {
		return f(footprint[S](settings, n, e))
	}
}

// cellProgress follows one running cell for its progress lines.
type cellProgress struct {
	cell  *Cell
	log   *slog.Logger
	slot  *slot // to say nothing while the cell waits
	start time.Time
	// steps is the step count the cell will reach: the budget's or the
	// kind's (SetStepCount), whichever is smaller; 0 when unknown.
	steps int

	mu      sync.Mutex
	seen    bool
	step    int
	seconds float64
	grads   int64

	stop chan struct{}
	done chan struct{}
}

// startProgress logs the start of c and, until end is called, a progress
// line every cellProgressInterval.
func startProgress(log *slog.Logger, c *Cell, s *slot, threads int) *cellProgress {
	p := &cellProgress{cell: c, log: log, slot: s, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	bud := c.Experiment.Budget
	if k := c.Method.kind; k != nil && k.steps != nil {
		p.steps = k.steps(c.Method.Settings, c.N, c.Experiment)
	}
	if bud.Steps > 0 && (p.steps == 0 || bud.Steps < p.steps) {
		p.steps = bud.Steps
	}
	args := []any{"cell", c.ID, "kind", c.Method.Kind, "threads", threads}
	if c.N > 0 {
		args = append(args, "n", c.N)
	}
	if p.steps > 0 {
		args = append(args, "steps", p.steps)
	}
	log.Info("cell started", args...)
	go p.loop()
	return p
}

// update records the cell's last snapshot.
func (p *cellProgress) update(step int, seconds float64, grads int64) {
	p.mu.Lock()
	p.seen, p.step, p.seconds, p.grads = true, step, seconds, grads
	p.mu.Unlock()
}

// end stops the progress lines.
func (p *cellProgress) end() {
	close(p.stop)
	<-p.done
}

func (p *cellProgress) loop() {
	defer close(p.done)
	t := time.NewTicker(cellProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			if p.slot != nil {
				p.slot.mu.Lock()
				held := p.slot.held
				p.slot.mu.Unlock()
				if !held {
					continue // the cell waits, and said so
				}
			}
			p.log.Info("cell progress", p.line(time.Since(p.start))...)
		}
	}
}

// line returns the attributes of a progress line after elapsed: the step
// (of how many, when known), the share of the budget done (the largest of
// steps, compute seconds and gradient evaluations against their limits),
// the elapsed seconds and, once a share is known, the seconds left at the
// rate so far.
func (p *cellProgress) line(elapsed time.Duration) []any {
	p.mu.Lock()
	seen, step, seconds, grads := p.seen, p.step, p.seconds, p.grads
	p.mu.Unlock()
	args := []any{"cell", p.cell.ID}
	if !seen {
		return append(args, "step", 0, "elapsed", roundSec(elapsed.Seconds()), "note", "preparing (data, metrics, shared artefacts)")
	}
	args = append(args, "step", step)
	if p.steps > 0 {
		args = append(args, "of", p.steps)
	}
	bud := p.cell.Experiment.Budget
	frac := 0.0
	if p.steps > 0 {
		frac = float64(step) / float64(p.steps)
	}
	if bud.Seconds > 0 {
		frac = max(frac, seconds/bud.Seconds)
	}
	if bud.GradEvals > 0 {
		frac = max(frac, float64(grads)/float64(bud.GradEvals))
	}
	frac = min(frac, 1)
	args = append(args, "elapsed", roundSec(elapsed.Seconds()))
	if frac > 0 {
		left := elapsed.Seconds() * (1 - frac) / frac
		args = append(args, "done", fmt.Sprintf("%.0f%%", 100*frac), "left", roundSec(left))
	}
	return args
}
