package harness

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
)

// CodeVersion enters every cell's cache key. Bump it when a change of the
// harness or of code shared by every method (models, metrics, data
// preparation) changes what results mean; a change confined to one method
// bumps that method's registered version instead.
const CodeVersion = "1"

// Cell is one independent unit of work: one method on one dataset split at
// one particle count. Its results go to one CSV and one provenance file.
type Cell struct {
	// Index is the cell's position in the listed order of a run.
	Index int
	// ID is readable and stable: experiment/method/dataset/s<split>[/n<N>].
	ID string
	// Experiment, Method, Dataset, Split and N locate the cell.
	Experiment *Experiment
	Method     *Method
	Dataset    string
	Split      int
	N          int
	// Namespace is empty for a cell of the file as it stands (under its
	// profile), and the experiment's Namespace for a cell that overrides
	// made different from the file's own cell of the same id, or that the
	// file does not have: its results then live apart, under
	// <results>/<profile>/<experiment>@<namespace>/ (Runner.Paths), and
	// the file's own cell keeps its own.
	Namespace string
}

// Cells expands e into its cells: methods in file order, then the method's
// datasets, splits and particle counts. A cell's id and cache key do not
// depend on the other cells, so restricting one method to fewer datasets
// leaves every other cell, and its cached result, as it was.
func Cells(e *Experiment) []*Cell {
	var cells []*Cell
	for _, m := range e.Methods {
		dss := m.Datasets
		if dss == nil {
			// A Method built by hand rather than loaded.
			dss = e.Datasets
		}
		for _, ds := range dss {
			for _, s := range e.Splits {
				ns := m.Particles
				if len(ns) == 0 {
					ns = []int{0}
				}
				for _, n := range ns {
					id := fmt.Sprintf("%s/%s/%s/s%d", e.ID, m.Name, ds, s)
					if n > 0 {
						id += "/n" + strconv.Itoa(n)
					}
					c := &Cell{ID: id, Experiment: e, Method: m, Dataset: ds, Split: s, N: n}
					if e.Namespace != "" && !e.ownCells[id] {
						c.Namespace = e.Namespace
					}
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// Source returns the cell's random source. It depends only on the cell's id
// and the experiment seed, so results never depend on run order or -j, and
// changing a setting keeps the same random stream (paired comparisons).
func (c *Cell) Source() rand.Source {
	return seedSource(c.Experiment.Seed, c.ID)
}

func seedSource(seed int64, id string) rand.Source {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(id))
	sum := h.Sum(nil)
	return rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16]))
}

// keyDoc is everything a cell's results depend on; its sha256 is the cell's
// cache key.
type keyDoc struct {
	Code          string            `json:"code"`
	Module        string            `json:"module"`
	ID            string            `json:"id"`
	Seed          int64             `json:"seed"`
	Timed         bool              `json:"timed"`
	Kind          string            `json:"kind"`
	KindVersion   string            `json:"kind_version"`
	Settings      any               `json:"settings"`
	N             int               `json:"n"`
	Dataset       string            `json:"dataset"`
	Split         int               `json:"split"`
	Data          map[string]string `json:"data,omitempty"`
	Missing       string            `json:"missing,omitempty"`
	Budget        Budget            `json:"budget"`
	Eval          Schedule          `json:"eval"`
	MetricVers    map[string]string `json:"metric_versions,omitempty"`
	Reference     any               `json:"reference,omitempty"`
	RefVersion    string            `json:"reference_version,omitempty"`
	RefParticles  int               `json:"reference_particles,omitempty"`
	RefKind       string            `json:"reference_kind,omitempty"`
	ExtraRevision string            `json:"revision,omitempty"`
}

// cellKey describes the cache state of a cell.
type cellKey struct {
	Key     string
	Data    map[string]string
	Missing string // the reason when the data is missing
	Doc     keyDoc
	// Err is why the data's checksums could not be read (a file of the
	// wrong size): the cell fails, alone, and Key is empty.
	Err error
}

// key computes the cell's cache key. A dataset whose Checksums fails with
// ErrDataMissing gives a key that records the absence, so the cell is
// skipped now and recomputed when the data appears; any other failure of
// Checksums is the cellKey's Err, which fails that cell only.
func (r *Runner) key(c *Cell) (cellKey, error) {
	ds, _ := r.datasetOf(c)
	var data map[string]string
	var missing string
	if ds.Checksums != nil {
		sums, err := ds.Checksums(c.Split, &Env{Cell: c, runner: r, exp: c.Experiment})
		switch {
		case errors.Is(err, ErrDataMissing):
			missing = err.Error()
		case err != nil:
			return cellKey{Err: fmt.Errorf("data of %s split %d: %w", c.Dataset, c.Split, err)}, nil
		default:
			data = sums
		}
	}
	return r.keyWith(c, data, missing)
}

// keyWith computes the cell's cache key for the given data checksums, or
// the reason the data is missing.
func (r *Runner) keyWith(c *Cell, data map[string]string, missing string) (cellKey, error) {
	ck := cellKey{Data: data, Missing: missing}
	ck.Doc = configDoc(r.reg, c)
	ck.Doc.Data, ck.Doc.Missing = ck.Data, ck.Missing
	if r.opts.KeyRevision {
		v := vcsInfo()
		ck.Doc.ExtraRevision = v.Revision
		if v.Modified {
			ck.Doc.ExtraRevision += "+dirty"
		}
	}
	b, err := json.Marshal(ck.Doc)
	if err != nil {
		return ck, fmt.Errorf("cache key of %s: %w", c.ID, err)
	}
	sum := sha256.Sum256(b)
	ck.Key = hex.EncodeToString(sum[:])
	return ck, nil
}

// configDoc is the part of c's key document that the experiment file
// (its profile and overrides) decides: all of it but the data checksums
// and the revision.
func configDoc(reg *Registry, c *Cell) keyDoc {
	e := c.Experiment
	d := keyDoc{
		Code: CodeVersion, Module: moduleVersion(), ID: c.ID, Seed: e.Seed, Timed: e.Timed,
		Kind: c.Method.Kind, KindVersion: kindVersion(c.Method.kind, c.Method.Settings), Settings: c.Method.Settings,
		N: c.N, Dataset: c.Dataset, Split: c.Split,
		Budget: e.Budget, Eval: e.Eval, MetricVers: reg.metricVersions(e.Eval.Metrics),
	}
	if ref := e.Reference; ref != nil {
		d.Reference, d.RefVersion, d.RefParticles, d.RefKind = ref.Settings, kindVersion(ref.kind, ref.Settings), ref.Particles, ref.Kind
	}
	return d
}

// moduleVersion is the main module's version: a tag for released builds,
// "(devel)" otherwise (see moduleVersionOf).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return moduleVersionOf(bi.Main.Version)
	}
	return "(devel)"
}

// pseudoVersionRE matches a module pseudo-version (vX.0.0-yyyymmddhhmmss-
// abcdef123456, vX.Y.(Z+1)-0.yyyymmddhhmmss-abcdef123456 and
// vX.Y.Z-pre.0.yyyymmddhhmmss-abcdef123456), as the go command writes it.
var pseudoVersionRE = regexp.MustCompile(`^v[0-9]+\.(0\.0-|[0-9]+\.[0-9]+-([^+]*\.)?0\.)[0-9]{14}-[A-Za-z0-9]+$`)

// moduleVersionOf is the version that enters cache keys for the main
// module's version v: v itself for a release tag, "(devel)" for no
// version, for a pseudo-version and for a version marked +dirty. Since Go
// 1.24, go build in a checkout stamps the commit as a pseudo-version
// (v0.0.0-20250101120000-abcdef123456+dirty); entering it in keys would
// make every committed result stale at each commit, whereas the revision
// is meant to enter keys only under Options.KeyRevision.
func moduleVersionOf(v string) string {
	if v == "" || v == "(devel)" || strings.HasSuffix(v, "+dirty") || pseudoVersionRE.MatchString(v) {
		return "(devel)"
	}
	return v
}
