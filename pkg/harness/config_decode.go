package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mmdfw/mmdfw/pkg/setting"
)

// The decoding of an experiment file (config.go holds its schema,
// config_validate.go its checks): strict TOML decoding, the profile and
// --set layers, the errors at a file, line and key, and the line-finding
// of keys the TOML library reports without one.

// ConfigError is a problem in an experiment file, at a line and key.
type ConfigError struct {
	File string
	// Line is 1-based; 0 when the problem has no line (a missing
	// top-level key).
	Line int
	// Key is the dotted TOML key at fault.
	Key string
	Msg string
	// err, when set, is what errors.Is sees through the ConfigError
	// (ErrNoProfile).
	err error
}

// ErrNoProfile is what errors.Is finds in the *ConfigError of a file
// loaded under a profile it does not define.
var ErrNoProfile = errors.New("profile not defined by the file")

// Unwrap returns the sentinel the error stands for (ErrNoProfile), nil for
// most.
func (e *ConfigError) Unwrap() error { return e.err }

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
	src, err := readConfigFile(path)
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
	if err := checkConfigShape(name, src); err != nil {
		return nil, err
	}
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
	var want, plain *Experiment
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
		return nil, d.errAt(u[0], "unknown key%s", reg.renamedHint(u[0]))
	}
	if want == nil {
		// A profile the file does not define would run the base settings
		// under the profile's name, and store them in its folder.
		has := "it defines none"
		if len(pnames) > 0 {
			has = "its profiles: " + strings.Join(pnames, ", ")
		}
		return nil, &ConfigError{File: name, Key: "profiles." + profile,
			Msg: fmt.Sprintf("the file has no [profiles.%s] (%s): leave --profile out to run its base settings, or add a [profiles.%s] table (an empty one runs the base settings under %s)", profile, has, profile, profile),
			err: ErrNoProfile}
	}
	if ov != nil {
		// Overrides apply to the wanted profile.
		plain = want
		if want, err = d.resolve(&doc, profile, ov); err != nil {
			return nil, err
		}
		want.Profile = profile
	}
	if ov != nil {
		d.cur = ov
		if u := ov.md.Undecoded(); len(u) > 0 {
			return nil, d.errAt(append([]string{setMark}, u[0]...), "unknown key%s", reg.renamedHint(u[0]))
		}
		d.cur = nil
		want.Overrides = ov.strings()
		if want.Namespace, err = ov.namespace(); err != nil {
			return nil, &ConfigError{File: name, Msg: "--set: " + err.Error()}
		}
		want.ownCells = sameCells(reg, plain, want)
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
	for _, m := range e.Methods {
		d.estimateMemory(e, m, prefix)
	}
	if e.Figures, err = d.checkFigures(doc.Figures, e); err != nil {
		return nil, err
	}
	e.FiguresDeclared = d.md.IsDefined("figures")
	if e.Report, err = d.checkReport(doc.Report); err != nil {
		return nil, err
	}
	if e.Choose, err = d.checkChoose(doc.Choose, e.Role, doc.Eval.Metrics, doc.Methods); err != nil {
		return nil, err
	}
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

// validate calls the Validate method of the settings value v points to,
// whether the pointer or the value has it; nil when neither has one.
func validate(v reflect.Value) error {
	if val, ok := v.Interface().(Validator); ok {
		return val.Validate()
	}
	if val, ok := v.Elem().Interface().(Validator); ok {
		return val.Validate()
	}
	return nil
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
	if verr := validate(v); verr != nil {
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

// checkReport checks the names of the file's report key: each a
// non-empty name of lower-case letters, digits and hyphens, none twice.
// Which plug-ins exist is the report's business, not the harness's.
func (d *decoder) checkReport(names []string) ([]string, error) {
	seen := map[string]bool{}
	for _, n := range names {
		ok := n != ""
		for _, r := range n {
			ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
		}
		if !ok {
			return nil, d.errAt([]string{"report"}, "%q is not a plug-in name (lower-case letters, digits and hyphens)", n)
		}
		if seen[n] {
			return nil, d.errAt([]string{"report"}, "%q is named twice", n)
		}
		seen[n] = true
	}
	return names, nil
}
