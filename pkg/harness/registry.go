package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"sync"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// ErrDataMissing marks a dataset whose files are not present. A cell whose
// dataset reports it (wrapped, with the reason) ends as skipped rather than
// failed, and is run as soon as the data appears.
var ErrDataMissing = errors.New("data missing")

// Problem is what a dataset loader hands to the methods and metrics of one
// cell: the posterior, and whatever the metrics need (test data, a model).
type Problem struct {
	// Target is the posterior the methods sample.
	Target target.Target
	// Model is what the wiring's metrics and methods need beside the
	// posterior (a logistic-regression model with its test split, say);
	// nil for none.
	Model Model
}

// Model is a problem's model as the wiring that loads it defines it. The
// wiring's metrics and methods reach their data through its own interface,
// which embeds this one; the harness asks only what every cell's
// provenance summary records of the dataset.
type Model interface {
	// Describe returns the entries of the dataset in the provenance
	// summary of every cell on the problem (its label, say), nil for none.
	Describe() map[string]any
}

// Metric evaluates one snapshot. It must not keep s.X or s.W after it
// returns.
type Metric func(s particle.Snapshot) float64

// Env is what a loader or metric factory may use besides its dataset and
// split: the shared artefacts of the run and the experiment's reference.
type Env struct {
	// Cell is the cell being prepared.
	Cell *Cell
	// Threads is the number of goroutines the cell may use.
	Threads int

	runner  *Runner
	run     *runState // the call of Runner.Run the cell belongs to, nil outside one
	exp     *Experiment
	metrics []string // see Metrics

	memoMu sync.Mutex
	memo   map[string]*memoEntry
}

type memoEntry struct {
	done chan struct{} // closed once v and err are set
	v    any
	err  error
}

// Metrics returns the names of the metrics evaluated on the snapshots of
// the method this Env serves: the experiment's eval.metrics in a cell, none
// in the run of a reference sample. The slice is the caller's.
func (e *Env) Metrics() []string { return slices.Clone(e.metrics) }

// Memo returns the value (or error) that compute returns, calling it only
// the first time key is asked for on e: the dataset loader, the metric
// factories and the method of one cell share e, so that what two of them
// need (the reference a metric measures against, which the method's
// summary reports) is computed once, whichever asks first. A second
// caller of a key being computed waits for it; compute may ask for other
// keys (not for its own).
func (e *Env) Memo(key string, compute func() (any, error)) (any, error) {
	e.memoMu.Lock()
	if m, ok := e.memo[key]; ok {
		e.memoMu.Unlock()
		<-m.done
		return m.v, m.err
	}
	if e.memo == nil {
		e.memo = map[string]*memoEntry{}
	}
	m := &memoEntry{done: make(chan struct{})}
	e.memo[key] = m
	e.memoMu.Unlock()
	// compute may ask for other keys (mmd2's kernel asks for the
	// reference): the lock is not held while it runs.
	m.v, m.err = compute()
	close(m.done)
	return m.v, m.err
}

// Artefact returns the bytes cached under key, computing them with compute
// at most once per results directory, even across processes. An Env
// without a runner (one a test builds) computes them every time.
func (e *Env) Artefact(ctx context.Context, key string, compute func(context.Context) ([]byte, error)) ([]byte, error) {
	if e.runner == nil {
		return compute(ctx)
	}
	return e.runner.store.Artefact(ctx, key, compute)
}

// DataDir returns the data folder of the run (Options.DataDir, "data"
// when empty), which the datasets read their files from.
func (e *Env) DataDir() string {
	if e.runner == nil {
		return DefaultDataDir
	}
	return e.runner.DataDir()
}

// DefaultDataDir is the data folder of a run whose Options.DataDir is
// empty, as `make data` creates it.
const DefaultDataDir = "data"

// Reference returns the experiment's reference sample (for example HMC
// draws) for the cell's dataset and split. It is computed once per
// (dataset, split, reference settings) and cached as an artefact. The
// summary is the reference method's diagnostics (R̂, ESS…) as JSON. Each
// call decodes a new set, which the caller owns.
func (e *Env) Reference(ctx context.Context) (set particle.Set, summary []byte, err error) {
	return e.runner.reference(ctx, e.run, e.exp, e.Cell, e.Threads)
}

