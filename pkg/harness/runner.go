package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// Options configure a Runner.
type Options struct {
	// Results is the results directory ("results" when empty).
	Results string
	// DataDir is the data folder the datasets read, one folder per
	// dataset ("data" when empty); the loaders and checksums reach it
	// through Env.DataDir.
	DataDir string
	// Jobs bounds the cells run at once (runtime.NumCPU() when ≤ 0).
	Jobs int
	// Force recomputes cells whose results are cached.
	Force bool
	// Strict fails a cell whose method flagged its result
	// (particle.Set.Diag): the error gives the flags' reasons and the
	// provenance records the diagnostics. A cached result that recorded a
	// flag counts as failed in the run's summary, and stays cached. It
	// enters no cache key.
	Strict bool
	// KeyRevision adds the VCS revision (and dirty flag) to every cache
	// key, so that any commit recomputes everything.
	KeyRevision bool
	// RecordedData makes Status take each cell's data checksums (or the
	// reason its data was missing) from the provenance it finds instead of
	// hashing the local data folder, so that cached results can be judged
	// current on a machine without the data: plots and reports read
	// results, they never need the data. Running cells ignores it.
	RecordedData bool
	// Memory is the memory in bytes that Run checks the cells' memory
	// estimates against before any cell runs (SetMemoryEstimate); 0
	// takes $MMDFW_MEMORY (MemoryEnv), else the machine's available
	// memory (/proc/meminfo), else no check; NoMemoryCheck turns the
	// check off.
	Memory uint64
	// Progress receives progress bars; nil disables them.
	Progress io.Writer
	// Log receives one line per finished cell (slog.Default() when nil).
	Log *slog.Logger
}

// Runner runs cells, caches their results and shares artefacts between them.
// It holds no state of a run: what one call of Run gathers (its logger, its
// progress bars, the time its references took) lives in that call's
// runState, so that a Runner may serve several calls of Run, Status and
// Prepare at once.
type Runner struct {
	reg   *Registry
	opts  Options
	store *Store
}

// runState is what one call of Run shares with the cells it runs and their
// Envs.
type runState struct {
	log  *slog.Logger
	prog *progress // the bars on a terminal, or nil

	refMu    sync.Mutex
	refTimes map[string]time.Duration // references computed by the run
}

// addReference adds d to the time spent on the reference id; a nil
// runState (outside Run) keeps nothing.
func (s *runState) addReference(id string, d time.Duration) {
	if s == nil {
		return
	}
	s.refMu.Lock()
	s.refTimes[id] += d
	s.refMu.Unlock()
}

// DataDir is the data folder the runner's datasets read: Options.DataDir,
// or DefaultDataDir when it is empty.
func (r *Runner) DataDir() string {
	if r.opts.DataDir == "" {
		return DefaultDataDir
	}
	return r.opts.DataDir
}

// logger is where progress lines go outside Run: Options.Log, else
// slog.Default().
func (r *Runner) logger() *slog.Logger {
	if r.opts.Log != nil {
		return r.opts.Log
	}
	return slog.Default()
}

