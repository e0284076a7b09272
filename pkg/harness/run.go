package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// Summary counts the outcomes of a run.
type Summary struct {
	Total       int
	Cached      int // done or skipped before this run (or by another runner during it), not recomputed here
	Done        int
	Failed      int
	Skipped     int
	Interrupted int
	// Failures and Skips give "cell: reason" per failed or skipped cell.
	Failures []string
	Skips    []string
	// Flagged gives "cell: reason" per cell of this run, computed or
	// cached, whose result its method flagged (Provenance.Diagnostics);
	// under Options.Strict they are also failures.
	Flagged []string
	// FlagCodes counts the cells of Flagged by flag code: a cell with two
	// flags counts under each.
	FlagCodes map[string]int
	// Elsewhere counts the cells another runner sharing the results
	// directory was running when this one reached them; this run waited
	// for them (without a job slot) and counts their outcome.
	Elsewhere int
	// Time is where the run's time went.
	Time TimeReport
}

// TimeReport says where a run's time went. Cell seconds are wall-clock
// seconds during which a cell held a job slot (loading its data, preparing
// its metrics, computing a reference it was the first to need, running its
// method); the seconds during which a cell waited for an artefact another
// cell or process was computing are Waiting, and hold no slot. Cells wait
// side by side (every cell of a split waits for its one reference), so
// Waiting, summed over cells, may exceed Wall; WaitingWall, the wall time
// during which at least one cell waited, never does.
type TimeReport struct {
	// Wall is the run's duration.
	Wall time.Duration
	// Cells is the slot time of the cells of each experiment.
	Cells map[string]time.Duration
	// Compute is the sum of the methods' own clocks (compute_seconds).
	Compute time.Duration
	// References is the computing time of each reference sample this
	// run computed, by reference id (it is part of the slot time of the
	// cell that computed it).
	References map[string]time.Duration
	// Waiting is the time cells waited for artefacts (or for a cell
	// another runner held), summed over cells: cell-seconds.
	Waiting time.Duration
	// WaitingWall is the wall time during which at least one cell waited
	// (at most Wall).
	WaitingWall time.Duration
}

// String is one line per part, longest first.
func (t TimeReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "time: %s wall, %s of method compute", fmtDur(t.Wall), fmtDur(t.Compute))
	if t.Waiting > 0 {
		fmt.Fprintf(&b, ", %s of the wall with cells waiting for shared artefacts (%.1f cell-seconds summed over the waiting cells; no job slot held)",
			fmtDur(t.WaitingWall), t.Waiting.Seconds())
	} else {
		b.WriteString(", no cell waited for shared artefacts")
	}
	list := func(title string, m map[string]time.Duration) {
		if len(m) == 0 {
			return
		}
		keys := make([]string, 0, len(m))
		var total time.Duration
		for k, d := range m {
			keys = append(keys, k)
			total += d
		}
		sort.Slice(keys, func(i, j int) bool {
			if m[keys[i]] != m[keys[j]] {
				return m[keys[i]] > m[keys[j]]
			}
			return keys[i] < keys[j]
		})
		fmt.Fprintf(&b, "\n  %s: %s", title, fmtDur(total))
		for _, k := range keys {
			fmt.Fprintf(&b, "\n    %-40s %s", k, fmtDur(m[k]))
		}
	}
	list("cells (slot time) by experiment", t.Cells)
	list("references computed (within their cells' slot time)", t.References)
	return b.String()
}

