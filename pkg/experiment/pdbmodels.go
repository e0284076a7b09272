package experiment

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
)

// pdbModels are the posteriordb models a registry's posteriordb datasets
// build beside pkg/pdbmodel's: those registered with
// RegisterPosteriorModel, with their versions.
type pdbModels struct {
	mu      sync.RWMutex
	build   map[string]pdbmodel.Builder
	version map[string]string
}

type pdbModelsKey struct{}

// posteriorModels returns the models registered on r (an empty table the
// first time).
func posteriorModels(r *harness.Registry) *pdbModels {
	return r.Extension(pdbModelsKey{}, func() any {
		return &pdbModels{build: map[string]pdbmodel.Builder{}, version: map[string]string{}}
	}).(*pdbModels)
}

// RegisterPosteriorModel adds to r the posteriordb model name (the
// model_name of a posterior's JSON), bound to a posterior's data by b: the
// cells of every posterior of that model, in any posteriordb folder, then
// run instead of being skipped as "model not available". version enters
// the cache keys of those cells (bump it when the model's density
// changes); the models of pkg/pdbmodel need none. A name pkg/pdbmodel
// holds, or one registered twice, panics; the model reaches no other
// registry.
func RegisterPosteriorModel(r *harness.Registry, name, version string, b pdbmodel.Builder) {
	if name == "" || b == nil {
		panic("experiment: posteriordb model needs a name and a builder")
	}
	if slices.Contains(pdbmodel.Names(), name) {
		panic("experiment: posteriordb model " + name + " is pkg/pdbmodel's")
	}
	m := posteriorModels(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.build[name]; dup {
		panic("experiment: posteriordb model " + name + " registered twice")
	}
	m.build[name], m.version[name] = b, version
}

// PosteriorModels returns the names of the posteriordb models r's
// posteriordb datasets can build, sorted: pkg/pdbmodel's and those
// registered on r.
func PosteriorModels(r *harness.Registry) []string {
	out := pdbmodel.Names()
	m := posteriorModels(r)
	m.mu.RLock()
	for n := range m.build {
		out = append(out, n)
	}
	m.mu.RUnlock()
	sort.Strings(out)
	return out
}

// has reports whether the model name can be built: pkg/pdbmodel's or
// registered.
func (m *pdbModels) has(name string) bool {
	if slices.Contains(pdbmodel.Names(), name) {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.build[name]
	return ok
}

// own returns the builder and version of a registered model.
func (m *pdbModels) own(name string) (pdbmodel.Builder, string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	b, ok := m.build[name]
	return b, m.version[name], ok
}

// newModel binds the model name to data: a registered model, else
// pkg/pdbmodel's.
func (m *pdbModels) newModel(name string, data map[string]json.RawMessage) (*pdbmodel.Model, error) {
	if b, _, ok := m.own(name); ok {
		return b(data)
	}
	return pdbmodel.New(name, data)
}

// UncheckedPosteriors returns the posteriordb folder (PosteriorDB) and,
// sorted and once each, the posteriors of the datasets named (with their
// PosteriorDBPrefix; other names are passed over) that the folder holds
// and reads without checksums: those of a folder in the staged layout that
// the staged table does not list (it lists the thirteen staged
// posteriors). A clone of posteriordb's repository, which records no
// checksums, is read unverified throughout and is not reported here.
func UncheckedPosteriors(datasets []string) (root string, names []string) {
	root = PosteriorDB()
	if root == "" {
		return "", nil
	}
	db, err := posteriordb.Open(root)
	if err != nil || db.Layout != posteriordb.Staged {
		return root, nil
	}
	seen := map[string]bool{}
	for _, d := range datasets {
		name, ok := strings.CutPrefix(d, PosteriorDBPrefix)
		if !ok || seen[name] || !db.Has(name) {
			continue
		}
		seen[name] = true
		if !db.Checked(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return root, names
}
