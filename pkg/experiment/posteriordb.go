package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
)

// PosteriorDBPrefix starts the name of every posteriordb dataset:
// "posteriordb.eight_schools-eight_schools_noncentered" is that posterior
// of the posteriordb folder (PosteriorDB). A dot, not a slash: the name
// enters cell ids and figure file names.
const PosteriorDBPrefix = "posteriordb."

// PosteriorDBEnv is the environment variable naming the posteriordb folder
// when SetPosteriorDB (the commands' --posteriordb flag) has not.
const PosteriorDBEnv = "MMDFW_POSTERIORDB"

// SharedPosteriorDB is the default posteriordb folder, relative to the
// working directory (the repository's root): the staged copy beside it.
const SharedPosteriorDB = "../shared/posteriordb"

// Metrics against posteriordb's reference draws (pkg/posteriordb's
// Comparison), computed in the constrained space of the reference: every
// particle is mapped through the model's Constrain to the reference's
// parameter names first.
const (
	// PDBMMD2 is the MMD² to the reference draws on draws standardised by
	// the reference's means and sds, RBF kernel with the median heuristic,
	// particles weighted.
	PDBMMD2 = "pdb_mmd2"
	// PDBMeanErr is the largest |Δ mean| / reference sd over the
	// parameters.
	PDBMeanErr = "pdb_mean_err"
	// PDBMeanZ is the largest |Δ mean| / the reference's MCSE over the
	// parameters (the particles count as exact).
	PDBMeanZ = "pdb_mean_z"
	// PDBSDRatioMin and PDBSDRatioMax are the smallest and largest ratio of
	// the particles' weighted sd to the reference's.
	PDBSDRatioMin = "pdb_sd_ratio_min"
	PDBSDRatioMax = "pdb_sd_ratio_max"
)

var pdbRoot struct {
	sync.Mutex
	dir string
}

// SetPosteriorDB sets the posteriordb folder the posteriordb datasets read
// (a staged folder or a clone of posteriordb's repository; the commands'
// --posteriordb flag); "" restores the default.
func SetPosteriorDB(dir string) {
	pdbRoot.Lock()
	defer pdbRoot.Unlock()
	pdbRoot.dir = dir
}

// PosteriorDBSet returns the folder SetPosteriorDB set, "" when it set
// none (PosteriorDB then falls back to $MMDFW_POSTERIORDB and the shared
// copy).
func PosteriorDBSet() string {
	pdbRoot.Lock()
	defer pdbRoot.Unlock()
	return pdbRoot.dir
}

// PosteriorDB returns the posteriordb folder the posteriordb datasets
// read: SetPosteriorDB's, else $MMDFW_POSTERIORDB, else
// ../shared/posteriordb when it is a folder, else "" (none).
func PosteriorDB() string {
	pdbRoot.Lock()
	dir := pdbRoot.dir
	pdbRoot.Unlock()
	if dir != "" {
		return dir
	}
	if d := os.Getenv(PosteriorDBEnv); d != "" {
		return d
	}
	if fi, err := os.Stat(SharedPosteriorDB); err == nil && fi.IsDir() {
		return SharedPosteriorDB
	}
	return ""
}

// pdbMissing is harness.ErrDataMissing with the reason, which enters the
// keys of the skipped cells: it never names the folder's path.
func pdbMissing(format string, args ...any) error {
	return fmt.Errorf("%w: %s", harness.ErrDataMissing, fmt.Sprintf(format, args...))
}

// openPDB opens the posteriordb folder; an absent one is ErrDataMissing.
func openPDB() (*posteriordb.DB, error) {
	root := PosteriorDB()
	if root == "" {
		return nil, pdbMissing("no posteriordb folder (--posteriordb, $%s or %s)", PosteriorDBEnv, SharedPosteriorDB)
	}
	db, err := posteriordb.Open(root)
	if posteriordb.IsNotExist(err) {
		return nil, pdbMissing("the posteriordb folder is absent (--posteriordb or $%s)", PosteriorDBEnv)
	}
	return db, err
}

