package harness

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"
)

// ChainStatus is the state of one Markov chain of a long computation (an
// HMC reference) after a transition.
type ChainStatus struct {
	// Chain is the chain's index.
	Chain int
	// Phase is "warm-up" or "sampling"; Iteration counts the iterations done
	// in it out of Total.
	Phase            string
	Iteration, Total int
	// StepSize, AcceptRate and Divergences are the chain's current step
	// size, the mean acceptance statistic and the divergent transitions of
	// the phase.
	StepSize, AcceptRate float64
	Divergences          int
	// Done and Remaining count all the chain's iterations, done and to do.
	Done, Remaining int
}

// ChainMonitor shows how the chains of a long computation advance: every
// Interval it logs one line per chain (phase, iteration, step size,
// acceptance, divergences and an ETA from the chain's rate since the monitor
// started). Update may be called from many goroutines at once.
type ChainMonitor struct {
	name  string
	log   *slog.Logger
	start time.Time

	mu    sync.Mutex
	last  []ChainStatus
	first []int // Done at the first update of each chain, −1 before it
	seen  []bool
	bars  []*chainBar // one per chain on a terminal, else nil
	stop  chan struct{}
	wg    sync.WaitGroup
}

// ChainMonitorInterval is the time between two progress lines of a
// ChainMonitor.
const ChainMonitorInterval = 5 * time.Second

// ChainMonitor starts a monitor of chains chains named name (an artefact
// key, say) that logs to the run's logger every ChainMonitorInterval until
// Close and, when the run draws bars on a terminal, shows a bar per chain.
func (e *Env) ChainMonitor(name string, chains int) *ChainMonitor {
	m := NewChainMonitor(name, chains, e.Log(), ChainMonitorInterval)
	if e != nil && e.run != nil && e.run.prog != nil {
		m.bars = make([]*chainBar, chains)
		for i := range m.bars {
			m.bars[i] = e.run.prog.chain(name, i)
		}
	}
	return m
}

// Log returns the logger of the run the environment belongs to: that of
// the call of Runner.Run, else the runner's Options.Log, else
// slog.Default().
func (e *Env) Log() *slog.Logger {
	switch {
	case e == nil:
		return slog.Default()
	case e.run != nil && e.run.log != nil:
		return e.run.log
	case e.runner != nil:
		return e.runner.logger()
	}
	return slog.Default()
}

// NewChainMonitor starts a monitor that logs to log (slog.Default() when
// nil) every interval until Close.
func NewChainMonitor(name string, chains int, log *slog.Logger, interval time.Duration) *ChainMonitor {
	if log == nil {
		log = slog.Default()
	}
	m := &ChainMonitor{
		name: name, log: log, start: time.Now(),
		last: make([]ChainStatus, chains), first: make([]int, chains), seen: make([]bool, chains),
		stop: make(chan struct{}),
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		tk := time.NewTicker(interval)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				m.report()
			case <-m.stop:
				return
			}
		}
	}()
	return m
}

// Update records the latest state of chain s.Chain.
func (m *ChainMonitor) Update(s ChainStatus) {
	m.mu.Lock()
	if !m.seen[s.Chain] {
		m.seen[s.Chain], m.first[s.Chain] = true, s.Done-1
	}
	m.last[s.Chain] = s
	m.mu.Unlock()
	if m.bars != nil {
		m.bars[s.Chain].update(s)
	}
}

// Close stops the monitor.
func (m *ChainMonitor) Close() {
	close(m.stop)
	m.wg.Wait()
	for _, b := range m.bars {
		b.end()
	}
}

// report logs one line per chain that has started.
func (m *ChainMonitor) report() {
	m.mu.Lock()
	last := append([]ChainStatus(nil), m.last...)
	first := append([]int(nil), m.first...)
	seen := append([]bool(nil), m.seen...)
	m.mu.Unlock()
	elapsed := time.Since(m.start)
	for c, s := range last {
		if !seen[c] {
			continue
		}
		m.log.LogAttrs(context.Background(), slog.LevelInfo, "chain progress",
			slog.String("name", m.name), slog.Int("chain", s.Chain), slog.String("phase", s.Phase),
			slog.Int("iteration", s.Iteration), slog.Int("of", s.Total),
			slog.Float64("step_size", round4(s.StepSize)), slog.Float64("accept", round4(s.AcceptRate)),
			slog.Int("divergences", s.Divergences), slog.String("eta", eta(s.Done-first[c], s.Remaining, elapsed)))
	}
}

// eta is the time left at the rate of done iterations in elapsed, or "?"
// before there is a rate.
func eta(done, remaining int, elapsed time.Duration) string {
	if done <= 0 {
		return "?"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(remaining))
	return left.Round(time.Second).String()
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
