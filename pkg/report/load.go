package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// Row is one line of a cell's CSV: one metric at one evaluated snapshot.
type Row struct {
	Step      int
	Seconds   float64
	GradEvals int64
	Metric    string
	Value     float64
}

// Cell is one cell of the results tree: its provenance, its decoded summary
// and, when it finished, its CSV rows.
type Cell struct {
	// Prov is the cell's provenance file.
	Prov *harness.Provenance
	// Summary is Prov.Summary decoded (nil when absent or not an object).
	Summary map[string]any
	// Rows are the CSV rows in file order (nil unless the cell is done).
	Rows []Row
	// Path is the provenance file, for messages.
	Path string
	// Traits are the traits of the cell's method kind (Prov.Kind) as the
	// registry that planned the results describes them
	// (harness.Registry.DescribeKind; LoadCurrent and
	// Results.DescribeKinds set them): the report orders, draws and flags
	// the cell by them, never by its kind's name. The zero value is a kind
	// the report knows nothing of.
	Traits harness.KindTraits
}

// Series returns what the cell's recorded settings say of its series in a
// figure (its kind's KindTraits.Series), nothing when its kind says
// nothing.
func (c *Cell) Series() harness.SeriesTraits {
	if c.Traits.Series == nil || c.Prov == nil {
		return harness.SeriesTraits{}
	}
	return c.Traits.Series(c.Prov.Settings)
}

// Results is a results tree as written by the harness.
type Results struct {
	// Dir is the results directory.
	Dir string
	// Cells are sorted by cell id.
	Cells []*Cell
	// Ignored are the result files LoadCurrent left out, sorted by cell
	// id: the report lists them among its deviations.
	Ignored []Ignored
	// Apart are the result files of cells that overrides (--set) kept
	// apart from the experiment files' own (under
	// <profile>/<experiment>@<namespace>/) and that the files, as they
	// are planned here, do not read: the report lists their folders,
	// and the same --set reads them. Sorted by cell id.
	Apart []Ignored
	// NotRun are the ids of the cells the experiment files plan that have
	// no result file yet, sorted: the report lists them among its
	// deviations, so that a figure with a missing method or split says why.
	NotRun []string
	// Deviations are the experiment files' own statements of how the
	// profile they were run under departs from the paper (key deviation),
	// by experiment id and then profile.
	Deviations map[string]map[string]string
	// Figures are the figures the experiment files declare, by experiment
	// id (Declare); an experiment absent from it gets DefaultFigures.
	Figures map[string][]harness.Figure
	// Declared is what the experiment files say about how their results
	// are read, by experiment id (Declare): their role, metrics and the
	// arms they declare. An experiment absent from it is a reported one
	// that declares no arm.
	Declared map[string]Declaration
	// Metrics are what the metrics mean (harness.Registry.Meanings of the
	// registry that plans the results; LoadCurrent sets it): the report
	// labels, ranks and draws a metric by its meaning, never by its name.
	// A metric it lacks is labelled by its name marked Unregistered and
	// ranked by no rule.
	Metrics harness.MetricTable
	// Kinds are the traits of the method kinds (harness.Registry.Kinds of
	// the registry that plans the results; LoadCurrent and DescribeKinds
	// set it, and each cell's Traits from it).
	Kinds harness.KindTable
	// Checks are the run-time checks that only raise a flag, whose
	// evaluation the report counts (harness.Registry.Checks of the
	// registry that plans the results; LoadCurrent sets it).
	Checks []harness.RunCheck
}

// DescribeKinds sets the traits of the method kinds to t, and each cell's
// Traits to those of its kind: Load leaves them unset.
func (r *Results) DescribeKinds(t harness.KindTable) {
	r.Kinds = t
	for _, c := range r.Cells {
		if c.Prov != nil {
			c.Traits = t.Traits(c.Prov.Kind)
		}
	}
}

// Declaration is what an experiment file says about how its results are
// read, besides its figures.
type Declaration struct {
	// Description is the experiment's description.
	Description string
	// Role is the experiment's role: harness.RoleTuning for a tuning
	// experiment, whose cells enter no claim and are summarised in the
	// report's Tuning section; "" or harness.RoleReport otherwise.
	Role string
	// Metrics are the experiment's metrics in file order; the first
	// chooses a tuning experiment's configuration.
	Metrics []string
	// Arms[protocol] are the methods that claim protocol (the methods'
	// key protocols: harness.ProtocolPaper, harness.ProtocolFair), in file
	// order.
	Arms map[string][]string
	// Report names the report's plug-ins that present the experiment
	// (the file's report key; Plugin).
	Report []string
	// Choose are a tuning experiment's declared choice rules (TuningGrids).
	Choose []harness.Choose
	// Methods are the experiment's method names in file order.
	Methods []string
}