// fileStamp identifies the state of a file without reading it.
type fileStamp struct {
	path string
	size int64
	mod  time.Time
}

type filesEntry struct {
	files  []posteriordb.File
	stamps []fileStamp
}

// pdbFilesCache keeps the files of the posteriors of unverified folders
// (whose sha256 Files computes by reading them) while their sizes and
// modification times stay the same, so that listing cells stays cheap.
var pdbFilesCache sync.Map // root + "\x00" + name → *filesEntry

// pdbFiles returns the posterior's files with their sha256.
func pdbFiles(db *posteriordb.DB, name string) ([]posteriordb.File, error) {
	if db.Checked(name) {
		return db.Files(name) // pinned: nothing is read but posterior.json
	}
	key := db.Root + "\x00" + name
	if v, ok := pdbFilesCache.Load(key); ok {
		e := v.(*filesEntry)
		same := true
		for _, s := range e.stamps {
			fi, err := os.Stat(s.path)
			if err != nil || fi.Size() != s.size || !fi.ModTime().Equal(s.mod) {
				same = false
				break
			}
		}
		if same {
			return e.files, nil
		}
	}
	var stamps []fileStamp
	files, err := db.Files(name)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		fi, err := os.Stat(f.Path)
		if err != nil {
			return nil, err
		}
		stamps = append(stamps, fileStamp{f.Path, fi.Size(), fi.ModTime()})
	}
	pdbFilesCache.Store(key, &filesEntry{files: files, stamps: stamps})
	return files, nil
}

// pdbChecksums returns the sha256 of the posterior's files keyed
// "posteriordb/<posterior>/<file>" (the same keys in either layout, so the
// same bytes give the same cache keys), or ErrDataMissing with the reason:
// no folder, no such posterior, a missing file, or a model that pkg/pdbmodel
// does not hold and that is not registered on the registry (models:
// "model not available"). A registered model's version enters the sums
// under "posteriordb/<posterior>/model".
func pdbChecksums(models *pdbModels, name string) (map[string]string, error) {
	db, err := openPDB()
	if err != nil {
		return nil, err
	}
	if !db.Has(name) {
		return nil, pdbMissing("the posteriordb folder has no posterior %s", name)
	}
	files, err := pdbFiles(db, name)
	if posteriordb.IsNotExist(err) {
		return nil, pdbMissing("posterior %s lacks a file (%v)", name, errors.Unwrap(err))
	}
	if err != nil {
		return nil, err
	}
	info, err := db.Info(name)
	if err != nil {
		return nil, err
	}
	if !models.has(info.ModelName) {
		return nil, pdbMissing("model not available: pkg/pdbmodel has no model %s (posterior %s)", info.ModelName, name)
	}
	sums := map[string]string{}
	for _, f := range files {
		sums["posteriordb/"+name+"/"+f.Role] = f.SHA256
	}
	if _, v, ok := models.own(info.ModelName); ok {
		sums["posteriordb/"+name+"/model"] = info.ModelName + " " + v
	}
	return sums, nil
}

// pdbLoaded caches loaded posteriors by name and the sha256 of their
// files: every cell of a posterior shares one (read-only) copy.
var pdbLoaded sync.Map // key → *pdbLoadEntry

type pdbLoadEntry struct {
	once sync.Once
	p    *posteriordb.Posterior
	err  error
}