func fmtDur(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// runProgress returns the attributes of a "cell finished" line that say
// how far the run is, a plain line for a log that is no terminal: the
// cells finished of those it computes ("cells", k/n) and, until the last,
// the time left ("left_seconds": the time per finished cell so far times
// the cells left).
func runProgress(finished, n int, elapsed time.Duration) []any {
	args := []any{"cells", fmt.Sprintf("%d/%d", finished, n)}
	if finished > 0 && finished < n {
		args = append(args, "left_seconds", roundSec(elapsed.Seconds()/float64(finished)*float64(n-finished)))
	}
	return args
}

// flaggedLines is the most flagged cells the summary names one by one;
// beyond it, it counts them by flag.
const flaggedLines = 10

// countFlags counts the flags of d in s.FlagCodes.
func (s *Summary) countFlags(d *Diagnostics) {
	if s.FlagCodes == nil {
		s.FlagCodes = map[string]int{}
	}
	d.CountFlags(s.FlagCodes)
}

// String is the summary printed at the end of a run: the failures one per
// line, the flagged cells one per line when they are few and counted by
// flag otherwise, the skipped cells counted by reason.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cells: %d done (%d cached), %d failed, %d skipped, %d interrupted",
		s.Total, s.Done, s.Cached, s.Failed, s.Skipped, s.Interrupted)
	if s.Elsewhere > 0 {
		fmt.Fprintf(&b, "; %d run by another process", s.Elsewhere)
	}
	for _, f := range s.Failures {
		b.WriteString("\n  failed: " + f)
	}
	if len(s.Flagged) <= flaggedLines {
		for _, f := range s.Flagged {
			b.WriteString("\n  flagged: " + f)
		}
	} else {
		fmt.Fprintf(&b, "\n  flagged: %d cells, by flag: %s; each cell with its reasons in the report's section \"Flagged results\" and in its \"cell finished\" line",
			len(s.Flagged), FlagCounts(s.FlagCodes))
	}
	reasons := map[string]int{}
	for _, sk := range s.Skips {
		_, why, _ := strings.Cut(sk, ": ")
		reasons[why]++
	}
	var rs []string
	for why, n := range reasons {
		rs = append(rs, fmt.Sprintf("\n  skipped: %d × %s", n, why))
	}
	sort.Strings(rs)
	b.WriteString(strings.Join(rs, ""))
	return b.String()
}

// Err is non-nil when a cell failed or was interrupted.
func (s *Summary) Err() error {
	switch {
	case s.Failed > 0:
		return fmt.Errorf("%d of %d cells failed", s.Failed, s.Total)
	case s.Interrupted > 0:
		return fmt.Errorf("interrupted: %d of %d cells unfinished", s.Interrupted, s.Total)
	}
	return nil
}

// slot is a cell's hold on one of the run's job slots. A cell gives its
// slot back while it waits for an artefact that another cell or process
// computes, so that a waiting cell never keeps another from running.
type slot struct {
	sem   chan struct{}
	cell  *Cell
	log   *slog.Logger
	bar   *cellBar
	clock *waitClock // the run's, shared by its slots

	mu     sync.Mutex
	held   bool
	waited time.Duration
	since  time.Time // when the slot was last taken
	used   time.Duration
}

func (s *slot) acquire(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	s.held, s.since = true, time.Now()
	s.mu.Unlock()
	return nil
}

func (s *slot) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return
	}
	s.held = false
	s.used += time.Since(s.since)
	<-s.sem
}

// wait gives the slot back while the cell waits for what; resume takes a
// slot again (unless ctx is done: the cell then stops at its next step).
func (s *slot) wait(ctx context.Context, what string) (resume func()) {
	s.log.Info("cell waiting", "cell", s.cell.ID, "for", what)
	s.bar.waiting(what)
	s.release()
	end := s.startWaiting()
	return func() {
		end()
		s.bar.waiting("")
		s.acquire(ctx)
	}
}

// startWaiting starts the cell's waiting clock and the run's; the
// returned function stops both.
func (s *slot) startWaiting() (end func()) {
	start := time.Now()
	s.clock.start(start)
	return func() {
		now := time.Now()
		s.clock.stop(now)
		s.mu.Lock()
		s.waited += now.Sub(start)
		s.mu.Unlock()
	}
}

// waitClock measures the wall time during which at least one cell of a
// run waits. A nil *waitClock measures nothing.
type waitClock struct {
	mu    sync.Mutex
	n     int       // cells waiting now
	since time.Time // when n became positive
	total time.Duration
}