// Declare records what experiment e declares: its figures, when its file
// has a figures key (Plot draws them, and no default, for e's results),
// and its Declaration.
func (r *Results) Declare(e *harness.Experiment) {
	if r.Declared == nil {
		r.Declared = map[string]Declaration{}
	}
	d := Declaration{Description: e.Description, Role: e.Role, Metrics: append([]string(nil), e.Eval.Metrics...), Report: e.Report, Choose: e.Choose}
	for _, m := range e.Methods {
		d.Methods = append(d.Methods, m.Name)
		for _, p := range m.Protocols {
			if d.Arms == nil {
				d.Arms = map[string][]string{}
			}
			d.Arms[p] = append(d.Arms[p], m.Name)
		}
	}
	r.Declared[e.ID] = d
	if !e.FiguresDeclared {
		return
	}
	if r.Figures == nil {
		r.Figures = map[string][]harness.Figure{}
	}
	r.Figures[e.ID] = e.Figures
}

// Tuning reports whether experiment id is declared a tuning experiment.
func (r *Results) Tuning(id string) bool { return r.Declared[id].Role == harness.RoleTuning }

// Reported returns the cells of experiment id for a claim: none for a
// tuning experiment, whose cells never enter a claim.
func (r *Results) Reported(id string) []*Cell {
	if r.Tuning(id) {
		return nil
	}
	return r.Experiment(id)
}

// Ignored is a result file that is not a current result of the experiment
// files, so that no figure or verdict rests on it.
type Ignored struct {
	// Cell is the cell id the provenance file gives.
	Cell string
	// Path is the provenance file.
	Path string
	// Reason is Stale or Orphaned (in Results.Apart: the folder of the
	// namespace, <profile>/<experiment>@<namespace>).
	Reason string
	// Why says, for a stale result whose cache key is current, why it
	// cannot be used: its CSV changed since it was written, or its
	// provenance cannot be read (then Cell is taken from the path).
	Why string
}

// Reasons for ignoring a result file.
const (
	// Stale: an experiment file plans the cell, but its cache key now is
	// not the one the result was made under (settings, data, seed or
	// code versions changed since).
	Stale = "stale"
	// Orphaned: no experiment file plans the cell any more (a method or
	// dataset renamed or removed, a profile that no longer exists), or
	// the file is not where the cell's results are written.
	Orphaned = "orphaned"
)

// Load reads every cell of the results tree under dir, whatever the
// experiment files say now; LoadCurrent keeps the current ones only. The
// shared artefacts (dir/.artefacts) are not cells and are skipped. A
// provenance file that cannot be decoded, or a CSV of a finished cell that
// is missing or malformed, is an error naming the file: a figure silently
// made from part of the results would be worse than none. The Results
// say nothing of what the metrics mean or of the method kinds: set their
// Metrics (a registry's Meanings), DescribeKinds (its Kinds) and Checks
// (its Checks) before drawing or writing them.
func Load(dir string) (*Results, error) {
	cells, bad, err := walk(dir)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, bad[0].err
	}
	for _, c := range cells {
		if err := c.readRows(); err != nil {
			return nil, err
		}
	}
	return &Results{Dir: dir, Cells: cells}, nil
}

// Planned names the experiment files whose cells are current.
type Planned struct {
	// Registry resolves the files' method kinds, datasets and metrics
	// and the cells' data checksums, as when they were run, and says
	// what the metrics mean (Results.Metrics) and the traits of the method
	// kinds (Results.Kinds).
	Registry *harness.Registry
	// Files are the experiment files.
	Files []string
	// Profile resolves every file. Empty plans each experiment under
	// the profile its results record, for each profile they record.
	Profile string
	// Sets are the overrides KEY=VALUE applied after the profile, as the
	// run that made the results applied them (harness.LoadFileSet).
	Sets []string
}

