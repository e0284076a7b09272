package harness

import (
	"maps"
	"slices"
)

// KindTraits is what the report reads of a method kind, registered beside
// the kind (Registry.DescribeKind) as a metric's meaning is beside the
// metric: the report names no method, and orders, draws and flags a
// kind's cells by these traits alone. The zero value is a kind the report
// knows nothing of: ordered after every kind with a Legend, its snapshots'
// steps not particle counts, its series told apart by nothing, its flags
// counted as recorded.
type KindTraits struct {
	// Legend places the kind's methods in legends and tables: kinds with
	// a smaller Legend first (the first method of each of the first four
	// gets a colour of its own), methods of equal Legend by name. 0 places
	// the kind after every kind that sets one.
	Legend int
	// OneParticlePerStep is set for a kind whose every step adds one
	// particle, so that a snapshot's step is its set's particle count: a
	// curve against N is then the trajectory of a single cell, and the set
	// at N is read at step N of a larger cell.
	OneParticlePerStep bool
	// Series reads, from a cell's recorded settings (Provenance.Settings,
	// as decoded from JSON), what tells its series apart in a figure; nil
	// when nothing does.
	Series func(settings any) SeriesTraits
	// Flags returns the flag codes of a cell that say something about its
	// run at its particle count: those it recorded (p.Diagnostics), less
	// those that the cell's N alone raises, plus what the kind reads of
	// its recorded summary (summary, decoded; nil when absent). nil counts
	// the recorded flags as they are.
	Flags func(p *Provenance, summary map[string]any) []string
	// FlagNote says, in a sentence fragment, which flags Flags leaves out
	// or adds and why: the report writes it where it counts the flags
	// (kinds that share a note give the same text, written once).
	FlagNote string
	// NoSetChecks is set for a kind that runs none of the checks of a
	// particle set (metric.DiagnoseSet: the Stein spread ratios, the
	// missed-mode test) and is judged by diagnostics of its own: an
	// unflagged cell of it does not count as unchecked.
	NoSetChecks bool
}

// SeriesTraits is what a cell's recorded settings say of its series in a
// figure (KindTraits.Series).
type SeriesTraits struct {
	// OwnMetric is the metric (a method statistic, StatPrefix + key) that
	// measures the series in its method's own kernel where a figure of
	// MMD² draws it; "" when the figure's metric does. OwnNote is the
	// legend note of a series drawn in it.
	OwnMetric, OwnNote string
	// Control is the legend note of a control series, one that runs a
	// variant of the method to measure the method against (an exact
	// direction where the method approximates one), drawn in the colour of
	// its twin; "" for a series of the method itself.
	Control string
	// Twin groups the series that may be twins: a control's twin is the
	// first series in legend order that is not a control, has the same
	// Twin and shares a dataset with it.
	Twin string
}

// KindTable maps method kind names to their traits: what the report reads
// from the registry that planned the results it draws.
type KindTable map[string]KindTraits

// Traits returns the traits of kind, the zero KindTraits when the table
// has none.
func (t KindTable) Traits(kind string) KindTraits { return t[kind] }

// DescribeKind records the traits of the method kind name, registered on r
// (RegisterMethod). An unregistered kind, a negative Legend, or a second
// description of a kind panics.
func (r *Registry) DescribeKind(name string, t KindTraits) {
	if t.Legend < 0 {
		panic("harness: traits of method " + name + ": negative legend place")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.methods[name]; !ok {
		panic("harness: traits of unregistered method " + name)
	}
	if _, dup := r.kinds[name]; dup {
		panic("harness: method " + name + " described twice")
	}
	if r.kinds == nil {
		r.kinds = KindTable{}
	}
	r.kinds[name] = t
}

// Kinds returns the traits of every kind r describes, in a table of the
// caller's.
func (r *Registry) Kinds() KindTable {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(KindTable, len(r.kinds))
	maps.Copy(out, r.kinds)
	return out
}

// RunCheck is a check that methods evaluate on their result at run time
// and whose outcome is a flag only: it changes no number and no cache key,
// so a cell computed before the check entered the code stays cached
// without it, and reads as unflagged though a rerun might flag it. The
// report says, for every check described (Registry.DescribeCheck), on how
// many cells of its kinds it was evaluated, and does not let "not
// evaluated" pass for "not flagged".
type RunCheck struct {
	// Flag is the flag code the check raises.
	Flag string
	// Kinds are the method kinds that evaluate it (Provenance.Kind).
	Kinds []string
	// Methods names those methods in the report's text.
	Methods string
	// Key is the diagnostic value (particle.Diagnostics.Values) that the
	// check records whenever it runs, flagged or not: its presence proves
	// the check was evaluated on the cell.
	Key string
	// Reach says when the check runs and records no Key: a cell without
	// Key was computed before the check or lies out of its reach, which
	// the cell alone does not tell apart.
	Reach string
	// About is a one-line description of the check.
	About string
}

// DescribeCheck records a run-time check of the kinds c.Kinds, registered
// on r; the report lists the checks in the order described. A check
// without a flag, a key or a kind, of an unregistered kind, or a second
// check of the same flag panics.
func (r *Registry) DescribeCheck(c RunCheck) {
	if c.Flag == "" || c.Key == "" || len(c.Kinds) == 0 {
		panic("harness: run-time check " + c.Flag + " needs a flag, a key and a kind")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range c.Kinds {
		if _, ok := r.methods[k]; !ok {
			panic("harness: run-time check " + c.Flag + " of unregistered method " + k)
		}
	}
	for _, o := range r.checks {
		if o.Flag == c.Flag {
			panic("harness: run-time check " + c.Flag + " described twice")
		}
	}
	c.Kinds = slices.Clone(c.Kinds)
	r.checks = append(r.checks, c)
}

// Checks returns the run-time checks r describes, in the order described,
// in a slice of the caller's.
func (r *Registry) Checks() []RunCheck {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]RunCheck, len(r.checks))
	for i, c := range r.checks {
		c.Kinds = slices.Clone(c.Kinds)
		out[i] = c
	}
	return out
}