func (w *waitClock) start(now time.Time) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.since = now
	}
	w.n++
}

func (w *waitClock) stop(now time.Time) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 {
		w.total += now.Sub(w.since)
	}
}

// wall returns the wall time with at least one cell waiting.
func (w *waitClock) wall() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

type slotKey struct{}

// waitFor tells the job slot of the cell running under ctx, if any, that
// the cell starts waiting for what (an artefact key); the returned
// function is called when the wait ends.
func waitFor(ctx context.Context, what string) (resume func()) {
	if s, ok := ctx.Value(slotKey{}).(*slot); ok {
		return s.wait(ctx, what)
	}
	return func() {}
}

// outcome is how runCell left a cell.
type outcome int

const (
	computed    outcome = iota // a provenance was written
	interrupted                // ctx was cancelled: nothing was written
	elsewhere                  // another runner holds the cell
	cached                     // another runner finished it meanwhile
)

// Run runs the cells not yet cached, at most Jobs at once. Each cell is
// claimed (its running marker taken exclusively) before any work, so that
// runners sharing the results directory, in this process or others,
// compute each cell once: a cell another runner holds is waited for,
// without a job slot, and its outcome counted. A failing or panicking cell
// is recorded and does not stop the others; a cell whose data cannot be
// read fails alone, with the file named, and writes nothing. Cancelling
// ctx stops the running cells at their next snapshot without writing
// them; a later run resumes with the unfinished cells. A recomputed cell
// keeps its old result until the new one is complete. The cells that will
// ask for an experiment's reference sample start first, one per dataset
// and split, so that the long reference computations overlap the other
// cells. The error is non-nil only when the run could not start (a cell's
// provenance that cannot be read, a results directory that cannot be
// written: checked before any cell runs); cell outcomes are in the
// summary.
func (r *Runner) Run(ctx context.Context, cells []*Cell) (*Summary, error) {
	begin := time.Now()
	sum := &Summary{Total: len(cells), Time: TimeReport{Cells: map[string]time.Duration{}}}
	var todo []CellStatus
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return nil, err
		}
		if st.Err == nil && !r.opts.Force && (st.Status == Done || st.Status == Skipped) {
			if st.Status == Done && st.Prov.Diagnostics.Flagged() {
				sum.Flagged = append(sum.Flagged, c.ID+": "+st.Prov.Diagnostics.Reason())
				sum.countFlags(st.Prov.Diagnostics)
			}
			if f, ok := r.strictCached(c, st.Prov); ok {
				sum.Failed++
				sum.Failures = append(sum.Failures, f)
				continue
			}
			sum.Cached++
			if st.Status == Done {
				sum.Done++
			} else {
				sum.Skipped++
				sum.Skips = append(sum.Skips, c.ID+": "+st.Prov.Error)
			}
			continue
		}
		todo = append(todo, st)
	}
	if err := r.checkMemory(todo); err != nil {
		return nil, err
	}
	if err := r.checkWritable(todo); err != nil {
		return nil, err
	}
	todo = referencesFirst(todo)
	log := r.opts.Log
	prog := newProgress(r.opts.Progress, len(todo), sum.Cached)
	if log == nil {
		log = slog.Default()
		if prog != nil {
			log = slog.New(slog.NewTextHandler(prog.writer(), nil))
		}
	}
	run := &runState{log: log, prog: prog, refTimes: map[string]time.Duration{}}
	r.logNamespaces(log, cells)

	var mu sync.Mutex // guards sum and finished
	finished := 0     // cells of todo this run has finished, cached meanwhile or not
	sem := make(chan struct{}, r.opts.Jobs)
	clock := &waitClock{}
	var wg sync.WaitGroup
	for _, st := range todo {
		s := &slot{sem: sem, cell: st.Cell, log: log, clock: clock}
		if err := s.acquire(ctx); err != nil {
			mu.Lock()
			sum.Interrupted++
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, out, other := r.cellLoop(ctx, run, st, s, begin)
			mu.Lock()
			defer mu.Unlock()
			sum.Time.Cells[st.Cell.Experiment.ID] += s.used
			sum.Time.Waiting += s.waited
			if other {
				sum.Elsewhere++
			}
			if out == interrupted {
				sum.Interrupted++
				return
			}
			finished++
			if p.Diagnostics.Flagged() {
				sum.Flagged = append(sum.Flagged, p.Cell+": "+p.Diagnostics.Reason())
				sum.countFlags(p.Diagnostics)
			}
			if f, ok := r.strictCached(st.Cell, p); ok && out == cached {
				sum.Failed++
				sum.Failures = append(sum.Failures, f)
				return
			}
			if out == cached && (p.Status == Done || p.Status == Skipped) {
				sum.Cached++
			}
			switch p.Status {
			case Done:
				sum.Done++
			case Skipped:
				sum.Skipped++
				sum.Skips = append(sum.Skips, p.Cell+": "+p.Error)
			default:
				sum.Failed++
				first, _, _ := strings.Cut(p.Error, "\n")
				sum.Failures = append(sum.Failures, p.Cell+": "+first)
			}
			if out == cached {
				return
			}
			sum.Time.Compute += time.Duration(p.Seconds * float64(time.Second))
			args := []any{"cell", p.Cell, "status", p.Status}
			if !p.Start.IsZero() {
				args = append(args, "seconds", roundSec(p.End.Sub(p.Start).Seconds()),
					"compute_seconds", roundSec(p.Seconds), "wait_seconds", roundSec(p.WaitSeconds))
			}
			if km := keyMetric(p); km != nil {
				args = append(args, km...)
			}
			args = append(args, runProgress(finished, len(todo), time.Since(begin))...)
			if p.Error != "" {
				first, _, _ := strings.Cut(p.Error, "\n")
				args = append(args, "error", first)
			} else if p.Diagnostics.Flagged() {
				args = append(args, "flagged", p.Diagnostics.Reason())
			}
			log.Info("cell finished", args...)
		}()
	}
	wg.Wait()
	prog.wait()
	sort.Strings(sum.Failures)
	sort.Strings(sum.Skips)
	sort.Strings(sum.Flagged)
	run.refMu.Lock()
	sum.Time.References = run.refTimes
	run.refMu.Unlock()
	sum.Time.Wall = time.Since(begin)
	sum.Time.WaitingWall = min(clock.wall(), sum.Time.Wall)
	return sum, nil
}

