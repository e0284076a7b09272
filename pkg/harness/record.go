package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// CSVHeader is the header of every cell's CSV: one row per evaluated
// snapshot and metric (tidy, long format).
const CSVHeader = "experiment,cell,method,dataset,split,n_particles,step,compute_seconds,grad_evals,metric,value"

// StatPrefix prefixes the metric name of a method-reported statistic
// (particle.Snapshot.Stats) in the CSV: key "mmd2_kernel" is written as
// metric "method:mmd2_kernel". Registered metric names cannot collide
// with it, and a reader tells the method's own figures from the harness's.
const StatPrefix = "method:"

type namedMetric struct {
	name string
	f    Metric
}

// row is one evaluated snapshot.
type row struct {
	step      int
	seconds   float64
	gradEvals int64
	values    []float64
	stats     []stat // sorted by name
}

// stat is one method-reported statistic of a row, named with StatPrefix.
type stat struct {
	name  string
	value float64
}

// recorder is the particle.Recorder of one cell: it evaluates the scheduled
// snapshots, enforces the budget and stops at cancellation. Each evaluated
// snapshot's lines of the CSV are written out at once (to the writer given
// to stream, else to memory), so that a run of many snapshots does not
// grow in memory.
type recorder struct {
	ctx     context.Context
	cell    *Cell
	sched   Schedule
	budget  Budget
	metrics []namedMetric

	// w writes the CSV, hashed, to sink (mem unless stream set another);
	// the header goes first, at the first row or at finish.
	w       *bufio.Writer
	sink    io.Writer
	mem     bytes.Buffer
	sum     hash.Hash
	started bool
	// nan is the first NaN metric value written, as checkFinite says it.
	nan     error
	prefix  string  // the cell's fields that begin every line
	rows    int     // the rows evaluated
	lastKey float64 // the first metric's value at the last row

	lastEvalSec float64
	// lastEvalGrads is the gradient count of the last evaluated snapshot.
	lastEvalGrads int64
	nextLog       int
	evaluated     bool // whether the last snapshot seen was evaluated
	last          particle.Snapshot
	lastStats     map[string]float64 // copy of last.Stats (the method may reuse its map)
	seen          bool

	// onStep, when set, follows the method's progress (the progress bar).
	onStep func(step int, seconds float64)
	// ck, when set, keeps the cell's checkpoints (cellCheckpoints).
	ck *recCheckpoints
}

func newRecorder(ctx context.Context, c *Cell, metrics []namedMetric) *recorder {
	return &recorder{ctx: ctx, cell: c, sched: c.Experiment.Eval, budget: c.Experiment.Budget, metrics: metrics, nextLog: 1, lastEvalSec: math.Inf(-1)}
}

// due reports whether the schedule selects s.
func (r *recorder) due(s particle.Snapshot) bool {
	sc := r.sched
	if sc.Every == 0 && sc.EverySeconds == 0 && sc.EveryGradEvals == 0 && !sc.Log {
		return true
	}
	if sc.EveryGradEvals > 0 && (r.rows == 0 || s.GradEvals-r.lastEvalGrads >= sc.EveryGradEvals) {
		return true
	}
	if sc.Every > 0 && s.Step%sc.Every == 0 {
		return true
	}
	if sc.EverySeconds > 0 && s.Seconds-r.lastEvalSec >= sc.EverySeconds {
		return true
	}
	if sc.Log && s.Step >= r.nextLog {
		for r.nextLog <= s.Step {
			r.nextLog = nextLogStep(r.nextLog)
		}
		return true
	}
	return false
}

// nextLogStep returns the step after k in 1, 2, 5, 10, 20, 50…
func nextLogStep(k int) int {
	p := 1
	for p*10 <= k {
		p *= 10
	}
	switch k / p {
	case 1:
		return 2 * p
	case 2, 3, 4:
		return 5 * p
	default:
		return 10 * p
	}
}

func (r *recorder) eval(s particle.Snapshot) {
	vals := make([]float64, len(r.metrics))
	for i, m := range r.metrics {
		vals[i] = m.f(s)
	}
	r.write(&row{step: s.Step, seconds: s.Seconds, gradEvals: s.GradEvals, values: vals, stats: stats(s.Stats)})
	r.rows++
	if len(vals) > 0 {
		r.lastKey = vals[0]
	}
	r.lastEvalSec = s.Seconds
	r.lastEvalGrads = s.GradEvals
}

// stats returns the method's statistics sorted by key (nil when none), so
// that the CSV is deterministic whatever the map's iteration order.
func stats(m map[string]float64) []stat {
	if len(m) == 0 {
		return nil
	}
	out := make([]stat, 0, len(m))
	for k, v := range m {
		out = append(out, stat{StatPrefix + k, v})
	}
	slices.SortFunc(out, func(a, b stat) int { return strings.Compare(a.name, b.name) })
	return out
}