// Dataset describes one dataset the experiments may name.
type Dataset struct {
	// Load builds the problem of one split. It is called once per cell.
	Load func(ctx context.Context, split int, env *Env) (*Problem, error)
	// Checksums returns the sha256 of every file a split depends on, keyed
	// by file name; they enter the cells' cache keys. An error wrapping
	// ErrDataMissing makes the cells skipped; other errors fail them. env
	// gives the cell and the data folder (its Threads is 0: nothing is
	// computed).
	Checksums func(split int, env *Env) (map[string]string, error)
}

// MetricFactory prepares a metric for one cell, once, before the method runs.
type MetricFactory func(ctx context.Context, p *Problem, env *Env) (Metric, error)

// Input is what a method runner receives for one cell.
type Input[S any] struct {
	// Cell is the cell being run.
	Cell *Cell
	// Problem is the dataset's problem of the cell's split.
	Problem *Problem
	// Settings are the resolved settings of the method (file, then profile).
	Settings S
	// N is the particle count of the cell, 0 when the method gives none.
	N int
	// Threads is the cell's thread budget, for the methods' worker settings.
	Threads int
	// Src is the cell's random source, derived from its id.
	Src rand.Source
	// Recorder receives the method's snapshots.
	Recorder particle.Recorder
	// Env gives access to artefacts and the reference.
	Env *Env
}

// Output is what a method runner returns.
type Output struct {
	// Set is the final weighted particle set.
	Set particle.Set
	// Summary is the method's own diagnostics, written into the provenance
	// file as JSON (nil for none).
	Summary any
}

// Validator is implemented by settings types that check their own ranges.
// An error of type *FieldError is reported at the line of its key.
type Validator interface {
	Validate() error
}

// FieldError names the settings key at fault, so that the decoder can give
// its line.
type FieldError struct {
	// Key is the TOML key relative to the settings table ("step" or
	// "kernel.bandwidth").
	Key string
	// Err says what is wrong with it.
	Err error
}

// Error is "key: problem".
func (e *FieldError) Error() string { return e.Key + ": " + e.Err.Error() }

// Unwrap returns Err, so that errors.Is sees through the key.
func (e *FieldError) Unwrap() error { return e.Err }

// methodKind is a registered method, with its settings type erased.
type methodKind struct {
	name     string
	version  string
	settings reflect.Type
	run      func(ctx context.Context, in Input[any]) (Output, error)
	// memory is the kind's memory estimate (SetMemoryEstimate), nil for
	// none.
	memory func(settings any, n int, e *Experiment) Memory
	// steps is the kind's step count (SetStepCount), nil for none.
	steps func(settings any, n int, e *Experiment) int
	// renamed maps a settings key's old name to its new one (RenamedKey).
	renamed map[string]string
}

// Registry holds what experiment files may name: method kinds, datasets and
// metrics. There is no global one: whoever builds a runner builds its
// registry (NewRegistry) and fills it explicitly, the repro command and
// pkg/repro with the wiring's Register.
type Registry struct {
	mu       sync.RWMutex
	methods  map[string]*methodKind
	datasets map[string]*Dataset
	metrics  map[string]MetricFactory
	mversion map[string]string
	meanings MetricTable   // see DescribeMetric
	kinds    KindTable     // see DescribeKind
	checks   []RunCheck    // see DescribeCheck
	fileData *fileDataKind // see RegisterFileDataset
	families families      // see RegisterDatasetFamily
	ext      map[any]any   // see Extension
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		methods:  map[string]*methodKind{},
		datasets: map[string]*Dataset{},
		metrics:  map[string]MetricFactory{},
		mversion: map[string]string{},
	}
}

