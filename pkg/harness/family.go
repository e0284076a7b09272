package harness

import (
	"sort"
	"strings"
	"sync"
)

// families holds the dataset families of a registry (RegisterDatasetFamily)
// and the datasets built from them. Its zero value is empty and usable.
type families struct {
	mu    sync.Mutex
	build map[string]func(member string) (Dataset, bool)
	built map[string]*Dataset
}

// RegisterDatasetFamily adds the datasets named prefix+NAME, for every
// NAME that build accepts: a name that no dataset is registered under and
// that starts with prefix is looked up by calling build with the rest of
// the name, once (the dataset it returns is kept); false means no such
// dataset. The family stands for datasets that are not known when the
// program starts, such as the posteriors of a database whose folder is
// chosen at run time: build should accept any well-formed NAME and let the
// dataset's Checksums report a NAME that is absent (wrapping
// ErrDataMissing, so that its cells are skipped). prefix must be
// non-empty; registering a prefix twice, or one that starts another's,
// panics.
func (r *Registry) RegisterDatasetFamily(prefix string, build func(member string) (Dataset, bool)) {
	f := &r.families
	f.mu.Lock()
	defer f.mu.Unlock()
	if prefix == "" || build == nil {
		panic("harness: dataset family needs a prefix and a builder")
	}
	for p := range f.build {
		if strings.HasPrefix(p, prefix) || strings.HasPrefix(prefix, p) {
			panic("harness: dataset family " + prefix + " overlaps family " + p)
		}
	}
	if f.build == nil {
		f.build = map[string]func(string) (Dataset, bool){}
		f.built = map[string]*Dataset{}
	}
	f.build[prefix] = build
}

// lookup returns the family dataset name, building it on first use.
func (f *families) lookup(name string) (*Dataset, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.built[name]; ok {
		return d, true
	}
	for p, build := range f.build {
		member, ok := strings.CutPrefix(name, p)
		if !ok || member == "" {
			continue
		}
		d, ok := build(member)
		if !ok || d.Load == nil {
			return nil, false
		}
		f.built[name] = &d
		return &d, true
	}
	return nil, false
}

// patterns returns "PREFIX<name>" for every family, sorted, for the
// message that lists the datasets a file may name.
func (f *families) patterns() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.build {
		out = append(out, p+"<name>")
	}
	sort.Strings(out)
	return out
}