// filesKey of posteriordb files: a short hash of their roles and sha256.
func pdbFilesKey(name string, files []posteriordb.File) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", name)
	for _, f := range files {
		fmt.Fprintf(h, "%s %s\n", f.Role, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// loadPDB loads the posterior name, once per process and set of files.
func loadPDB(name string) (*posteriordb.Posterior, string, error) {
	db, err := openPDB()
	if err != nil {
		return nil, "", err
	}
	files, err := pdbFiles(db, name)
	if posteriordb.IsNotExist(err) {
		return nil, "", pdbMissing("posterior %s lacks a file (%v)", name, errors.Unwrap(err))
	}
	if err != nil {
		return nil, "", err
	}
	key := pdbFilesKey(name, files)
	v, _ := pdbLoaded.LoadOrStore(key, &pdbLoadEntry{})
	e := v.(*pdbLoadEntry)
	e.once.Do(func() { e.p, e.err = db.Load(name) })
	return e.p, key, e.err
}

// pdbDataset is the dataset posteriordb.<name>: the posterior's target in
// the unconstrained space from pkg/pdbmodel or the registered models, and
// its reference draws for the pdb_ metrics. Its splits are seeds: every
// split is the same posterior.
func pdbDataset(models *pdbModels, name string) (harness.Dataset, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return harness.Dataset{}, false
	}
	return harness.Dataset{
		Checksums: func(split int, env *harness.Env) (map[string]string, error) { return pdbChecksums(models, name) },
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			p, key, err := loadPDB(name)
			if err != nil {
				return nil, err
			}
			if !models.has(p.ModelName) {
				return nil, pdbMissing("model not available: pkg/pdbmodel has no model %s (posterior %s)", p.ModelName, name)
			}
			m, err := models.newModel(p.ModelName, p.Data)
			if err != nil {
				return nil, fmt.Errorf("posterior %s: %w", name, err)
			}
			d, err := newPDBData(name, key, p, m)
			if err != nil {
				return nil, err
			}
			return &harness.Problem{Target: m.Target, Model: d}, nil
		},
	}, true
}

// PDBData is a posteriordb posterior: its model bound to its data, and the
// reference draws its metrics compare the particles with, in the
// constrained space of the reference's parameter names.
type PDBData struct {
	Info
	// Posterior is the loaded posterior (shared by every cell of the
	// process: read only).
	Posterior *posteriordb.Posterior
	// Model is the posterior's model, whose Constrain maps a particle to
	// the reference's names.
	Model *pdbmodel.Model

	col []int // column of the reference of each of Model.Names

	cmpOnce sync.Once
	cmpRes  *posteriordb.Comparison // comparison's result
	cmpErr  error

	mu   sync.Mutex
	cmp  *posteriordb.Comparison // set once a pdb metric is prepared
	last pdbSnap
}

// newPDBData binds the model to the posterior's reference: the model must
// write exactly the reference's names (in any order).
func newPDBData(name, key string, p *posteriordb.Posterior, m *pdbmodel.Model) (*PDBData, error) {
	if m.Target == nil || m.Target.Dim() < 1 || m.Constrain == nil {
		return nil, fmt.Errorf("posterior %s: model %s has no target or no constrain map", name, m.Name)
	}
	d := &PDBData{
		Info:      Info{Name: PosteriorDBPrefix + name, Label: name + " (posteriordb)", Key: key},
		Posterior: p, Model: m,
	}
	if r := p.Reference; r != nil {
		if len(m.Names) != len(r.Names) {
			return nil, fmt.Errorf("posterior %s: model %s writes %d values %v, the reference draws name %d %v", name, m.Name, len(m.Names), m.Names, len(r.Names), r.Names)
		}
		d.col = make([]int, len(m.Names))
		for i, n := range m.Names {
			j := r.Index(n)
			if j < 0 || slices.Index(m.Names, n) != i {
				return nil, fmt.Errorf("posterior %s: model %s writes %s, which the reference draws do not name (or twice)", name, m.Name, n)
			}
			d.col[i] = j
		}
	}
	return d, nil
}

// OwnStart is true: Stan's default initialisation, uniform on [−2, 2] in
// every unconstrained coordinate, with which posteriordb's references
// were made.
func (d *PDBData) OwnStart() bool { return true }

