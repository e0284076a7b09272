package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// setMark starts a key path that an override (--set) defines rather than
// the file; errAt reports such keys without a line, naming the override.
const setMark = "\x00set"

// override is one KEY=VALUE of the command line.
type override struct {
	raw string   // as given
	key []string // the key path
}

// overrides is a parsed list of KEY=VALUE, decoded like a profile.
type overrides struct {
	list []override
	md   toml.MetaData
	doc  expDoc
	src  string // the overrides as one TOML document
}

// namespace returns Experiment.Namespace for the overrides: the first 8
// hex digits of the sha256 of their TOML document decoded and written as
// JSON (keys sorted), the same whatever the order of the overrides or the
// spelling of their values (0.01 and 1e-2, [0,1] and [0, 1]).
func (o *overrides) namespace() (string, error) {
	var v map[string]any
	if _, err := toml.Decode(o.src, &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4]), nil
}

// sameCells returns the ids of the cells of over (the experiment with
// overrides) that plain (the same file and profile without them) has
// with the same key document but for the data, which depends on the
// dataset and split of the id alone: the cells the overrides leave as
// the file has them.
func sameCells(reg *Registry, plain, over *Experiment) map[string]bool {
	docs := map[string][]byte{}
	for _, c := range Cells(plain) {
		if b, err := json.Marshal(configDoc(reg, c)); err == nil {
			docs[c.ID] = b
		}
	}
	same := map[string]bool{}
	for _, c := range Cells(over) {
		b, err := json.Marshal(configDoc(reg, c))
		if pb, ok := docs[c.ID]; ok && err == nil && string(pb) == string(b) {
			same[c.ID] = true
		}
	}
	return same
}

// strings returns the overrides as KEY=VALUE, in the order they apply.
func (o *overrides) strings() []string {
	var s []string
	for _, v := range o.list {
		s = append(s, v.raw)
	}
	return s
}

// find returns the override that defines key or a table around or inside
// it.
func (o *overrides) find(key []string) override {
	for _, v := range o.list {
		if isPrefix(v.key, key) || isPrefix(key, v.key) {
			return v
		}
	}
	return override{raw: toml.Key(key).String()}
}

func isPrefix(p, k []string) bool {
	if len(p) > len(k) {
		return false
	}
	for i := range p {
		if p[i] != k[i] {
			return false
		}
	}
	return true
}

// splitSet cuts KEY=VALUE at the first '=' outside a quoted key.
func splitSet(s string) (key, value string, ok bool) {
	var quote rune
	for i, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
		}
	}
	return "", "", false
}

// parseOverrides parses KEY=VALUE overrides of the experiment file named
// file: KEY is a dotted TOML key of the experiment (as the file would
// write it, without profiles.<name>), VALUE a TOML value. A later override
// of the same key replaces an earlier one; an override of a table and one
// of a key inside it conflict.
func parseOverrides(file string, sets []string) (*overrides, error) {
	if len(sets) == 0 {
		return nil, nil
	}
	bad := func(raw, format string, args ...any) error {
		return &ConfigError{File: file, Msg: fmt.Sprintf("--set %s: ", raw) + fmt.Sprintf(format, args...)}
	}
	o := &overrides{}
	var lines []string
	for _, raw := range sets {
		if strings.ContainsAny(raw, "\n\r") {
			return nil, bad(raw, "one KEY=VALUE per --set")
		}
		k, v, ok := splitSet(raw)
		if !ok || k == "" || v == "" {
			return nil, bad(raw, "want KEY=VALUE, a TOML key and value (methods.svgd.settings.step=0.01, splits=[0,1])")
		}
		var probe map[string]any
		md, err := toml.Decode(k+" = 0", &probe)
		if err != nil || len(md.Keys()) == 0 {
			return nil, bad(raw, "%q is not a TOML key", k)
		}
		keys := md.Keys()
		key := []string(keys[len(keys)-1])
		if _, err := toml.Decode(k+" = "+v, &probe); err != nil {
			var pe toml.ParseError
			msg := err.Error()
			if errors.As(err, &pe) {
				msg = pe.Message
			}
			return nil, bad(raw, "the value %s is not TOML: %s (strings are quoted: datasets=[\"gauss2d\"])", v, msg)
		}
		if key[0] == "profiles" {
			return nil, bad(raw, "an override applies to the experiment as the profile resolves it: give the key without profiles.<name>")
		}
		ov := override{raw: toml.Key(key).String() + "=" + v, key: key}
		replaced := false
		for i, prev := range o.list {
			switch {
			case toml.Key(prev.key).String() == toml.Key(key).String():
				o.list[i], lines[i], replaced = ov, toml.Key(key).String()+" = "+v, true
			case isPrefix(prev.key, key) || isPrefix(key, prev.key):
				return nil, bad(raw, "conflicts with --set %s", prev.raw)
			}
		}
		if !replaced {
			o.list = append(o.list, ov)
			lines = append(lines, toml.Key(key).String()+" = "+v)
		}
	}
	src := strings.Join(lines, "\n") + "\n"
	md, err := toml.Decode(src, &o.doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line >= 1 && pe.Position.Line <= len(o.list) {
			v := o.list[pe.Position.Line-1]
			return nil, &ConfigError{File: file, Key: toml.Key(v.key).String(), Msg: "--set " + v.raw + ": " + pe.Message}
		}
		if m := libErrRE.FindStringSubmatch(err.Error()); m != nil {
			k := strings.Split(m[2], ".")
			v := o.find(k)
			return nil, &ConfigError{File: file, Key: m[2], Msg: "--set " + v.raw + ": " + m[3]}
		}
		return nil, &ConfigError{File: file, Msg: "--set: " + err.Error()}
	}
	o.md, o.src = md, src
	return o, nil
}

