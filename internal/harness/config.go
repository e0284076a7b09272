package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mmdfw/mmdfw/pkg/setting"
)

// Profiles an experiment file may define. A profile overrides fields of the
// base experiment; the empty profile is the base itself.
var Profiles = []string{"quick", "full"}

// ConfigError is a problem in an experiment file, at a line and key.
type ConfigError struct {
	File string
	// Line is 1-based; 0 when the problem has no line (a missing
	// top-level key).
	Line int
	// Key is the dotted TOML key at fault.
	Key string
	Msg string
}

// Error names the file, the line and the key, then what is wrong.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "key %s: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Experiment is an experiment file resolved under one profile.
type Experiment struct {
	// File is the path the experiment was read from.
	File string
	// Profile is the profile applied ("" for the base).
	Profile string
	// ID names the experiment and its results folder.
	ID string
	// Description says what the experiment reproduces.
	Description string
	// Deviation, when not empty, says how this profile departs from the
	// paper's protocol (a shorter reference, fewer splits…); the report
	// lists it among the deviations.
	Deviation string
	// Seed enters every cell's random seed.
	Seed int64
	// Role is RoleTuning for an experiment that chooses settings (it may
	// read no reported split: see Rows), "" or RoleReport otherwise.
	Role string
	// Timed marks experiments whose curves are plotted against wall-clock
	// time: see the runner's documentation on -j.
	Timed bool
	// Datasets and Splits span the cells of every method.
	Datasets []string
	Splits   []int
	// Budget stops every cell's method.
	Budget Budget
	// Eval says which metrics are evaluated at which snapshots.
	Eval Schedule
	// Reference, when not nil, is the reference sampler of the experiment.
	Reference *Reference
	// Methods are in file order.
	Methods []*Method
	// own are the datasets the file declares in [data.NAME] tables.
	own map[string]*Dataset
	// Overrides are the KEY=VALUE overrides applied after the profile
	// (LoadFileSet), in the order they apply; the provenance records them.
	Overrides []string
	// Figures are the figures the file declares in [[figures]] tables,
	// with their defaults set; they enter no cache key.
	Figures []Figure
	// FiguresDeclared is set when the file has a figures key, also an
	// empty one (figures = [] for an experiment whose output is a table):
	// the report draws default figures for an experiment without it.
	FiguresDeclared bool
}

// Budget stops a method through its recorder: once Steps snapshots steps are
// reached, Seconds of compute time are spent or GradEvals per-datapoint
// gradient evaluations (particle.Snapshot.GradEvals, the machine-independent
// cost) are charged. Zero means no limit; an unset GradEvals leaves the
// cache keys as they were.
type Budget struct {
	Steps     int     `toml:"steps" json:"steps"`
	Seconds   float64 `toml:"seconds" json:"seconds"`
	GradEvals int64   `toml:"grad_evals" json:"grad_evals,omitempty"`
}

// Schedule selects the snapshots at which metrics are evaluated. A snapshot
// is evaluated when any rule selects it; with no rule, every snapshot is.
// The snapshot at which a budget stops the method, and the method's final
// particles, are always evaluated.
type Schedule struct {
	// Metrics are registered metric names, evaluated in this order.
	Metrics []string `toml:"metrics" json:"metrics"`
	// Every selects steps that are multiples of it.
	Every int `toml:"every" json:"every"`
	// EverySeconds selects a snapshot once this much compute time has
	// passed since the last evaluated one.
	EverySeconds float64 `toml:"every_seconds" json:"every_seconds"`
	// EveryGradEvals selects a snapshot once this many per-datapoint
	// gradient evaluations have been charged since the last evaluated one.
	EveryGradEvals int64 `toml:"every_grad_evals" json:"every_grad_evals,omitempty"`
	// Log selects the steps 1, 2, 5, 10, 20, 50…
	Log bool `toml:"log" json:"log"`
	// Rows names the rows the metrics evaluate: RowsTest (the default),
	// RowsValidation or RowsDevelopment (see Rows). The published split's
	// keys omit it.
	Rows string `toml:"rows" json:"rows,omitempty"`
	// ValidationFraction is the share of the training rows that
	// RowsValidation holds out; zero in a file means
	// DefaultValidationFraction.
	ValidationFraction float64 `toml:"validation_fraction" json:"validation_fraction,omitempty"`
	// ValidationSeed selects the validation rows of RowsValidation.
	ValidationSeed int64 `toml:"validation_seed" json:"validation_seed,omitempty"`
}

