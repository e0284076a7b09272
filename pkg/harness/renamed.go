package harness

import (
	"fmt"
	"sort"
	"strings"
)

// RenamedKey records that the settings key old of method kind is now new,
// so that a file that still writes old is refused with the new name, not
// only "unknown key". It panics when kind is not registered, when old is
// recorded twice for it, or when old or new is empty.
func (r *Registry) RenamedKey(kind, old, new string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.methods[kind]
	switch {
	case !ok:
		panic("harness: renamed key of unregistered method " + kind)
	case old == "" || new == "":
		panic("harness: renamed key with an empty name")
	case k.renamed[old] != "":
		panic("harness: key " + old + " of " + kind + " renamed twice")
	}
	if k.renamed == nil {
		k.renamed = map[string]string{}
	}
	k.renamed[old] = new
}

// renamedHint returns what an unknown key at path was renamed to, for the
// kinds that renamed a settings key of that name (" (renamed: step_size in
// svgd, svgd-anchor)"), or "" when no kind did or path is not a settings
// key.
func (r *Registry) renamedHint(path []string) string {
	i := len(path) - 2
	if i < 0 || path[i] != "settings" {
		return ""
	}
	old := path[i+1]
	r.mu.RLock()
	defer r.mu.RUnlock()
	by := map[string][]string{}
	for name, k := range r.methods {
		if to := k.renamed[old]; to != "" {
			by[to] = append(by[to], name)
		}
	}
	if len(by) == 0 {
		return ""
	}
	var parts []string
	for to, kinds := range by {
		sort.Strings(kinds)
		parts = append(parts, fmt.Sprintf("%s in %s", to, strings.Join(kinds, ", ")))
	}
	sort.Strings(parts)
	return " (renamed: " + strings.Join(parts, "; ") + ")"
}
