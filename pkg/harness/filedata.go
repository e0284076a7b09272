package harness

import (
	"errors"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// fileDataKind is the registered builder of datasets that experiment files
// declare in [data.NAME] tables, with its settings type erased.
type fileDataKind struct {
	settings reflect.Type
	build    func(expFile, name string, s any) (Dataset, error)
}

// RegisterFileDataset lets experiment files declare datasets of their own:
// each table [data.NAME] of a file is decoded strictly into a zero S (which
// may implement Validator; a *FieldError is reported at its key's line) and
// handed to build with the path of the experiment file, for file names
// relative to it (an error of build that is a *FieldError is reported at
// its key's line too). The dataset is then named NAME in that file only; a NAME
// that a registered dataset has is an error. The Dataset's Checksums must
// cover everything its problems depend on (the files' sha256 and the
// declaration itself): they enter the cache keys. Registering twice
// panics.
func RegisterFileDataset[S any](r *Registry, build func(expFile, name string, s S) (Dataset, error)) {
	var zero S
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Struct {
		panic("harness: settings of file datasets must be a struct")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fileData != nil {
		panic("harness: file datasets registered twice")
	}
	r.fileData = &fileDataKind{settings: t, build: func(expFile, name string, s any) (Dataset, error) {
		return build(expFile, name, s.(S))
	}}
}

// fileDatasets decodes and builds the [data.NAME] tables of the file, once
// per file (every profile shares them).
func (d *decoder) fileDatasets(doc *expDoc) (map[string]*Dataset, error) {
	if d.own != nil || len(doc.Data) == 0 {
		return d.own, nil
	}
	d.reg.mu.RLock()
	kind := d.reg.fileData
	d.reg.mu.RUnlock()
	var names []string
	for name := range doc.Data {
		names = append(names, name)
	}
	sort.Strings(names)
	own := map[string]*Dataset{}
	for _, name := range names {
		key := []string{"data", name}
		if kind == nil {
			return nil, d.errAt(key, "datasets cannot be declared in experiment files of this program")
		}
		if !regexpName(name) {
			return nil, d.errAt(key, "%q is not a valid dataset name (letters, digits, '.', '_' and '-', not starting with '.')", name)
		}
		if _, ok := d.reg.dataset(name); ok {
			return nil, d.errAt(key, "dataset %q is a built-in dataset: give the file's own a different name", name)
		}
		v := reflect.New(kind.settings)
		if err := d.md.PrimitiveDecode(doc.Data[name], v.Interface()); err != nil {
			return nil, d.libError(err)
		}
		// at places an error of Validate or of the builder: a *FieldError
		// at its key's line, any other at the table's.
		at := func(err error) error {
			var fe *FieldError
			if errors.As(err, &fe) {
				full := append(append([]string{}, key...), strings.Split(fe.Key, ".")...)
				if d.md.IsDefined(full...) {
					return d.errAt(full, "%v", fe.Err)
				}
				e := d.errAt(key, "%v", fe.Err)
				e.Key = toml.Key(full).String()
				return e
			}
			return d.errAt(key, "%v", err)
		}
		if verr := validate(v); verr != nil {
			return nil, at(verr)
		}
		ds, err := kind.build(d.file, name, v.Elem().Interface())
		if err != nil {
			return nil, at(err)
		}
		if ds.Load == nil {
			return nil, d.errAt(key, "dataset has no loader")
		}
		own[name] = &ds
	}
	d.own = own
	return own, nil
}

// regexpName allows the capitals and underscores of built-in names such as
// year-prediction-MSD in declared names too. A name is a folder of the
// results, so it may not start with '.': "." and ".." would put the cells
// in another folder, and hidden folders hold the shared artefacts.
func regexpName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// datasetOf returns the dataset of cell c: the experiment file's own
// declaration of its name, else the registry's, with the experiment's rows
// selection (eval.rows) entered into its checksums.
func (r *Runner) datasetOf(c *Cell) (*Dataset, bool) {
	if ds, ok := c.Experiment.own[c.Dataset]; ok {
		return withRows(ds, c.Experiment), true
	}
	ds, ok := r.reg.dataset(c.Dataset)
	return withRows(ds, c.Experiment), ok
}