// Method is one method entry of an experiment.
type Method struct {
	// Name is the table name under [methods], the method's display name.
	Name string
	// Kind is the registered method kind.
	Kind string
	// Particles are the particle counts, one cell each; empty means one
	// cell with N = 0 (the method's own default).
	Particles []int
	// Datasets are the datasets the method runs on, in the experiment's
	// order: the method's own datasets list when the file gives one (a
	// subset of the experiment's, for a method that only some datasets
	// support, such as a closed form that exists for Gaussian targets
	// only), else all of the experiment's.
	Datasets []string
	// Settings is the resolved settings value (of the kind's type).
	Settings any
	// Protocols are the protocols (ProtocolPaper, ProtocolFair) under
	// which this method is the arm that stands for its kind in the
	// report's claims; empty when it stands for none. At most one method
	// of a kind claims each protocol in an experiment. Protocols enter no
	// cache key: they say how results are read, not how they are made.
	Protocols []string

	kind *methodKind
}

// The protocols a method may claim (key protocols): the paper's as it
// states it, and the fair one of the report.
const (
	ProtocolPaper = "paper"
	ProtocolFair  = "fair"
)

// Protocols are the values of a method's protocols key.
var Protocols = []string{ProtocolPaper, ProtocolFair}

// Reference is the reference sampler of an experiment (HMC).
type Reference struct {
	Kind      string
	Particles int
	Settings  any

	kind *methodKind
}

type budgetDoc = Budget
type evalDoc = Schedule

type methodDoc struct {
	Kind      string         `toml:"kind"`
	Particles []int          `toml:"particles"`
	Datasets  []string       `toml:"datasets"`
	Settings  toml.Primitive `toml:"settings"`
	Protocols []string       `toml:"protocols"`
}

type refDoc struct {
	Kind      string         `toml:"kind"`
	Particles int            `toml:"particles"`
	Settings  toml.Primitive `toml:"settings"`
}

// expDoc is the shape of an experiment and of each of its profiles.
type expDoc struct {
	ID          string               `toml:"id"`
	Description string               `toml:"description"`
	Deviation   string               `toml:"deviation"`
	Seed        int64                `toml:"seed"`
	Role        string               `toml:"role"`
	Timed       bool                 `toml:"timed"`
	Datasets    []string             `toml:"datasets"`
	Splits      []int                `toml:"splits"`
	Budget      budgetDoc            `toml:"budget"`
	Eval        evalDoc              `toml:"eval"`
	Reference   refDoc               `toml:"reference"`
	Methods     map[string]methodDoc `toml:"methods"`
	// Data are the file's own datasets (RegisterFileDataset); only the
	// base of the file declares them.
	Data map[string]toml.Primitive `toml:"data"`
}