// NewRunner returns a runner over the experiments of reg.
func NewRunner(reg *Registry, opts Options) *Runner {
	if opts.Results == "" {
		opts.Results = "results"
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	return &Runner{reg: reg, opts: opts, store: NewStore(filepath.Join(opts.Results, ".artefacts"))}
}

// Store returns the runner's artefact store.
func (r *Runner) Store() *Store { return r.store }

// Threads is the thread budget of each cell: the cores shared fairly among
// the cells that run at once, max(1, NumCPU/Jobs).
func (r *Runner) Threads() int { return max(1, runtime.NumCPU()/r.opts.Jobs) }

// Plan lists the cells of the experiments in order and numbers them.
func Plan(exps []*Experiment) []*Cell {
	var cells []*Cell
	for _, e := range exps {
		cells = append(cells, Cells(e)...)
	}
	for i, c := range cells {
		c.Index = i
	}
	return cells
}

// CheckDistinct returns an error when two of exps have the same id: their
// cells would share ids, and so files and cache entries. The error names
// both files.
func CheckDistinct(exps []*Experiment) error {
	seen := map[string]*Experiment{}
	for _, e := range exps {
		if o, dup := seen[e.ID]; dup {
			return fmt.Errorf("%s and %s both define experiment id %q: their cells would overwrite each other's results", o.File, e.File, e.ID)
		}
		seen[e.ID] = e
	}
	return nil
}

// LoadFiles reads the experiment files under profile, applies the
// overrides sets (KEY=VALUE in TOML, after the profile; none for nil) and
// lists their cells (Plan). An error names the file, line and key at
// fault; two files with the same experiment id are an error naming both
// (CheckDistinct).
func LoadFiles(reg *Registry, files []string, profile string, sets []string) ([]*Cell, error) {
	var exps []*Experiment
	for _, f := range files {
		e, err := LoadFileSet(reg, f, profile, sets)
		if err != nil {
			return nil, err
		}
		exps = append(exps, e)
	}
	if err := CheckDistinct(exps); err != nil {
		return nil, err
	}
	return Plan(exps), nil
}

// Select returns the cells whose index lies in spec: a comma-separated
// list of "A-B" (inclusive), "A-", "-B" or "A", indices as listed by Plan,
// for instance "0,5,10-12". The cells come in index order, each once. A
// malformed part, a reversed range or an index past the last cell is an
// error saying which.
func Select(cells []*Cell, spec string) ([]*Cell, error) {
	if spec == "" {
		return cells, nil
	}
	last := len(cells) - 1
	if last < 0 {
		return nil, fmt.Errorf("cells %q: there are no cells", spec)
	}
	chosen := make([]bool, len(cells))
	for _, part := range strings.Split(spec, ",") {
		lo, hi, err := selectRange(spec, strings.TrimSpace(part), last)
		if err != nil {
			return nil, err
		}
		for i := lo; i <= hi; i++ {
			chosen[i] = true
		}
	}
	var out []*Cell
	for i, c := range cells {
		if chosen[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// selectRange parses one part of Select's spec into an inclusive range of
// indices up to last; errors quote the whole spec.
func selectRange(spec, part string, last int) (lo, hi int, err error) {
	lo, hi = 0, last
	a, b, isRange := strings.Cut(part, "-")
	index := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("cells %q: %q is not a cell index (want a comma-separated list of A-B, A-, -B or A, indices 0-%d)", spec, s, last)
		}
		if n > last {
			return 0, fmt.Errorf("cells %q: index %d is past the last cell, %d", spec, n, last)
		}
		return n, nil
	}
	if a == "" && (!isRange || b == "") {
		return 0, 0, fmt.Errorf("cells %q: no index in %q (want a comma-separated list of A-B, A-, -B or A, indices 0-%d)", spec, part, last)
	}
	if a != "" {
		if lo, err = index(a); err != nil {
			return 0, 0, err
		}
	}
	if !isRange {
		hi = lo
	} else if b != "" {
		if hi, err = index(b); err != nil {
			return 0, 0, err
		}
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("cells %q: the range is reversed (%d > %d); write %d-%d", spec, lo, hi, hi, lo)
	}
	return lo, hi, nil
}

// BaseProfile names the folder of the cells of an experiment run without a
// profile (its base settings).
const BaseProfile = "base"

// ProfileDir returns the folder of the results directory that holds the
// cells of profile: the profile's name, BaseProfile for "".
func ProfileDir(profile string) string {
	if profile == "" {
		return BaseProfile
	}
	return profile
}

// cellBase is the path of c's files without their extension,
// <results>/<profile>/<id>: the profile is part of the place, not of the id
// (which enters the cache key and the random stream), so that the results
// of two profiles of one experiment never share a file. A cell that
// overrides made different (Cell.Namespace) lives under
// <results>/<profile>/<experiment>@<namespace>/, the rest of its id below.
func (r *Runner) cellBase(c *Cell) string {
	id := c.ID
	if c.Namespace != "" {
		if rest, ok := strings.CutPrefix(id, c.Experiment.ID+"/"); ok {
			id = c.Experiment.ID + "@" + c.Namespace + "/" + rest
		}
	}
	return filepath.Join(r.opts.Results, ProfileDir(c.Experiment.Profile), filepath.FromSlash(id))
}

// Paths returns the CSV and provenance files of c,
// <results>/<profile>/<id>.csv and .json (for a cell of an override's
// namespace, <results>/<profile>/<experiment>@<namespace>/<rest of id>).
func (r *Runner) Paths(c *Cell) (csv, prov string) {
	base := r.cellBase(c)
	return base + ".csv", base + ".json"
}

// CellStatus is the cache state of a cell.
type CellStatus struct {
	Cell   *Cell
	Status Status
	// Key is the cell's current cache key.
	Key string
	// Prov is the cell's provenance file, nil when there is none.
	Prov *Provenance
	// Err is why the cell's data cannot be read (a file of the wrong
	// size, named): Status is then Failed and Key empty, and a run fails
	// the cell without touching its files.
	Err error

	ck cellKey
	// unverified is why the results found cannot be trusted although
	// their key is current (see Unverified); Status is then Stale.
	unverified string
}

// Unverified says why a cell whose recorded key is current is stale all the
// same: its provenance file cannot be read or decoded (Prov is then nil),
// or its CSV is missing or changed since it was written (its sha256 is
// not the csv_sha256 its provenance records). It is empty otherwise. A run
// recomputes such a cell; StaleReason gives the same reason.
func (s CellStatus) Unverified() string { return s.unverified }

// Status returns the cache state of c: done, skipped or failed when its
// provenance matches its current key and its CSV matches the checksum
// the provenance records, stale when either does not, pending when there
// is none; failed with Err set when the cell's data cannot be read. A
// provenance file that cannot be read or decoded (truncated, a named pipe,
// a link) makes the cell stale with that reason (Unverified), not an
// error.
func (r *Runner) Status(c *Cell) (CellStatus, error) {
	csvPath, pp := r.Paths(c)
	p, perr := ReadProvenance(pp)
	var unverified string
	if perr != nil && !errors.Is(perr, fs.ErrNotExist) {
		unverified = "provenance unreadable: " + perr.Error()
		if !strings.Contains(unverified, pp) {
			unverified += " (" + pp + ")"
		}
		p = nil
	}
	var ck cellKey
	var err error
	if r.opts.RecordedData && p != nil {
		ck, err = r.keyWith(c, p.KeyDoc.Data, p.KeyDoc.Missing)
	} else {
		ck, err = r.key(c)
	}
	if err != nil {
		return CellStatus{Cell: c}, err
	}
	if ck.Err != nil {
		return CellStatus{Cell: c, Status: Failed, Prov: p, Err: ck.Err, ck: ck}, nil
	}
	st := CellStatus{Cell: c, Status: Pending, Key: ck.Key, ck: ck}
	if unverified != "" {
		st.Status, st.unverified = Stale, unverified
		return st, nil
	}
	if p == nil {
		return st, nil
	}
	st.Prov = p
	if p.Key != ck.Key {
		st.Status = Stale
		return st, nil
	}
	if why := checkCSV(csvPath, p.CSVSHA256); why != "" {
		st.Status, st.unverified = Stale, why
		return st, nil
	}
	st.Status = p.Status
	return st, nil
}

// checkCSV returns why the CSV at path is not the one whose sha256 its
// provenance records as want, or "" when it is (or when no checksum is
// recorded).
func checkCSV(path, want string) string {
	if want == "" {
		return ""
	}
	f, err := safefile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "CSV missing (" + path + ")"
	}
	if err != nil {
		return "CSV unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "CSV unreadable: " + err.Error()
	}
	if hex.EncodeToString(h.Sum(nil)) != want {
		return "CSV changed since it was written (its sha256 is not the csv_sha256 of " + strings.TrimSuffix(path, ".csv") + ".json)"
	}
	return ""
}

// execute loads the cell's problem and metrics and runs its method,
// recovering a panic as a failure.
func (r *Runner) execute(ctx context.Context, run *runState, c *Cell, st CellStatus, threads int, rec *recorder, prov *Provenance) (status Status, err error) {
	defer func() {
		if v := recover(); v != nil {
			status, err = Failed, fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	if st.ck.Missing != "" {
		return Skipped, errors.New(st.ck.Missing)
	}
	ds, _ := r.datasetOf(c)
	env := &Env{Cell: c, Threads: threads, runner: r, run: run, exp: c.Experiment, metrics: c.Experiment.Eval.Metrics}
	p, err := ds.Load(ctx, c.Split, env)
	if errors.Is(err, ErrDataMissing) {
		return Skipped, err
	}
	if err != nil {
		return Failed, fmt.Errorf("loading %s split %d: %w", c.Dataset, c.Split, err)
	}
	for _, name := range c.Experiment.Eval.Metrics {
		f, _ := r.reg.metric(name)
		m, err := f(ctx, p, env)
		if err != nil {
			return Failed, fmt.Errorf("metric %s: %w", name, err)
		}
		rec.metrics = append(rec.metrics, namedMetric{name, m})
	}
	out, err := c.Method.kind.run(ctx, Input[any]{
		Cell: c, Problem: p, Settings: c.Method.Settings, N: c.N, Threads: threads,
		Src: c.Source(), Recorder: rec, Env: env,
	})
	if out.Summary != nil {
		if b, jerr := json.Marshal(out.Summary); jerr == nil {
			prov.Summary = b
		} else {
			prov.Summary, _ = json.Marshal(map[string]string{"error": jerr.Error()})
		}
	}
	prov.Diagnostics = recordDiagnostics(out.Set.Diag)
	var fe *particle.FlaggedError
	if errors.As(err, &fe) && prov.Diagnostics == nil {
		// A method strict by its own settings returns its diagnostics
		// in the error.
		prov.Diagnostics = recordDiagnostics(fe.Diagnostics)
	}
	if err != nil {
		return Failed, err
	}
	if err := particle.Strict(c.Method.Name, out.Set, r.opts.Strict); err != nil {
		return Failed, err
	}
	rec.final(out.Set)
	return Done, nil
}

// refFile is the stored form of a reference sample.
type refFile struct {
	R, C    int
	X, W    []float64
	Summary []byte
}

// reference computes or loads the reference sample of c's dataset split;
// run is the call of Run it serves, nil outside one.
func (r *Runner) reference(ctx context.Context, run *runState, e *Experiment, c *Cell, threads int) (particle.Set, []byte, error) {
	ref := e.Reference
	id, key, ds, err := r.referenceKey(c)
	if err != nil {
		return particle.Set{}, nil, err
	}
	b, err := r.store.Artefact(ctx, key, func(ctx context.Context) ([]byte, error) {
		env := &Env{Cell: c, Threads: threads, runner: r, run: run, exp: e}
		p, err := ds.Load(ctx, c.Split, env)
		if err != nil {
			return nil, err
		}
		stop := particle.RecorderFunc(func(particle.Snapshot) error { return ctx.Err() })
		// A reference can take hours (an HMC run on a BNN): say when it
		// starts and ends, since no cell finishes meanwhile.
		log := env.Log()
		log.Info("reference started", "reference", id, "kind", ref.Kind, "draws", ref.Particles, "threads", threads)
		start := time.Now()
		out, err := ref.kind.run(ctx, Input[any]{
			Cell: c, Problem: p, Settings: ref.Settings, N: ref.Particles, Threads: threads,
			Src: seedSource(e.Seed, id), Recorder: stop, Env: env,
		})
		if err != nil {
			return nil, err
		}
		d := time.Since(start)
		log.Info("reference finished", "reference", id, "seconds", roundSec(d.Seconds()))
		run.addReference(id, d)
		f := refFile{W: out.Set.W}
		f.R, f.C = out.Set.X.Dims()
		f.X = mat.DenseCopyOf(out.Set.X).RawMatrix().Data
		if out.Summary != nil {
			if f.Summary, err = json.Marshal(out.Summary); err != nil {
				return nil, err
			}
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(f); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return particle.Set{}, nil, err
	}
	var f refFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return particle.Set{}, nil, fmt.Errorf("%s: %w", r.store.Path(key), err)
	}
	return particle.Set{X: mat.NewDense(f.R, f.C, f.X), W: f.W}, f.Summary, nil
}