// logNamespaces says, per experiment, how many of cells overrides keep
// apart from the file's own, and in which folder.
func (r *Runner) logNamespaces(log *slog.Logger, cells []*Cell) {
	n := map[*Experiment]int{}
	var exps []*Experiment
	for _, c := range cells {
		if c.Namespace == "" {
			continue
		}
		if n[c.Experiment] == 0 {
			exps = append(exps, c.Experiment)
		}
		n[c.Experiment]++
	}
	for _, e := range exps {
		log.Info("overrides keep cells apart from the file's own", "experiment", e.ID, "cells", n[e],
			"folder", filepath.Join(r.opts.Results, ProfileDir(e.Profile), e.ID+"@"+e.Namespace), "overrides", strings.Join(e.Overrides, " "))
	}
}

// checkWritable makes sure, before any cell runs, that the profile
// folders of the cells to run can be written: an
// unwritable results directory is one error naming the folder, rather
// than one failure per cell. It writes and removes a temporary file in
// each folder, creating the folder when missing.
func (r *Runner) checkWritable(todo []CellStatus) error {
	if len(todo) == 0 {
		return nil
	}
	var dirs []string
	seen := map[string]bool{}
	for _, st := range todo {
		d := filepath.Join(r.opts.Results, ProfileDir(st.Cell.Experiment.Profile))
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		err := os.MkdirAll(d, 0o755)
		if err == nil {
			var f *os.File
			if f, err = os.CreateTemp(d, ".write-check-*"); err == nil {
				f.Close()
				err = os.Remove(f.Name())
			}
		}
		if err != nil {
			return fmt.Errorf("results directory %s cannot be written (--results): %w", r.opts.Results, err)
		}
	}
	return nil
}

