package harness

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// TerminalStderr returns os.Stderr when it is a terminal and nil otherwise:
// the Progress option that shows bars only to a person watching.
func TerminalStderr() io.Writer {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return os.Stderr
}

// progress draws one bar per running cell and an overall bar with an ETA.
// A nil *progress draws nothing.
type progress struct {
	p     *mpb.Progress
	total *mpb.Bar
	mu    sync.Mutex // guards the cells' waiting notes
}

// newProgress follows n cells to compute (cached more were found done).
// The overall bar counts the cells finished by this run; its ETA is the
// average time per finished cell times those left.
func newProgress(w io.Writer, n, cached int) *progress {
	if w == nil || n == 0 {
		return nil
	}
	name := "cells"
	if cached > 0 {
		name = "cells (" + strconv.Itoa(cached) + " cached)"
	}
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithAutoRefresh())
	total := p.AddBar(int64(n),
		mpb.BarPriority(1<<30),
		mpb.PrependDecorators(decor.Name(name, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO, decor.WCSyncSpace), decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)),
	)
	return &progress{p: p, total: total}
}

// writer returns a writer whose lines appear above the bars.
func (p *progress) writer() io.Writer { return p.p }

// wait stops the bars. An unfinished overall bar (an interrupted run)
// stays as it is, showing how many cells were finished.
func (p *progress) wait() {
	if p == nil {
		return
	}
	if !p.total.Completed() {
		p.total.Abort(false)
	}
	p.p.Wait()
}

// cellBar follows one cell: steps against the step budget, or compute
// milliseconds against the time budget, or a bare counter.
type cellBar struct {
	pr      *progress
	b       *mpb.Bar
	seconds bool
	what    string
}

func (p *progress) cell(c *Cell) *cellBar {
	if p == nil {
		return nil
	}
	bud := c.Experiment.Budget
	var total int64
	cb := &cellBar{pr: p}
	switch {
	case bud.Steps > 0:
		total = int64(bud.Steps)
	case bud.Seconds > 0:
		total = int64(bud.Seconds * 1000)
		cb.seconds = true
	}
	cb.b = p.p.AddBar(total,
		mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(c.ID, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Any(func(decor.Statistics) string {
			if w := cb.waitingFor(); w != "" {
				return " waiting for " + w
			}
			return ""
		})),
	)
	return cb
}

func (cb *cellBar) step(step int, seconds float64) {
	if cb == nil {
		return
	}
	if cb.seconds {
		cb.b.SetCurrent(int64(seconds * 1000))
	} else {
		cb.b.SetCurrent(int64(step))
	}
}

// waiting shows what the cell waits for ("" when it no longer waits).
func (cb *cellBar) waiting(what string) {
	if cb == nil {
		return
	}
	cb.pr.mu.Lock()
	cb.what = what
	cb.pr.mu.Unlock()
}

func (cb *cellBar) waitingFor() string {
	cb.pr.mu.Lock()
	defer cb.pr.mu.Unlock()
	return cb.what
}

// done removes the bar of a finished cell and counts it.
func (cb *cellBar) done() {
	if cb == nil {
		return
	}
	cb.b.Abort(true)
	cb.pr.total.Increment()
}

// abort removes the bar of an interrupted cell without counting it.
func (cb *cellBar) abort() {
	if cb == nil {
		return
	}
	cb.b.Abort(true)
}

// chainBar follows one Markov chain of a long computation: iterations done
// against all of the chain's iterations, with its phase, step size and
// acceptance.
type chainBar struct {
	pr   *progress
	b    *mpb.Bar
	note string
}

// chain adds a bar for chain i of the computation name.
func (p *progress) chain(name string, i int) *chainBar {
	if p == nil {
		return nil
	}
	cb := &chainBar{pr: p}
	cb.b = p.p.AddBar(0,
		mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(name+" chain "+strconv.Itoa(i), decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Any(func(decor.Statistics) string {
			p.mu.Lock()
			defer p.mu.Unlock()
			return cb.note
		})),
	)
	return cb
}

// update shows s on the chain's bar.
func (cb *chainBar) update(s ChainStatus) {
	if cb == nil {
		return
	}
	cb.pr.mu.Lock()
	cb.note = fmt.Sprintf(" %s %d/%d step %.3g accept %.2f", s.Phase, s.Iteration, s.Total, s.StepSize, s.AcceptRate)
	cb.pr.mu.Unlock()
	cb.b.SetTotal(int64(s.Done+s.Remaining), false)
	cb.b.SetCurrent(int64(s.Done))
}

// end removes the chain's bar.
func (cb *chainBar) end() {
	if cb == nil {
		return
	}
	cb.b.Abort(true)
}
