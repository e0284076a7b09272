package harness

import (
	"regexp"
	"strings"
)

// The checks of a decoded experiment file (config.go holds its schema,
// config_decode.go its decoding): ids, datasets, splits, budgets, the
// evaluation schedule, methods, protocols and the reference.

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// pathSegment reports whether name can be one folder of a cell's path
// under its method's folder: not empty, not starting with '.' (which
// refuses "." and ".."), and without a separator or a control character.
// Experiment ids and method names (nameRE) always are; dataset names,
// which families build from outside names, are checked with it.
func pathSegment(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for _, c := range name {
		if c == '/' || c == '\\' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// check validates the decoded document doc of profile p (its keys under
// prefix) and builds the Experiment, with the methods' settings decoded
// from their layers.
func (d *decoder) check(doc *expDoc, p string, prefix []string, settings map[string][]layer, refSettings []layer) (*Experiment, error) {
	w := func(key ...string) []string { return d.where(prefix, key...) }
	e := &Experiment{
		File: d.file, Profile: p, ID: doc.ID, Description: doc.Description, Deviation: doc.Deviation, Seed: doc.Seed,
		Role: doc.Role, Timed: doc.Timed, Datasets: doc.Datasets, Splits: doc.Splits, Budget: doc.Budget, Eval: doc.Eval,
	}
	if !d.md.IsDefined("id") {
		return nil, d.missing([]string{"id"})
	}
	if !nameRE.MatchString(doc.ID) {
		return nil, d.errAt(w("id"), "%q is not a valid id (lower-case letters, digits, '.' and '-')", doc.ID)
	}
	if len(doc.Datasets) == 0 {
		if !d.md.IsDefined("datasets") {
			return nil, d.missing([]string{"datasets"})
		}
		return nil, d.errAt(w("datasets"), "at least one dataset is needed")
	}
	own, err := d.fileDatasets(doc)
	if err != nil {
		return nil, err
	}
	e.own = own
	seen := map[string]bool{}
	for _, ds := range doc.Datasets {
		if !pathSegment(ds) {
			return nil, d.errAt(w("datasets"), "dataset name %q cannot name a folder of the results (empty, '.', '..', starting with '.', or holding '/', '\\' or a control character)", ds)
		}
		_, declared := own[ds]
		if _, ok := d.reg.dataset(ds); !declared && !ok {
			return nil, d.errAt(w("datasets"), "%v", unknownName("dataset", ds, d.reg))
		}
		if seen[ds] {
			return nil, d.errAt(w("datasets"), "dataset %q is listed twice", ds)
		}
		seen[ds] = true
	}
	if len(doc.Splits) == 0 {
		if !d.md.IsDefined("splits") {
			return nil, d.missing([]string{"splits"})
		}
		return nil, d.errAt(w("splits"), "at least one split is needed")
	}
	seenI := map[int]bool{}
	for _, s := range doc.Splits {
		if s < 0 {
			return nil, d.errAt(w("splits"), "split %d is out of range (≥ 0)", s)
		}
		if seenI[s] {
			return nil, d.errAt(w("splits"), "split %d is listed twice", s)
		}
		seenI[s] = true
	}
	if doc.Budget.Steps < 0 {
		return nil, d.errAt(w("budget", "steps"), "%d is out of range (≥ 0)", doc.Budget.Steps)
	}
	if doc.Budget.Seconds < 0 || doc.Budget.Seconds != doc.Budget.Seconds {
		return nil, d.errAt(w("budget", "seconds"), "%v is out of range (≥ 0)", doc.Budget.Seconds)
	}
	if doc.Budget.GradEvals < 0 {
		return nil, d.errAt(w("budget", "grad_evals"), "%d is out of range (≥ 0)", doc.Budget.GradEvals)
	}
	if len(doc.Eval.Metrics) == 0 {
		if !d.md.IsDefined("eval", "metrics") {
			return nil, d.missing([]string{"eval", "metrics"})
		}
		return nil, d.errAt(w("eval", "metrics"), "at least one metric is needed")
	}
	seen = map[string]bool{}
	for _, m := range doc.Eval.Metrics {
		if _, ok := d.reg.metric(m); !ok {
			return nil, d.errAt(w("eval", "metrics"), "%v", unknownName("metric", m, d.reg))
		}
		if seen[m] {
			return nil, d.errAt(w("eval", "metrics"), "metric %q is listed twice", m)
		}
		seen[m] = true
	}
	if doc.Eval.Every < 0 {
		return nil, d.errAt(w("eval", "every"), "%d is out of range (≥ 0)", doc.Eval.Every)
	}
	if doc.Eval.EverySeconds < 0 || doc.Eval.EverySeconds != doc.Eval.EverySeconds {
		return nil, d.errAt(w("eval", "every_seconds"), "%v is out of range (≥ 0)", doc.Eval.EverySeconds)
	}
	if doc.Eval.EveryGradEvals < 0 {
		return nil, d.errAt(w("eval", "every_grad_evals"), "%d is out of range (≥ 0)", doc.Eval.EveryGradEvals)
	}
	if err := d.checkRows(doc, e, w); err != nil {
		return nil, err
	}
	if d.md.IsDefined("reference") || (d.cur != nil && d.cur.md.IsDefined("reference")) {
		r := doc.Reference
		if r.Kind == "" {
			return nil, d.missing([]string{"reference", "kind"})
		}
		k, ok := d.reg.method(r.Kind)
		if !ok {
			return nil, d.errAt(w("reference", "kind"), "%v", unknownName("method", r.Kind, d.reg))
		}
		if r.Particles < 0 {
			return nil, d.errAt(w("reference", "particles"), "%d is out of range (≥ 0)", r.Particles)
		}
		s, err := d.settings(k, refSettings, []string{"reference", "settings"}, prefix)
		if err != nil {
			return nil, err
		}
		e.Reference = &Reference{Kind: r.Kind, Particles: r.Particles, Settings: s, kind: k}
	}
	if len(doc.Methods) == 0 {
		return nil, d.missing([]string{"methods"})
	}
	for _, name := range d.methodOrder() {
		m, ok := doc.Methods[name]
		if !ok {
			continue
		}
		key := []string{"methods", name}
		if !nameRE.MatchString(name) {
			return nil, d.errAt(key, "%q is not a valid method name (lower-case letters, digits, '.' and '-')", name)
		}
		if m.Kind == "" {
			return nil, d.missing(append(key, "kind"))
		}
		k, ok := d.reg.method(m.Kind)
		if !ok {
			return nil, d.errAt(w("methods", name, "kind"), "%v", unknownName("method", m.Kind, d.reg))
		}
		// particles = [] would plan one cell at the method's default count,
		// which is not what an empty list says: omit the key for that.
		if pk := w("methods", name, "particles"); len(m.Particles) == 0 && d.defined(pk) {
			return nil, d.errAt(pk, "at least one particle count is needed (omit the key for one cell at the method's default)")
		}
		seenI := map[int]bool{}
		for _, n := range m.Particles {
			if n < 1 {
				return nil, d.errAt(w("methods", name, "particles"), "particle count %d is out of range (≥ 1)", n)
			}
			if seenI[n] {
				return nil, d.errAt(w("methods", name, "particles"), "particle count %d is listed twice", n)
			}
			seenI[n] = true
		}
		ds, err := d.methodDatasets(doc, p, name, w("methods", name, "datasets"))
		if err != nil {
			return nil, err
		}
		s, err := d.settings(k, settings[name], append(key, "settings"), prefix)
		if err != nil {
			return nil, err
		}
		if err := d.checkProtocols(m.Protocols, w("methods", name, "protocols")); err != nil {
			return nil, err
		}
		e.Methods = append(e.Methods, &Method{Name: name, Kind: m.Kind, Particles: m.Particles, Datasets: ds, Settings: s,
			Protocols: append([]string(nil), m.Protocols...), kind: k})
	}
	// One arm per kind and protocol.
	type kindProto struct{ kind, proto string }
	claimed := map[kindProto]string{}
	for _, m := range e.Methods {
		for _, p := range m.Protocols {
			if other, ok := claimed[kindProto{m.Kind, p}]; ok {
				return nil, d.errAt(w("methods", m.Name, "protocols"), "methods %q and %q of kind %q both claim protocol %q (one arm per kind and protocol)", other, m.Name, m.Kind, p)
			}
			claimed[kindProto{m.Kind, p}] = m.Name
		}
	}
	return e, nil
}

// checkProtocols validates a method's protocols list, set at key.
func (d *decoder) checkProtocols(ps []string, key []string) error {
	seen := map[string]bool{}
	for _, p := range ps {
		if !contains(Protocols, p) {
			return d.errAt(key, "unknown protocol %q (protocols: %s)", p, strings.Join(Protocols, ", "))
		}
		if seen[p] {
			return d.errAt(key, "protocol %q is listed twice", p)
		}
		seen[p] = true
	}
	return nil
}

// methodDatasets resolves the datasets of method name: its own list, which
// must be a non-empty subset of the experiment's without repeats, or the
// experiment's whole list when the method (and the profile) gives none. A
// profile that narrows the experiment's datasets must narrow the method's
// list too: a dataset named and then not run is a mistake, not a filter. The
// result follows the experiment's order, so that cells are listed the same
// way whatever order the method's list is written in. key is where the list
// was set (in the profile or the base).
func (d *decoder) methodDatasets(doc *expDoc, p, name string, key []string) ([]string, error) {
	m := doc.Methods[name]
	if !d.defined(key) {
		return doc.Datasets, nil
	}
	if len(m.Datasets) == 0 {
		return nil, d.errAt(key, "at least one dataset is needed (omit the key for all of the experiment's)")
	}
	want := map[string]bool{}
	for _, ds := range m.Datasets {
		if !contains(doc.Datasets, ds) {
			under := ""
			if p != "" {
				under = " under profile " + p
			}
			return nil, d.errAt(key, "dataset %q is not among the experiment's datasets%s (%s)", ds, under, strings.Join(doc.Datasets, ", "))
		}
		if want[ds] {
			return nil, d.errAt(key, "dataset %q is listed twice", ds)
		}
		want[ds] = true
	}
	var out []string
	for _, ds := range doc.Datasets {
		if want[ds] {
			out = append(out, ds)
		}
	}
	return out, nil
}

// methodOrder returns the method names in the order the file defines them.
func (d *decoder) methodOrder() []string {
	var names []string
	seen := map[string]bool{}
	for _, k := range d.md.Keys() {
		if len(k) >= 2 && k[0] == "methods" && !seen[k[1]] {
			seen[k[1]] = true
			names = append(names, k[1])
		}
	}
	return names
}
