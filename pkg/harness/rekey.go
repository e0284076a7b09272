package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
)

// RekeyRule says which differences between a cell's recorded settings and
// its current ones leave its results as they are, so that Rekey may record
// them under the current cache key: keys renamed, and keys written out
// with the value the run took when the file left them out. Both are per
// method kind.
type RekeyRule struct {
	// Rename maps a kind to its renamed settings keys, old name to new.
	Rename map[string]map[string]string
	// Add maps a kind to the settings keys that the current settings may
	// hold and the recorded ones lack, each with the values it may take.
	Add map[string]map[string][]any
}

// RekeyOutcome is what Rekey found for one cell.
type RekeyOutcome struct {
	// Rekeyed is true when the cell's provenance matched the rule (and was
	// rewritten, unless it was a dry run).
	Rekeyed bool
	// Why says why a stale cell was left alone; it is empty for a cell
	// rekeyed and for one that is not stale by its key alone.
	Why string
}

// Rekey records c's results under its current cache key when they were
// made under another key document that computes the same results: every
// member of the two key documents is equal but the settings, and the
// current settings are the recorded ones with rule's renames applied and
// with keys added that rule allows, at values it allows. The provenance's
// key, key document and settings are then rewritten (when write is true);
// its CSV, checksum, timings and summary stay as they are. A cell that is
// done under its current key, has no provenance, or is stale for another
// reason (a CSV changed since it was written, an unreadable provenance) is
// left alone, with the reason. Rekey holds the cell's running marker while
// it writes.
func (r *Runner) Rekey(c *Cell, rule RekeyRule, write bool) (RekeyOutcome, error) {
	st, err := r.Status(c)
	if err != nil {
		return RekeyOutcome{}, err
	}
	switch {
	case st.Err != nil:
		return RekeyOutcome{Why: st.Err.Error()}, nil
	case st.Status != Stale:
		return RekeyOutcome{}, nil
	case st.unverified != "":
		return RekeyOutcome{Why: st.unverified}, nil
	case st.Prov == nil:
		return RekeyOutcome{Why: "no provenance"}, nil
	case st.Prov.Profile != c.Experiment.Profile:
		return RekeyOutcome{Why: fmt.Sprintf("results of profile %q", st.Prov.Profile)}, nil
	}
	if err := r.checkPath(c); err != nil {
		return RekeyOutcome{}, err
	}
	csvPath, provPath := r.Paths(c)
	if why := checkCSV(csvPath, st.Prov.CSVSHA256); why != "" {
		return RekeyOutcome{Why: why}, nil
	}
	if why, err := sameRun(st.Prov.KeyDoc, st.ck.Doc, c.Method.Kind, rule); err != nil || why != "" {
		return RekeyOutcome{Why: why}, err
	}
	if !write {
		return RekeyOutcome{Rekeyed: true}, nil
	}
	end, err := r.claim(c)
	if err != nil {
		return RekeyOutcome{}, fmt.Errorf("%s: %w", c.ID, err)
	}
	defer end()
	p := st.Prov
	p.Key, p.KeyDoc, p.Settings = st.ck.Key, st.ck.Doc, c.Method.Settings
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return RekeyOutcome{}, fmt.Errorf("%s: %w", provPath, err)
	}
	if err := atomicfile.Write(provPath, append(b, '\n'), 0o644); err != nil {
		return RekeyOutcome{}, err
	}
	return RekeyOutcome{Rekeyed: true}, nil
}

// sameRun returns why the recorded key document old and the current one
// cur do not describe the same run under rule, or "" when they do.
func sameRun(old, cur keyDoc, kind string, rule RekeyRule) (string, error) {
	o, err := asMap(old)
	if err != nil {
		return "", err
	}
	n, err := asMap(cur)
	if err != nil {
		return "", err
	}
	os, _ := o["settings"].(map[string]any)
	ns, _ := n["settings"].(map[string]any)
	delete(o, "settings")
	delete(n, "settings")
	if !reflect.DeepEqual(o, n) {
		var diff []string
		for k := range n {
			if !reflect.DeepEqual(o[k], n[k]) {
				diff = append(diff, k)
			}
		}
		for k := range o {
			if _, ok := n[k]; !ok {
				diff = append(diff, k)
			}
		}
		sort.Strings(diff)
		return "key document differs beyond the settings: " + strings.Join(diff, ", "), nil
	}
	renamed := make(map[string]any, len(os))
	for k, v := range os {
		if to, ok := rule.Rename[kind][k]; ok {
			k = to
		}
		renamed[k] = v
	}
	var why []string
	for k, v := range renamed {
		w, ok := ns[k]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("%s dropped", k))
		case !reflect.DeepEqual(v, w):
			why = append(why, fmt.Sprintf("%s %v, was %v", k, w, v))
		}
	}
	for k, w := range ns {
		if _, ok := renamed[k]; ok {
			continue
		}
		allowed, ok := rule.Add[kind][k]
		if !ok || !slices.ContainsFunc(allowed, func(a any) bool { return reflect.DeepEqual(a, w) }) {
			why = append(why, fmt.Sprintf("%s = %v added", k, w))
		}
	}
	sort.Strings(why)
	return strings.Join(why, "; "), nil
}

// asMap returns d as the JSON object it encodes to, decoded generically.
func asMap(d keyDoc) (map[string]any, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("harness: key document encodes to null")
	}
	return m, nil
}