// strictCached returns the failure of a cached result under
// Options.Strict: a done cell whose provenance records a flag. It stays
// cached (recomputing it would flag it again) and fails the strict run.
func (r *Runner) strictCached(c *Cell, p *Provenance) (string, bool) {
	if !r.opts.Strict || p == nil || p.Status != Done || !p.Diagnostics.Flagged() {
		return "", false
	}
	return c.ID + ": " + c.Method.Name + ": result flagged (cached; --force recomputes it): " + p.Diagnostics.Reason(), true
}

// referencesFirst moves to the front, in order, the first cell of each
// experiment with a reference on each dataset and split: the cell that
// will compute the reference.
func referencesFirst(todo []CellStatus) []CellStatus {
	type group struct {
		exp     *Experiment
		dataset string
		split   int
	}
	seen := map[group]bool{}
	var first, rest []CellStatus
	for _, st := range todo {
		c := st.Cell
		g := group{c.Experiment, c.Dataset, c.Split}
		if c.Experiment.Reference != nil && st.Err == nil && st.ck.Missing == "" && !seen[g] {
			seen[g] = true
			first = append(first, st)
			continue
		}
		rest = append(rest, st)
	}
	return append(first, rest...)
}

// cellLoop runs st's cell holding s, and when another runner holds the
// cell, waits for it without the slot: it returns that runner's outcome,
// or runs the cell itself when that runner stopped without finishing it.
// other reports whether another runner was found holding the cell.
func (r *Runner) cellLoop(ctx context.Context, run *runState, st CellStatus, s *slot, begin time.Time) (p *Provenance, out outcome, other bool) {
	defer s.release()
	c := st.Cell
	for {
		p, out = r.runCell(ctx, run, st, s, begin)
		if out != elsewhere {
			return p, out, other
		}
		if !other {
			run.log.Info("cell waiting", "cell", c.ID, "for", "another process running it", "marker", r.MarkerPath(c))
		}
		other = true
		s.release()
		end := s.startWaiting()
		for r.Running(c) {
			select {
			case <-ctx.Done():
				end()
				return nil, interrupted, other
			case <-time.After(markerPoll):
			}
		}
		end()
		if err := s.acquire(ctx); err != nil {
			return nil, interrupted, other
		}
		var err error
		if st, err = r.Status(c); err != nil {
			return &Provenance{Cell: c.ID, Status: Failed, Error: err.Error()}, computed, other
		}
	}
}

// markerPoll is how often a runner checks whether a cell another runner
// holds has been released.
const markerPoll = 100 * time.Millisecond

func roundSec(s float64) float64 { return float64(int64(s*1000)) / 1000 }

// keyMetric returns the last value of the first metric, kept in the
// provenance summary by runCell.
func keyMetric(p *Provenance) []any {
	if p.keyMetric == "" {
		return nil
	}
	return []any{p.keyMetric, p.keyValue}
}

// finishedDuring reports whether st is a result that needs no computing by
// this run: current and done or skipped (under Force: and written after
// the run began, by another runner), or current and failed after the run
// began (another runner's failure is not retried within the same run).
func (r *Runner) finishedDuring(st CellStatus, begin time.Time) bool {
	if st.Err != nil || st.Prov == nil {
		return false
	}
	during := !st.Prov.End.Before(begin)
	switch st.Status {
	case Done, Skipped:
		return !r.opts.Force || during
	case Failed:
		return during
	}
	return false
}