type fileDoc struct {
	expDoc
	Profiles map[string]toml.Primitive `toml:"profiles"`
	// Figures are declared in the base of the file only (figures.go).
	Figures []Figure `toml:"figures"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// decoder carries the state of one file's decoding for error reporting.
type decoder struct {
	file string
	src  []byte
	md   toml.MetaData
	reg  *Registry
	// cur holds the overrides while the profile they apply to resolves.
	cur *overrides
	// own are the file's declared datasets, built once.
	own map[string]*Dataset
}

// layer is one settings table: of the file (or a profile), or of the
// overrides (set), each decoded with the metadata of its document.
type layer struct {
	md  *toml.MetaData
	p   toml.Primitive
	set bool
}

func (d *decoder) errAt(key []string, format string, args ...any) *ConfigError {
	if len(key) > 0 && key[0] == setMark {
		k := key[1:]
		msg := fmt.Sprintf(format, args...)
		if d.cur != nil {
			msg = "--set " + d.cur.find(k).raw + ": " + msg
		}
		return &ConfigError{File: d.file, Key: toml.Key(k).String(), Msg: msg}
	}
	line := keyLine(d.src, key)
	if line == 0 && len(key) > 1 && key[0] == "figures" {
		line = figureKeyLine(d.src, key)
	}
	return &ConfigError{File: d.file, Line: line, Key: toml.Key(key).String(), Msg: fmt.Sprintf(format, args...)}
}

// missing reports a required key at the line of its table.
func (d *decoder) missing(key []string) *ConfigError {
	e := d.errAt(key[:len(key)-1], "required key is missing")
	e.Key = toml.Key(key).String()
	return e
}

// LoadFile reads an experiment file and resolves it under profile ("" for
// the base). Every profile of the file is checked, so that a mistake in the
// full profile is found by a quick run.
func LoadFile(reg *Registry, path, profile string) (*Experiment, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(reg, path, src, profile)
}

// Load is LoadFile on the contents src of the file named name.
func Load(reg *Registry, name string, src []byte, profile string) (*Experiment, error) {
	return LoadSet(reg, name, src, profile, nil)
}

// LoadSet is LoadFileSet on the contents src of the file named name.
func LoadSet(reg *Registry, name string, src []byte, profile string, sets []string) (*Experiment, error) {
	d := &decoder{file: name, src: src, reg: reg}
	ov, err := parseOverrides(name, sets)
	if err != nil {
		return nil, err
	}
	var doc fileDoc
	md, err := toml.NewDecoder(strings.NewReader(string(src))).Decode(&doc)
	if err != nil {
		return nil, d.libError(err)
	}
	d.md = md
	if profile != "" && !contains(Profiles, profile) {
		return nil, &ConfigError{File: name, Key: "profiles." + profile, Msg: fmt.Sprintf("unknown profile %q (profiles: %s)", profile, strings.Join(Profiles, ", "))}
	}
	var pnames []string
	for p := range doc.Profiles {
		if !contains(Profiles, p) {
			return nil, d.errAt([]string{"profiles", p}, "unknown profile %q (profiles: %s)", p, strings.Join(Profiles, ", "))
		}
		pnames = append(pnames, p)
	}
	sort.Strings(pnames)
	var want *Experiment
	for _, p := range append([]string{""}, pnames...) {
		e, err := d.resolve(&doc, p, nil)
		if err != nil {
			return nil, err
		}
		if p == profile {
			want = e
		}
	}
	if u := d.md.Undecoded(); len(u) > 0 {
		return nil, d.errAt(u[0], "unknown key")
	}
	if want == nil || ov != nil {
		// The profile is known but the file does not override anything,
		// or overrides apply to the wanted profile.
		p := profile
		if want == nil {
			p = ""
		}
		if want, err = d.resolve(&doc, p, ov); err != nil {
			return nil, err
		}
		want.Profile = profile
	}
	if ov != nil {
		d.cur = ov
		if u := ov.md.Undecoded(); len(u) > 0 {
			return nil, d.errAt(append([]string{setMark}, u[0]...), "unknown key")
		}
		d.cur = nil
		want.Overrides = ov.strings()
	}
	return want, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

var libErrRE = regexp.MustCompile(`^toml: line (\d+) \(last key "(.*)"\): (.*)$`)

// libError turns a decoding error of the toml package into a ConfigError.
func (d *decoder) libError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &ConfigError{File: d.file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
	}
	if m := libErrRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &ConfigError{File: d.file, Line: line, Key: m[2], Msg: m[3]}
	}
	return &ConfigError{File: d.file, Msg: err.Error()}
}

// resolve applies profile p (p == "" for none) to the base document, then
// the overrides ov (nil for none).
func (d *decoder) resolve(doc *fileDoc, p string, ov *overrides) (*Experiment, error) {
	d.cur = ov
	defer func() { d.cur = nil }()
	base := doc.expDoc
	// Settings are decoded in layers: the base table, the profile's, then
	// the overrides'.
	settings := map[string][]layer{}
	var refSettings []layer
	for name, m := range base.Methods {
		if d.md.IsDefined("methods", name, "settings") {
			settings[name] = []layer{{md: &d.md, p: m.Settings}}
		}
	}
	if d.md.IsDefined("reference", "settings") {
		refSettings = []layer{{md: &d.md, p: base.Reference.Settings}}
	}
	prefix := []string{}
	if p != "" {
		prefix = []string{"profiles", p}
		var pd expDoc
		if err := d.md.PrimitiveDecode(doc.Profiles[p], &pd); err != nil {
			return nil, d.libError(err)
		}
		if d.md.IsDefined("profiles", p, "data") {
			return nil, d.errAt([]string{"profiles", p, "data"}, "datasets are declared in the base of the file, not in a profile")
		}
		methods := base.Methods
		base.Methods = nil
		overlay(d.md, reflect.ValueOf(&base).Elem(), reflect.ValueOf(pd), prefix)
		base.Methods = make(map[string]methodDoc, len(methods))
		for name, m := range methods {
			base.Methods[name] = m
		}
		for name, pm := range pd.Methods {
			key := []string{"profiles", p, "methods", name}
			bm, ok := base.Methods[name]
			if !ok {
				return nil, d.errAt(key, "profile names method %q that the experiment does not define", name)
			}
			if d.md.IsDefined(append(key, "kind")...) && pm.Kind != bm.Kind {
				return nil, d.errAt(append(key, "kind"), "a profile cannot change a method's kind")
			}
			overlay(d.md, reflect.ValueOf(&bm).Elem(), reflect.ValueOf(pm), key)
			base.Methods[name] = bm
			if d.md.IsDefined(append(key, "settings")...) {
				settings[name] = append(settings[name], layer{md: &d.md, p: pm.Settings})
			}
		}
		if d.md.IsDefined("profiles", p, "reference", "settings") {
			refSettings = append(refSettings, layer{md: &d.md, p: pd.Reference.Settings})
		}
	}
	if ov != nil {
		if ov.md.IsDefined("data") {
			return nil, d.errAt([]string{setMark, "data"}, "datasets are declared in the file, not overridden")
		}
		if err := d.applyOverrides(&base, ov, settings, &refSettings); err != nil {
			return nil, err
		}
	}
	e, err := d.check(&base, p, prefix, settings, refSettings)
	if err != nil {
		return nil, err
	}
	if e.Figures, err = d.checkFigures(doc.Figures, e); err != nil {
		return nil, err
	}
	e.FiguresDeclared = d.md.IsDefined("figures")
	return e, nil
}

// overlay copies into dst every field of src that the document of md
// defines at path, recursing into tables; settings (Primitive) and methods
// are handled by the caller.
func overlay(md toml.MetaData, dst, src reflect.Value, path []string) {
	t := dst.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("toml")
		if name == "" || f.Type == reflect.TypeOf(toml.Primitive{}) || name == "methods" {
			continue
		}
		key := append(append([]string{}, path...), name)
		if !md.IsDefined(key...) {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			overlay(md, dst.Field(i), src.Field(i), key)
			continue
		}
		dst.Field(i).Set(src.Field(i))
	}
}

// where returns the key at which field of the resolved document was set: in
// an override (marked by setMark) when one defines it, in the profile when
// the profile defines it, else in the base.
func (d *decoder) where(prefix []string, key ...string) []string {
	if d.cur != nil && d.cur.md.IsDefined(key...) {
		return append([]string{setMark}, key...)
	}
	if len(prefix) > 0 {
		pk := append(append([]string{}, prefix...), key...)
		if d.md.IsDefined(pk...) {
			return pk
		}
	}
	return key
}

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

// settings decodes the layers of a settings table strictly into a fresh
// value of the kind's settings type and validates it.
func (d *decoder) settings(k *methodKind, layers []layer, key, prefix []string) (any, error) {
	v := reflect.New(k.settings)
	for _, l := range layers {
		if err := l.md.PrimitiveDecode(l.p, v.Interface()); err != nil {
			if l.set {
				return nil, d.setError(err)
			}
			return nil, d.libError(err)
		}
	}
	var verr error
	if val, ok := v.Interface().(Validator); ok {
		verr = val.Validate()
	} else if val, ok := v.Elem().Interface().(Validator); ok {
		verr = val.Validate()
	}
	if verr != nil {
		var fe *FieldError
		if se, ok := setting.As(verr); ok && !errors.As(verr, &fe) {
			// A method package's own field error: its field is the key.
			fe = &FieldError{Key: se.Field, Err: fmt.Errorf("%v: %s", se.Value, se.Reason)}
		}
		if fe != nil || errors.As(verr, &fe) {
			sub := strings.Split(fe.Key, ".")
			full := append(append([]string{}, key...), sub...)
			at := d.where(prefix, full...)
			if d.defined(at) {
				return nil, d.errAt(at, "%v", fe.Err)
			}
			// A default out of range: point at the settings table.
			e := d.errAt(d.where(prefix, key...), "%v", fe.Err)
			e.Key = toml.Key(full).String()
			return nil, e
		}
		return nil, d.errAt(key, "%v", verr)
	}
	// The canonical form must exist: it enters the cache key.
	if _, err := json.Marshal(v.Elem().Interface()); err != nil {
		return nil, d.errAt(key, "settings cannot be encoded: %v", err)
	}
	return v.Elem().Interface(), nil
}

// probe is a TOML value whose decoding always fails; the failure carries the
// position the toml package recorded for its key.
type probe struct{}

var errProbe = errors.New("probe")

func (probe) UnmarshalTOML(any) error { return errProbe }

// keyLine returns the line at which key is defined in src, or 0. The toml
// package keeps key positions private but reports them in its errors, so a
// document is decoded into a struct that holds only key, with a probe at
// its end.
func keyLine(src []byte, key []string) int {
	if len(key) == 0 {
		return 0
	}
	t := reflect.TypeOf(probe{})
	for i := len(key) - 1; i >= 0; i-- {
		t = reflect.StructOf([]reflect.StructField{{
			Name: "F", Type: t, Tag: reflect.StructTag(`toml:` + strconv.Quote(key[i])),
		}})
	}
	_, err := toml.Decode(string(src), reflect.New(t).Interface())
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}