// Record implements particle.Recorder.
func (r *recorder) Record(s particle.Snapshot) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	stop := (r.budget.Steps > 0 && s.Step >= r.budget.Steps) ||
		(r.budget.Seconds > 0 && s.Seconds >= r.budget.Seconds) ||
		(r.budget.GradEvals > 0 && s.GradEvals >= r.budget.GradEvals)
	r.evaluated = false
	if stop || r.due(s) {
		r.eval(s)
		r.evaluated = true
	}
	r.last = particle.Snapshot{Step: s.Step, Seconds: s.Seconds, GradEvals: s.GradEvals}
	if len(s.Stats) > 0 || len(r.lastStats) > 0 {
		if r.lastStats == nil {
			r.lastStats = make(map[string]float64, len(s.Stats))
		}
		clear(r.lastStats)
		for k, v := range s.Stats {
			r.lastStats[k] = v
		}
		r.last.Stats = r.lastStats
	}
	r.seen = true
	if r.onStep != nil {
		r.onStep(s.Step, s.Seconds)
	}
	if stop {
		return particle.ErrStop
	}
	return nil
}

// final evaluates the method's returned particles when the last snapshot
// was not evaluated, at that snapshot's step, time, cost and statistics.
func (r *recorder) final(set particle.Set) {
	if set.X == nil || (r.seen && r.evaluated) {
		return
	}
	s := r.last
	s.X, s.W = set.X, set.W
	r.eval(s)
}

// checkFinite returns an error naming the first metric whose value was NaN
// at an evaluated snapshot, and the step: such a result (from a reference
// with too few draws, or draws that overflow) measures nothing, and its
// cell fails rather than being done. The method's own statistics
// (StatPrefix) are not checked.
func (r *recorder) checkFinite() error { return r.nan }

// stream sends the CSV to w instead of memory; it must come before the
// first snapshot.
func (r *recorder) stream(w io.Writer) {
	if r.started {
		panic("harness: recorder streamed after its first row")
	}
	r.sink = w
}

// start writes the header, once.
func (r *recorder) start() {
	if r.started {
		return
	}
	r.started = true
	if r.sink == nil {
		r.sink = &r.mem
	}
	c := r.cell
	r.prefix = csvField(c.Experiment.ID) + "," + csvField(c.ID) + "," + csvField(c.Method.Name) + "," +
		csvField(c.Dataset) + "," + strconv.Itoa(c.Split) + "," + strconv.Itoa(c.N) + ","
	r.sum = sha256.New()
	if r.ck != nil {
		r.w = bufio.NewWriterSize(io.MultiWriter(r.sink, r.sum, &r.ck.csv), 64<<10)
	} else {
		r.w = bufio.NewWriterSize(io.MultiWriter(r.sink, r.sum), 64<<10)
	}
	r.w.WriteString(CSVHeader)
	r.w.WriteByte('\n')
}

// write writes the lines of the row rw: one per metric, then one per
// statistic. Floats use strconv's shortest form ('g', -1), which parses
// back to the same float64. A write error is kept by the buffered writer
// and returned by finish.
func (r *recorder) write(rw *row) {
	r.start()
	b := r.w
	line := func(name string, v float64) {
		b.WriteString(r.prefix)
		b.WriteString(strconv.Itoa(rw.step))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(rw.seconds, 'g', -1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatInt(rw.gradEvals, 10))
		b.WriteByte(',')
		b.WriteString(csvField(name))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		b.WriteByte('\n')
	}
	for j, m := range r.metrics {
		if r.nan == nil && math.IsNaN(rw.values[j]) {
			r.nan = fmt.Errorf("metric %s is NaN at step %d", m.name, rw.step)
		}
		line(m.name, rw.values[j])
	}
	for _, st := range rw.stats {
		line(st.name, st.value)
	}
}

// finish flushes the CSV (the header alone when no row was evaluated) and
// returns its sha256, or the first error writing it.
func (r *recorder) finish() ([sha256.Size]byte, error) {
	r.start()
	var out [sha256.Size]byte
	if err := r.w.Flush(); err != nil {
		return out, err
	}
	r.sum.Sum(out[:0])
	return out, nil
}

// csv returns the CSV of a recorder that wrote to memory.
func (r *recorder) csv() []byte {
	if _, err := r.finish(); err != nil {
		panic("harness: " + err.Error()) // memory does not fail
	}
	return r.mem.Bytes()
}

// csvField quotes s when CSV needs it; names are validated, so this is a
// safeguard.
func csvField(s string) string {
	for _, c := range s {
		if c == ',' || c == '"' || c == '\n' || c == '\r' {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return s
}