// runCell claims c, runs it and writes its results. It writes nothing when
// the cell's data cannot be read (st.Err), when another runner holds it
// (elsewhere) or finished it meanwhile (cached), or when ctx is cancelled
// before it finished (interrupted).
func (r *Runner) runCell(ctx context.Context, run *runState, st CellStatus, s *slot, begin time.Time) (prov *Provenance, out outcome) {
	if ctx.Err() != nil {
		return nil, interrupted
	}
	c := st.Cell
	prov = &Provenance{
		Experiment: c.Experiment.ID, File: c.Experiment.File, Profile: c.Experiment.Profile, Overrides: c.Experiment.Overrides,
		Cell: c.ID, Method: c.Method.Name, Kind: c.Method.Kind, Dataset: c.Dataset, Split: c.Split, N: c.N,
		Settings: c.Method.Settings,
	}
	if st.Err != nil {
		prov.Status, prov.Error = Failed, st.Err.Error()
		return prov, computed
	}
	csvPath, provPath := r.Paths(c)
	if err := r.checkPath(c); err != nil {
		prov.Status, prov.Error = Failed, err.Error()
		return prov, computed
	}
	if err := os.MkdirAll(filepath.Dir(csvPath), 0o755); err != nil {
		prov.Status, prov.Error = Failed, err.Error()
		return prov, computed
	}
	endMarker, err := r.claim(c)
	if errors.Is(err, errClaimed) {
		return nil, elsewhere
	}
	if err != nil {
		prov.Status, prov.Error = Failed, "running marker: "+err.Error()
		return prov, computed
	}
	defer endMarker()
	if err := recoverResult(csvPath, provPath); err != nil {
		prov.Status, prov.Error = Failed, "results: "+err.Error()
		return prov, computed
	}
	removeTemporaryCSVs(csvPath)
	// Another runner may have finished the cell between the status read
	// and the claim.
	now, err := r.Status(c)
	if err != nil {
		prov.Status, prov.Error = Failed, err.Error()
		return prov, computed
	}
	if r.finishedDuring(now, begin) {
		return now.Prov, cached
	}
	st = now
	if st.Err != nil {
		prov.Status, prov.Error = Failed, st.Err.Error()
		return prov, computed
	}
	threads := r.Threads()
	prov.Key, prov.KeyDoc, prov.Data = st.Key, st.ck.Doc, st.ck.Data
	prov.Code, prov.Host, prov.Jobs, prov.Threads, prov.Start = vcsInfo(), hostInfo(), r.opts.Jobs, threads, time.Now().UTC()
	loadStart, haveLoad := loadAvg()
	// The CSV is written as the method runs, to a temporary file that
	// replaceResult renames into place.
	csvFile, err := atomicfile.Create(csvPath, 0o644)
	if err != nil {
		prov.Status, prov.Error = Failed, "writing results: "+err.Error()
		return prov, computed
	}
	defer csvFile.Abort()
	rec := newRecorder(ctx, c, nil)
	rec.stream(csvFile)
	// A method whose state can be saved keeps a checkpoint under the
	// cell's key as it runs, and resumes from the one an interrupted run
	// left; it is removed once the cell is written.
	if pathSegment(st.Key) {
		rec.cellCheckpoints(run.log, st.Key, r.CheckpointFile(st.Key))
	}
	bar := run.prog.cell(c)
	s.bar = bar
	cp := startProgress(run.log, c, s, threads)
	rec.onStep = func(step int, seconds float64) {
		bar.step(step, seconds)
		cp.update(step, seconds, rec.last.GradEvals)
	}
	waited0 := s.waited
	cctx := context.WithValue(ctx, slotKey{}, s)
	status, err := r.execute(cctx, run, c, st, threads, rec, prov)
	cp.end()
	if ctx.Err() != nil {
		bar.abort()
		return nil, interrupted
	}
	defer bar.done()
	if status == Done {
		err = rec.checkFinite()
		if err != nil {
			status = Failed
		}
	}
	prov.Status = status
	if err != nil {
		prov.Error = err.Error()
	}
	prov.End = time.Now().UTC()
	if loadEnd, ok := loadAvg(); ok && haveLoad {
		prov.Load = &LoadAvg{Start: loadStart, End: loadEnd}
	}
	s.mu.Lock()
	prov.WaitSeconds = roundSec((s.waited - waited0).Seconds())
	s.mu.Unlock()
	prov.Seconds, prov.Steps, prov.GradEvals = rec.last.Seconds, rec.last.Step, rec.last.GradEvals
	if rec.rows > 0 && len(rec.metrics) > 0 {
		prov.keyMetric, prov.keyValue = rec.metrics[0].name, rec.lastKey
	}
	sum, werr := rec.finish()
	prov.CSVSHA256 = hex.EncodeToString(sum[:])
	b, err := json.MarshalIndent(prov, "", "  ")
	if err != nil {
		// Settings or summary that JSON cannot hold (NaN): keep the
		// record, without them.
		prov.Summary = nil
		prov.Error = strings.TrimPrefix(prov.Error+"\n", "\n") + "provenance: " + err.Error()
		b, err = json.MarshalIndent(prov, "", "  ")
	}
	if err == nil {
		err = werr
	}
	if err == nil {
		err = replaceResult(provPath, csvFile, append(b, '\n'))
	}
	if err != nil {
		prov.Status, prov.Error = Failed, "writing results: "+err.Error()
	}
	rec.ck.remove()
	return prov, computed
}

