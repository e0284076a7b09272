package harness

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// StaleReason says which inputs of a stale cell's cache key changed since
// its results were computed, as the differences between the key document
// recorded in its provenance and the current one ("settings.step 0.1 →
// 0.01; data.covertype/covtype.data changed"). It is empty unless the cell
// is stale. A cell whose key is current but whose results cannot be
// trusted gives the reason of Unverified ("CSV changed since it was
// written").
func (s CellStatus) StaleReason() string {
	if s.Status != Stale {
		return ""
	}
	if s.unverified != "" {
		return s.unverified
	}
	if s.Prov == nil {
		return ""
	}
	if s.Prov.KeyDoc.Code == "" {
		return "the provenance records no key document"
	}
	old, cur := s.Prov.KeyDoc, s.ck.Doc
	var diffs []string
	switch {
	case cur.Missing != "" && old.Missing == "":
		diffs = append(diffs, "the data is missing now ("+cur.Missing+")")
	case cur.Missing == "" && old.Missing != "":
		diffs = append(diffs, "the data is present now")
	}
	if cur.Missing != "" || old.Missing != "" {
		old.Data, old.Missing, cur.Data, cur.Missing = nil, "", nil, ""
	}
	diffs = append(diffs, keyDiff(old, cur)...)
	if len(diffs) == 0 {
		// Equal documents, different keys: the recorded key was
		// computed differently (or edited).
		return "the recorded key does not match its key document"
	}
	const most = 6
	if len(diffs) > most {
		diffs = append(diffs[:most], fmt.Sprintf("and %d more", len(diffs)-most))
	}
	return strings.Join(diffs, "; ")
}

// DataMissing reports whether the cell's data is absent now, so that its
// key records the absence rather than the data's checksums. A cell whose
// results were computed from data that is absent here is stale for that
// reason alone: its results cannot be judged from this machine.
func (s CellStatus) DataMissing() bool { return s.ck.Missing != "" }

// keyDiff lists the differences between two key documents, key by key in
// sorted order, descending into tables.
func keyDiff(old, cur keyDoc) []string {
	a, b := jsonValue(old), jsonValue(cur)
	var out []string
	diffValues("", a, b, &out)
	return out
}

func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func diffValues(path string, a, b any, out *[]string) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffValues(p, am[k], bm[k], out)
		}
		return
	}
	if path == "" {
		path = "key"
	}
	switch {
	case a == nil:
		*out = append(*out, fmt.Sprintf("%s added (%s)", path, short(b)))
	case b == nil:
		*out = append(*out, fmt.Sprintf("%s removed (was %s)", path, short(a)))
	case strings.HasPrefix(path, "data."):
		*out = append(*out, path+" changed")
	default:
		*out = append(*out, fmt.Sprintf("%s %s → %s", path, short(a), short(b)))
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// Orphans returns the result files (CSV and provenance JSON) under the
// results folder of each experiment of cells that belong to none of cells,
// in sorted order: files of methods, datasets, splits or particle counts
// the experiment no longer has. An experiment's results folder is the
// folder its id names, where its cells' result paths (see Paths) end in
// their ids, else the deepest folder holding all of them; hidden folders (shared artefacts) and running markers are never
// orphans. cells must be every cell of the experiments, not a selection.
func (r *Runner) Orphans(cells []*Cell) ([]string, error) {
	own := map[string]bool{}
	roots := map[*Experiment]string{}
	for _, c := range cells {
		csv, prov := r.Paths(c)
		own[filepath.Clean(csv)], own[filepath.Clean(prov)] = true, true
		// The path of a cell ends with its id, experiment/method/…: the
		// experiment's folder is where the id starts.
		base := strings.TrimSuffix(filepath.Clean(csv), filepath.Ext(csv))
		if id := filepath.FromSlash(c.ID); strings.HasSuffix(base, id) && strings.HasPrefix(c.ID, c.Experiment.ID+"/") {
			roots[c.Experiment] = filepath.Join(strings.TrimSuffix(base, id), c.Experiment.ID)
			continue
		}
		for _, p := range []string{csv, prov} {
			dir := filepath.Dir(filepath.Clean(p))
			root, ok := roots[c.Experiment]
			if !ok {
				roots[c.Experiment] = dir
				continue
			}
			roots[c.Experiment] = commonDir(root, dir)
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, root := range roots {
		if seen[root] {
			continue
		}
		seen[root] = true
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == root {
					return filepath.SkipDir
				}
				return err
			}
			if e.IsDir() {
				if p != root && strings.HasPrefix(e.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			ext := filepath.Ext(p)
			if (ext == ".csv" || ext == ".json") && !strings.HasSuffix(p, MarkerSuffix) && !own[filepath.Clean(p)] {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// commonDir returns the deepest folder that holds both a and b.
func commonDir(a, b string) string {
	for !within(b, a) {
		parent := filepath.Dir(a)
		if parent == a {
			return a
		}
		a = parent
	}
	return a
}

// within reports whether path p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