// RegisterMethod adds the method kind name to r. S is its settings struct:
// the `settings` table of a method in an experiment file is decoded strictly
// into a zero S (so S's zero value must be the method's defaults), and S may
// implement Validator. version enters the cache key of the method's cells:
// bump it when the method's results change meaning, and only its cells are
// recomputed. A duplicate name panics.
func RegisterMethod[S any](r *Registry, name, version string, run func(ctx context.Context, in Input[S]) (Output, error)) {
	var zero S
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Struct {
		panic("harness: settings of method " + name + " must be a struct")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.methods[name]; dup {
		panic("harness: duplicate method " + name)
	}
	r.methods[name] = &methodKind{
		name:     name,
		version:  version,
		settings: t,
		run: func(ctx context.Context, in Input[any]) (Output, error) {
			return run(ctx, Input[S]{
				Cell: in.Cell, Problem: in.Problem, Settings: in.Settings.(S),
				N: in.N, Threads: in.Threads, Src: in.Src, Recorder: in.Recorder, Env: in.Env,
			})
		},
	}
}

// SettingsVersioner is implemented by a method's settings when one
// mechanism of the kind, used by some of its cells only, has a version of
// its own: SettingsVersion returns it ("" when these settings do not use
// it), and a non-empty one is appended to the kind's version in the cache
// key ("5+shared-start-1"). Bumping it recomputes the cells that use the
// mechanism and no others.
type SettingsVersioner interface {
	SettingsVersion() string
}

// kindVersion is the version of kind k that enters the key of a cell with
// settings s: k's version, and SettingsVersioner's suffix when s has one.
func kindVersion(k *methodKind, s any) string {
	if v, ok := s.(SettingsVersioner); ok {
		if sv := v.SettingsVersion(); sv != "" {
			return k.version + "+" + sv
		}
	}
	return k.version
}

// RegisterDataset adds the dataset name to r. A duplicate name panics.
func (r *Registry) RegisterDataset(name string, d Dataset) {
	if d.Load == nil {
		panic("harness: dataset " + name + " has no loader")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.datasets[name]; dup {
		panic("harness: duplicate dataset " + name)
	}
	r.datasets[name] = &d
}

// RegisterMetric adds the metric name to r, unversioned. A duplicate name
// panics. DescribeMetric says what its values mean, for the report.
func (r *Registry) RegisterMetric(name string, f MetricFactory) {
	r.RegisterVersionedMetric(name, "", f)
}

// RegisterVersionedMetric adds the metric name to r with a version. A
// non-empty version enters the cache key of exactly the cells that evaluate
// the metric (keyed by name under "metric_versions"): bump it when the
// metric's values change meaning, and only those cells are recomputed. An
// empty version leaves the keys as RegisterMetric does. A duplicate name
// panics.
func (r *Registry) RegisterVersionedMetric(name, version string, f MetricFactory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.metrics[name]; dup {
		panic("harness: duplicate metric " + name)
	}
	r.metrics[name] = f
	if version != "" {
		r.mversion[name] = version
	}
}

// metricVersions returns the versions of the named metrics that have one,
// nil when none has.
func (r *Registry) metricVersions(names []string) map[string]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out map[string]string
	for _, n := range names {
		if v, ok := r.mversion[n]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[n] = v
		}
	}
	return out
}

func (r *Registry) method(name string) (*methodKind, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.methods[name]
	return m, ok
}

func (r *Registry) dataset(name string) (*Dataset, bool) {
	r.mu.RLock()
	d, ok := r.datasets[name]
	r.mu.RUnlock()
	if !ok {
		return r.families.lookup(name)
	}
	return d, ok
}

func (r *Registry) metric(name string) (MetricFactory, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.metrics[name]
	return m, ok
}

func (r *Registry) names(kind string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var s []string
	switch kind {
	case "method":
		for n := range r.methods {
			s = append(s, n)
		}
	case "dataset":
		for n := range r.datasets {
			s = append(s, n)
		}
		s = append(s, r.families.patterns()...)
	case "metric":
		for n := range r.metrics {
			s = append(s, n)
		}
	}
	sort.Strings(s)
	return s
}

func unknownName(kind, name string, r *Registry) error {
	return fmt.Errorf("unknown %s %q (registered: %v)", kind, name, r.names(kind))
}