// LoadCurrent reads the cells of the results tree under dir that the
// experiment files of p plan now and whose results are current: a result
// is kept when its cell id is planned and the harness finds its cell done,
// failed or skipped under the cell's current cache key (Runner.Status, as
// repro list and repro run decide), under the revision-keyed cache key
// when the result was made with one, and whose CSV is the one its
// provenance's checksum records. Every other result file is Ignored, stale
// or orphaned, and its CSV is not read; a provenance file that cannot be
// read or decoded is a stale result saying so (Ignored.Why), not an error.
func LoadCurrent(dir string, p Planned) (*Results, error) {
	cells, bad, err := walk(dir)
	if err != nil {
		return nil, err
	}
	// The profiles to plan each experiment under.
	type expProfile struct{ exp, profile string }
	recorded := map[expProfile]bool{}
	profiles := map[string]bool{}
	for _, c := range cells {
		recorded[expProfile{c.Prov.Experiment, c.Prov.Profile}] = true
		profiles[c.Prov.Profile] = true
	}
	plan := []string{p.Profile}
	if p.Profile == "" {
		plan = nil
		for _, pr := range SortedKeys(profiles) {
			if pr == "" || slices.Contains(harness.Profiles, pr) {
				plan = append(plan, pr)
			}
		}
	}
	type cellProfile struct{ id, profile string }
	planned := map[cellProfile]*harness.Cell{}
	deviations := map[string]map[string]string{}
	var declared []*harness.Experiment
	for _, f := range p.Files {
		for _, pr := range plan {
			e, err := harness.LoadFileSet(p.Registry, f, pr, p.Sets)
			if p.Profile == "" && errors.Is(err, harness.ErrNoProfile) {
				// Another file's results recorded the profile: this
				// file plans no cell under it.
				continue
			}
			if err != nil {
				return nil, err
			}
			if p.Profile == "" && !recorded[expProfile{e.ID, pr}] {
				continue
			}
			declared = append(declared, e)
			if e.Deviation != "" {
				if deviations[e.ID] == nil {
					deviations[e.ID] = map[string]string{}
				}
				deviations[e.ID][pr] = e.Deviation
			}
			for _, hc := range harness.Cells(e) {
				planned[cellProfile{hc.ID, pr}] = hc
			}
		}
	}
	runner := harness.NewRunner(p.Registry, harness.Options{Results: dir, RecordedData: true})
	var revRunner *harness.Runner
	res := &Results{Dir: dir, Deviations: deviations, Metrics: p.Registry.Meanings()}
	for _, e := range declared {
		res.Declare(e)
	}
	for _, c := range cells {
		pr := p.Profile
		if pr == "" {
			pr = c.Prov.Profile
		}
		hc := planned[cellProfile{c.Prov.Cell, pr}]
		r := runner
		if c.Prov.KeyDoc.ExtraRevision != "" {
			if revRunner == nil {
				revRunner = harness.NewRunner(p.Registry, harness.Options{Results: dir, KeyRevision: true, RecordedData: true})
			}
			r = revRunner
		}
		if hc == nil || !samePath(r, hc, c.Path) {
			if ns := namespaceFolder(dir, c.Path); ns != "" && len(c.Prov.Overrides) > 0 {
				res.Apart = append(res.Apart, Ignored{Cell: c.Prov.Cell, Path: c.Path, Reason: ns})
				continue
			}
			res.Ignored = append(res.Ignored, Ignored{Cell: c.Prov.Cell, Path: c.Path, Reason: Orphaned})
			continue
		}
		st, err := r.Status(hc)
		if err != nil {
			return nil, err
		}
		if st.Status == harness.Stale || st.Status == harness.Pending {
			res.Ignored = append(res.Ignored, Ignored{Cell: c.Prov.Cell, Path: c.Path, Reason: Stale, Why: st.Unverified()})
			continue
		}
		if err := c.readRows(); err != nil {
			return nil, err
		}
		res.Cells = append(res.Cells, c)
	}
	for _, b := range bad {
		res.Ignored = append(res.Ignored, Ignored{Cell: b.cell, Path: b.path, Reason: Stale, Why: "provenance unreadable: " + b.err.Error()})
	}
	sort.SliceStable(res.Ignored, func(i, j int) bool { return res.Ignored[i].Cell < res.Ignored[j].Cell })
	seen := map[string]bool{}
	for _, c := range cells {
		seen[c.Prov.Cell] = true
	}
	for _, b := range bad {
		seen[b.cell] = true
	}
	for k := range planned {
		if !seen[k.id] {
			res.NotRun = append(res.NotRun, k.id)
		}
	}
	slices.Sort(res.NotRun)
	res.NotRun = slices.Compact(res.NotRun)
	res.DescribeKinds(p.Registry.Kinds())
	res.Checks = p.Registry.Checks()
	return res, nil
}

// samePath reports whether path is the provenance file of hc.
func samePath(r *harness.Runner, hc *harness.Cell, path string) bool {
	_, pp := r.Paths(hc)
	return filepath.Clean(pp) == filepath.Clean(path)
}