// Start returns n draws uniform on [−2, 2]ᵈ for "" and "model" (Stan's
// default initialisation), nil (the method's prior draws) for "prior".
func (d *PDBData) Start(how string, n int, rng *rand.Rand) (*mat.Dense, error) {
	switch how {
	case "", "model":
		dim := d.Model.Target.Dim()
		X := mat.NewDense(n, dim, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < dim; j++ {
				X.Set(i, j, 4*rng.Float64()-2)
			}
		}
		return X, nil
	case "prior":
		return nil, nil
	}
	return nil, fmt.Errorf("init = %q: a posteriordb dataset starts from %q (Stan's uniform on [−2, 2]) or %q", how, "model", "prior")
}

// pdbCompareSettings are the settings of every pdb metric: all 10,000
// reference draws in the MMD², the bandwidth of 1,000.
var pdbCompareSettings = posteriordb.CompareSettings{}

// pdbComparisons caches a Comparison per reference (posterior and files):
// its reference term and floors are computed once per process.
var pdbComparisons sync.Map // key → *pdbCmpEntry

type pdbCmpEntry struct {
	once sync.Once
	cmp  *posteriordb.Comparison
	err  error
}

// comparison returns the reference's Comparison.
func (d *PDBData) comparison() (*posteriordb.Comparison, error) {
	d.cmpOnce.Do(func() {
		if d.Posterior.Reference == nil {
			d.cmpErr = fmt.Errorf("posterior %s has no reference draws", d.Posterior.Name)
			return
		}
		v, _ := pdbComparisons.LoadOrStore(d.Key, &pdbCmpEntry{})
		e := v.(*pdbCmpEntry)
		e.once.Do(func() { e.cmp, e.err = posteriordb.NewComparison(d.Posterior.Reference, pdbCompareSettings) })
		d.cmpRes, d.cmpErr = e.cmp, e.err
	})
	return d.cmpRes, d.cmpErr
}

// Describe adds, once a pdb metric has prepared the comparison, the
// reference the metrics measure against under "reference" (kind
// "posteriordb", draws, chains, bandwidth, posteriordb's diagnostics and
// the floors of every pdb metric), where the report reads floors.
func (d *PDBData) Describe() map[string]any {
	s := d.Info.Describe()
	s["posteriordb"] = map[string]any{"posterior": d.Posterior.Name, "model": d.Posterior.ModelName, "data": d.Posterior.DataName}
	d.mu.Lock()
	c := d.cmp
	d.mu.Unlock()
	if c == nil {
		return s
	}
	r := d.Posterior.Reference
	info := RefInfo{Kind: "posteriordb", Draws: c.Draws, Chains: r.Chains(), Bandwidth: c.Bandwidth}
	if ri := r.Info; ri != nil {
		info.Diagnostics = map[string]any{
			"method": ri.Method, "max_rhat": finite(ri.Diagnostics.MaxRhat()),
			"min_ess_bulk": finite(ri.Diagnostics.MinESSBulk()), "checks": ri.Checks,
		}
	}
	f := c.Floor
	setFloor(&info, PDBMMD2, f.MMD2)
	setFloor(&info, PDBMeanErr, f.MaxMeanErr)
	setFloor(&info, PDBMeanZ, f.MaxMeanZ)
	setFloor(&info, PDBSDRatioMin, f.MinSDRatio)
	setFloor(&info, PDBSDRatioMax, f.MaxSDRatio)
	s["reference"] = info
	return s
}

// pdbSnap is the last snapshot the pdb metrics evaluated: its particles
// in the constrained space and their scores, so that the metrics of one
// snapshot share one pass.
type pdbSnap struct {
	key  predKey
	ok   bool
	C    *mat.Dense
	sum  posteriordb.Summary
	mmd  bool // sum.MMD2 computed
	errs posteriordb.Errors
}

// constrain writes the particles' constrained values into C, in the
// reference's column order.
func (d *PDBData) constrain(C, X *mat.Dense) {
	n, _ := X.Dims()
	buf := make([]float64, len(d.col))
	for i := 0; i < n; i++ {
		buf = d.Model.Constrain(buf, X.RawRowView(i))
		row := C.RawRowView(i)
		for k, j := range d.col {
			row[j] = buf[k]
		}
	}
}