// checkPath returns an error unless c's files lie under its method's
// folder, <results>/<profile>/<experiment>/<method> (<experiment>@<namespace>
// for a cell that overrides kept apart): names are checked when the file
// is loaded, and this guards cells built by hand.
func (r *Runner) checkPath(c *Cell) error {
	exp := c.Experiment.ID
	if c.Namespace != "" {
		exp += "@" + c.Namespace
	}
	dir := filepath.Join(r.opts.Results, ProfileDir(c.Experiment.Profile), exp, c.Method.Name)
	base := r.cellBase(c)
	for _, name := range []string{exp, c.Method.Name, c.Dataset} {
		if !pathSegment(name) {
			return fmt.Errorf("cell %s: name %q cannot name a folder of the results", c.ID, name)
		}
	}
	if !within(base, dir) || filepath.Clean(base) == filepath.Clean(dir) {
		return fmt.Errorf("cell %s: its files %s would not lie under its method's folder %s", c.ID, base, dir)
	}
	return nil
}

// newSuffix ends the name of a result written beside the one it replaces.
const newSuffix = ".new"

// replaceResult puts a cell's new CSV and provenance in place of the old
// ones (<prov>.new first, then the CSV, written beforehand into csv, by an
// atomic rename, then the provenance by another), so that the old result
// stays whole until the new one is complete. Only the runner holding the
// cell's marker calls it; recoverResult completes a replacement a crash
// cut short.
func replaceResult(provPath string, csv *atomicfile.File, prov []byte) error {
	if err := atomicfile.Write(provPath+newSuffix, prov, 0o644); err != nil {
		return err
	}
	if err := csv.Commit(); err != nil {
		os.Remove(provPath + newSuffix)
		return err
	}
	return os.Rename(provPath+newSuffix, provPath)
}

// removeTemporaryCSVs removes the temporary files of the CSV at csvPath
// that a runner killed while writing it left behind (atomicfile's
// .<name>.tmp-*). The caller holds the cell's marker, so no other runner
// is writing them.
func removeTemporaryCSVs(csvPath string) {
	dir, base := filepath.Split(csvPath)
	old, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*"))
	for _, p := range old {
		os.Remove(p)
	}
}

// recoverResult finishes or discards a replacement cut short between the
// renames of replaceResult: a <prov>.new whose CSV checksum is the CSV's
// replaces the provenance, any other is removed. The caller holds the
// cell's marker.
func recoverResult(csvPath, provPath string) error {
	b, err := safefile.ReadFile(provPath + newSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var p struct {
		CSV string `json:"csv_sha256"`
	}
	csv, cerr := safefile.ReadFile(csvPath)
	sum := sha256.Sum256(csv)
	if json.Unmarshal(b, &p) == nil && cerr == nil && p.CSV == hex.EncodeToString(sum[:]) {
		return os.Rename(provPath+newSuffix, provPath)
	}
	return os.Remove(provPath + newSuffix)
}
