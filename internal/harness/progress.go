package harness

import (
	"io"
	"os"

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
}

func newProgress(w io.Writer, n int) *progress {
	if w == nil || n == 0 {
		return nil
	}
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithAutoRefresh())
	total := p.AddBar(int64(n),
		mpb.BarPriority(1<<30),
		mpb.PrependDecorators(decor.Name("cells", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.EwmaETA(decor.ET_STYLE_GO, 30, decor.WCSyncSpace), decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)),
	)
	return &progress{p: p, total: total}
}

// writer returns a writer whose lines appear above the bars.
func (p *progress) writer() io.Writer { return p.p }

func (p *progress) wait() {
	if p == nil {
		return
	}
	p.total.SetTotal(-1, true)
	p.p.Wait()
}

// cellBar follows one cell: steps against the step budget, or compute
// milliseconds against the time budget, or a bare counter.
type cellBar struct {
	pr      *progress
	b       *mpb.Bar
	seconds bool
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
		mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace)),
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

func (cb *cellBar) done() {
	if cb == nil {
		return
	}
	cb.b.Abort(true)
	cb.pr.total.Increment()
}