// eval returns the scores of snapshot s (the MMD² only when mmd is set).
func (d *PDBData) eval(s particle.Snapshot, mmd bool) posteriordb.Summary {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := predKey{s.X, s.Step, s.GradEvals, s.Seconds}
	l := &d.last
	if !l.ok || l.key != k {
		n, _ := s.X.Dims()
		l.C = mat.NewDense(n, len(d.col), nil)
		d.constrain(l.C, s.X)
		l.sum = d.cmp.Errors(&l.errs, l.C, s.W, posteriordb.Own{}).Summary()
		l.key, l.ok, l.mmd = k, true, false
	}
	if mmd && !l.mmd {
		l.sum.MMD2 = d.cmp.MMD2(l.C, s.W)
		l.mmd = true
	}
	return l.sum
}

// pdbOf returns the problem's posteriordb data with its comparison
// prepared, or an error naming the metric.
func pdbOf(p *harness.Problem, metric string) (*PDBData, error) {
	d, ok := p.Model.(*PDBData)
	if !ok {
		name := fmt.Sprintf("%T", p.Model)
		if m, err := modelOf(p); err == nil {
			name = m.About().Name
		}
		return nil, fmt.Errorf("%s needs a posteriordb dataset (%s<posterior>), not %s", metric, PosteriorDBPrefix, name)
	}
	c, err := d.comparison()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", metric, err)
	}
	d.mu.Lock()
	d.cmp = c
	d.mu.Unlock()
	return d, nil
}

// pdbMetric is the factory of one pdb metric: the value pick takes from
// the snapshot's scores.
func pdbMetric(name string, mmd bool, pick func(posteriordb.Summary) float64) harness.MetricFactory {
	return func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		d, err := pdbOf(p, name)
		if err != nil {
			return nil, err
		}
		return func(s particle.Snapshot) float64 { return pick(d.eval(s, mmd)) }, nil
	}
}

// registerPosteriorDB registers the posteriordb.<name> datasets and the
// pdb metrics with what they mean: each reads the posteriordb reference
// draws; the MMD² and the mean errors are better lower, the sd ratios
// nearer 1.
func registerPosteriorDB(r *harness.Registry) {
	models := posteriorModels(r)
	r.RegisterDatasetFamily(PosteriorDBPrefix, func(name string) (harness.Dataset, bool) { return pdbDataset(models, name) })
	ref := harness.ReadsReference
	lower := func(label string, log bool) harness.MetricMeaning {
		return harness.MetricMeaning{Label: label, Better: harness.LowerBetter, Log: log, Reads: ref}
	}
	ratio := func(label string) harness.MetricMeaning {
		return harness.MetricMeaning{Label: label, Better: harness.NearerBetter, Ideal: 1, Reads: ref}
	}
	for _, m := range []struct {
		name  string
		mmd   bool
		pick  func(posteriordb.Summary) float64
		means harness.MetricMeaning
	}{
		{PDBMMD2, true, func(s posteriordb.Summary) float64 { return s.MMD2 }, lower("MMD² to the posteriordb reference (standardised draws)", true)},
		{PDBMeanErr, false, func(s posteriordb.Summary) float64 { return s.MaxMeanErr }, lower("largest |Δ mean| / reference sd", false)},
		{PDBMeanZ, false, func(s posteriordb.Summary) float64 { return s.MaxMeanZ }, lower("largest |Δ mean| / reference MCSE", false)},
		{PDBSDRatioMin, false, func(s posteriordb.Summary) float64 { return s.MinSDRatio }, ratio("smallest sd ratio to the reference")},
		{PDBSDRatioMax, false, func(s posteriordb.Summary) float64 { return s.MaxSDRatio }, ratio("largest sd ratio to the reference")},
	} {
		r.RegisterVersionedMetric(m.name, "1", pdbMetric(m.name, m.mmd, m.pick))
		r.DescribeMetric(m.name, m.means)
	}
}