// setError turns an error of decoding an override's settings into a
// ConfigError naming the override.
func (d *decoder) setError(err error) error {
	if m := libErrRE.FindStringSubmatch(err.Error()); m != nil && d.cur != nil {
		v := d.cur.find(strings.Split(m[2], "."))
		return &ConfigError{File: d.file, Key: m[2], Msg: "--set " + v.raw + ": " + m[3]}
	}
	return &ConfigError{File: d.file, Msg: "--set: " + err.Error()}
}

// defined reports whether key (as where returns it) is defined by the file
// or by an override.
func (d *decoder) defined(key []string) bool {
	if len(key) > 0 && key[0] == setMark {
		return true
	}
	return d.md.IsDefined(key...)
}

// applyOverrides lays the overrides over the resolved document, as a
// profile is laid over the base: fields replace, settings add a layer.
func (d *decoder) applyOverrides(base *expDoc, o *overrides, settings map[string][]layer, refSettings *[]layer) error {
	methods := base.Methods
	base.Methods = nil
	overlay(o.md, reflect.ValueOf(base).Elem(), reflect.ValueOf(o.doc), nil)
	base.Methods = methods
	for name, om := range o.doc.Methods {
		key := []string{"methods", name}
		bm, ok := base.Methods[name]
		if !ok {
			return d.errAt(append([]string{setMark}, key...), "names method %q that the experiment does not define", name)
		}
		if o.md.IsDefined(append(key, "kind")...) && om.Kind != bm.Kind {
			return d.errAt(append([]string{setMark}, append(key, "kind")...), "an override cannot change a method's kind")
		}
		overlay(o.md, reflect.ValueOf(&bm).Elem(), reflect.ValueOf(om), key)
		base.Methods[name] = bm
		if o.md.IsDefined(append(key, "settings")...) {
			settings[name] = append(settings[name], layer{md: &o.md, p: om.Settings, set: true})
		}
	}
	if o.md.IsDefined("reference", "settings") {
		*refSettings = append(*refSettings, layer{md: &o.md, p: o.doc.Reference.Settings, set: true})
	}
	return nil
}

// LoadFileSet is LoadFile with overrides: every KEY=VALUE of sets (a
// dotted TOML key of the experiment and a TOML value, as the file would
// write them: methods.svgd.settings.step=0.01, splits=[0,1]) is applied to
// the experiment as profile resolves it, and decoded as strictly as the
// file: an unknown key, a value of the wrong type or out of range is a
// *ConfigError naming the override. Overrides change cells exactly as the
// same edit of the file would, so they enter the cache keys through the
// values they change (an override that changes nothing keeps the cached
// results); Experiment.Overrides records them for the provenance.
func LoadFileSet(reg *Registry, path, profile string, sets []string) (*Experiment, error) {
	src, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	return LoadSet(reg, path, src, profile, sets)
}