// namespaceFolder returns the folder <profile>/<experiment>@<namespace>
// (relative to dir, slash-separated) that path lies in, "" when it lies in
// none: the folder of the cells overrides kept apart.
func namespaceFolder(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) < 3 || !strings.Contains(parts[1], "@") {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

// badProvenance is a provenance file walk could not read or decode: the
// cell id its path gives (<dir>/<profile>/<id>.json) and the error.
type badProvenance struct {
	cell, path string
	err        error
}

// walk reads the provenance file of every cell under dir, sorted by cell
// id, without their rows, and lists apart those it cannot read or decode.
// It enters no symbolic link, and reads no file that is not regular.
func walk(dir string) ([]*Cell, []badProvenance, error) {
	var cells []*Cell
	var bad []badProvenance
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".json" {
			return nil
		}
		p, err := harness.ReadProvenance(path)
		if err != nil {
			id := strings.TrimSuffix(path, ".json")
			if rel, rerr := filepath.Rel(dir, id); rerr == nil {
				_, id, _ = strings.Cut(filepath.ToSlash(rel), "/")
			}
			if !strings.Contains(err.Error(), path) {
				err = fmt.Errorf("%s: %w", path, err)
			}
			bad = append(bad, badProvenance{id, path, err})
			return nil
		}
		c := &Cell{Prov: p, Path: path}
		if len(p.Summary) > 0 {
			var m map[string]any
			if json.Unmarshal(p.Summary, &m) == nil {
				c.Summary = m
			}
		}
		cells = append(cells, c)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.SliceStable(cells, func(i, j int) bool { return cells[i].Prov.Cell < cells[j].Prov.Cell })
	return cells, bad, nil
}

// readRows reads the CSV of a finished cell.
func (c *Cell) readRows() error {
	if c.Prov.Status != harness.Done {
		return nil
	}
	csvPath := strings.TrimSuffix(c.Path, ".json") + ".csv"
	f, err := safefile.Open(csvPath)
	if err != nil {
		return err
	}
	defer f.Close()
	c.Rows, err = readRows(f, csvPath)
	return err
}

// readRows parses a cell's CSV, checking its header.
func readRows(r io.Reader, name string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	if got := strings.Join(head, ","); got != harness.CSVHeader {
		return nil, fmt.Errorf("%s: header %q, want %q", name, got, harness.CSVHeader)
	}
	var rows []Row
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var rw Row
		var e1, e2, e3, e4 error
		rw.Step, e1 = strconv.Atoi(rec[6])
		rw.Seconds, e2 = strconv.ParseFloat(rec[7], 64)
		rw.GradEvals, e3 = strconv.ParseInt(rec[8], 10, 64)
		rw.Metric = rec[9]
		rw.Value, e4 = strconv.ParseFloat(rec[10], 64)
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows = append(rows, rw)
	}
}

// Experiment returns the cells of one experiment, in id order.
func (r *Results) Experiment(id string) []*Cell {
	var out []*Cell
	for _, c := range r.Cells {
		if c.Prov.Experiment == id {
			out = append(out, c)
		}
	}
	return out
}

// Done returns the finished cells among cells.
func Done(cells []*Cell) []*Cell {
	var out []*Cell
	for _, c := range cells {
		if c.Prov.Status == harness.Done {
			out = append(out, c)
		}
	}
	return out
}

// Metric returns the cell's (step, seconds, value) points of one metric in
// file order.
func (c *Cell) Metric(name string) []Row {
	var out []Row
	for _, r := range c.Rows {
		if r.Metric == name {
			out = append(out, r)
		}
	}
	return out
}

// Final returns the last recorded value of a metric, and false when the cell
// has none.
func (c *Cell) Final(metric string) (Row, bool) {
	for i := len(c.Rows) - 1; i >= 0; i-- {
		if c.Rows[i].Metric == metric {
			return c.Rows[i], true
		}
	}
	return Row{}, false
}

// HasMetric reports whether any cell records metric.
func HasMetric(cells []*Cell, metric string) bool {
	for _, c := range cells {
		for _, r := range c.Rows {
			if r.Metric == metric {
				return true
			}
		}
	}
	return false
}

// DatasetLabel is the label the wiring gives a dataset in its cells'
// summaries ("Covertype (20,000-row prefix)"), or the dataset's name.
func DatasetLabel(cells []*Cell, dataset string) string {
	for _, c := range cells {
		if c.Prov.Dataset != dataset {
			continue
		}
		if s, ok := c.Summary["dataset_label"].(string); ok && s != "" {
			return s
		}
	}
	return dataset
}

// Datasets lists the distinct datasets of cells, sorted by name.
func Datasets(cells []*Cell) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c.Prov.Dataset] {
			seen[c.Prov.Dataset] = true
			out = append(out, c.Prov.Dataset)
		}
	}
	sort.Strings(out)
	return out
}
