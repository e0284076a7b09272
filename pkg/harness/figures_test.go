package harness

import (
	"errors"
	"strings"
	"testing"
)

// withFigures inserts figure tables before the profiles of base.
func withFigures(figs string) string {
	i := strings.Index(base, "[profiles.quick]")
	return base[:i] + figs + "\n" + base[i:]
}

const twoFigures = `[[figures]]
id = "walks"
y = "mean0"
methods = ["walk-a"]

[[figures]]
id = "both"
title = "Both walks"
x = "gradients"
y = ["mean0", "method:spread"]
log_y = false
band = "none"
[[figures.panels]]
title = "a"
methods = ["walk-a"]
[[figures.panels]]
title = "b"
methods = ["walk-b"]
`

func TestFiguresDecode(t *testing.T) {
	ty := newToy()
	for _, p := range []string{"", "quick"} {
		e, err := Load(ty.reg, "toy.toml", []byte(withFigures(twoFigures)), p)
		if err != nil {
			t.Fatal(err)
		}
		if !e.FiguresDeclared || len(e.Figures) != 2 {
			t.Fatalf("profile %q: figures %+v, declared %v", p, e.Figures, e.FiguresDeclared)
		}
		a, b := e.Figures[0], e.Figures[1]
		// Defaults: the experiment id as title, particles for an untimed
		// experiment, a band of ± one sd.
		if a.ID != "walks" || a.Title != "toy" || a.X != XParticles || len(a.Y) != 1 || a.Y[0] != "mean0" || a.Band != BandSD || a.LogY != nil {
			t.Errorf("profile %q: first figure %+v", p, a)
		}
		if b.Title != "Both walks" || b.X != XGradients || strings.Join(b.Y, " ") != "mean0 method:spread" || b.LogY == nil || *b.LogY ||
			b.Band != BandNone || len(b.Panels) != 2 || b.Panels[1].Methods[0] != "walk-b" {
			t.Errorf("profile %q: second figure %+v", p, b)
		}
	}
	e, err := Load(ty.reg, "toy.toml", []byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.FiguresDeclared || len(e.Figures) != 0 {
		t.Errorf("a file without figures: %+v, declared %v", e.Figures, e.FiguresDeclared)
	}
	e, err = Load(ty.reg, "toy.toml", []byte("figures = []\n"+base), "")
	if err != nil {
		t.Fatal(err)
	}
	if !e.FiguresDeclared || len(e.Figures) != 0 {
		t.Errorf("figures = []: %+v, declared %v", e.Figures, e.FiguresDeclared)
	}
}

// The line numbers count in base with the figures inserted before
// [profiles.quick] (line 27 of base): the first [[figures]] header is at
// line 27.
func TestFiguresErrors(t *testing.T) {
	ty := newToy()
	for _, c := range []struct {
		name, figs string
		line       int
		key, msg   string
	}{
		{"unknown metric", "[[figures]]\nid = \"f\"\ny = \"nope\"\n", 29, "figures[0].y", `figure "f": unknown metric "nope"`},
		{"unknown metric in a list", "[[figures]]\nid = \"f\"\ny = \"mean0\"\n[[figures]]\nid = \"g\"\ny = [\"sq\", \"nope\"]\n", 32, "figures[1].y", `figure "g": unknown metric "nope"`},
		{"unknown method", "[[figures]]\nid = \"f\"\ny = \"sq\"\nmethods = [\"walk-c\"]\n", 30, "figures[0].methods", `figure "f": unknown method "walk-c" (the experiment's methods: walk-a, walk-b)`},
		{"unknown axis", "[[figures]]\nid = \"f\"\nx = \"minutes\"\ny = \"sq\"\n", 29, "figures[0].x", `figure "f": unknown axis "minutes"`},
		{"unknown band", "[[figures]]\nid = \"f\"\ny = \"sq\"\nband = \"iqr\"\n", 30, "figures[0].band", `unknown band "iqr"`},
		{"unknown fit", "[[figures]]\nid = \"f\"\ny = \"sq\"\nfit = \"cubic\"\n", 30, "figures[0].fit", `unknown fit "cubic"`},
		{"rate against time", "[[figures]]\nid = \"f\"\nx = \"seconds\"\ny = \"sq\"\nfit = \"rate\"\n", 31, "figures[0].fit", "a rate is fitted against particles"},
		{"missing id", "[[figures]]\ny = \"sq\"\n", 27, "figures[0].id", "required key is missing"},
		{"bad id", "[[figures]]\nid = \"F/1\"\ny = \"sq\"\n", 28, "figures[0].id", "not a valid figure id"},
		{"twice", "[[figures]]\nid = \"f\"\ny = \"sq\"\n[[figures]]\nid = \"f\"\ny = \"sq\"\n", 31, "figures[1].id", `figure id "f" is declared twice`},
		{"no metric", "[[figures]]\nid = \"f\"\ny = []\n", 29, "figures[0].y", "at least one metric is needed"},
		{"panel method", "[[figures]]\nid = \"f\"\ny = \"sq\"\n[[figures.panels]]\ntitle = \"p\"\nmethods = [\"walk-z\"]\n", 32, "figures[0].panels[0].methods", `unknown method "walk-z"`},
		{"fallback of a list", "[[figures]]\nid = \"f\"\ny = [\"sq\", \"mean0\"]\nfallback = \"sq\"\n", 30, "figures[0].fallback", "a fallback needs a single metric"},
		{"unknown key", "[[figures]]\nid = \"f\"\ny = \"sq\"\nlogy = true\n", 30, "figures.logy", "unknown key"},
	} {
		_, err := Load(ty.reg, "toy.toml", []byte(withFigures(c.figs)), "")
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: error %v, want a *ConfigError", c.name, err)
			continue
		}
		if ce.File != "toy.toml" || ce.Line != c.line || ce.Key != c.key || !strings.Contains(ce.Msg, c.msg) {
			t.Errorf("%s: %v (line %d, key %s), want line %d, key %s, %q", c.name, err, ce.Line, ce.Key, c.line, c.key, c.msg)
		}
	}
	// A profile cannot declare figures.
	src := base + "[[profiles.quick.figures]]\nid = \"f\"\ny = \"sq\"\n"
	if _, err := Load(ty.reg, "toy.toml", []byte(src), ""); err == nil || !strings.Contains(err.Error(), "profiles.quick.figures") {
		t.Errorf("figures in a profile: %v, want an error naming profiles.quick.figures", err)
	}
}

// Figures are presentation: declaring or changing them changes no cell's
// cache key.
func TestFiguresOutsideCacheKey(t *testing.T) {
	ty := newToy()
	keys := func(src string) []string {
		e, err := Load(ty.reg, "toy.toml", []byte(src), "")
		if err != nil {
			t.Fatal(err)
		}
		r := NewRunner(ty.reg, Options{Results: t.TempDir()})
		var out []string
		for _, c := range Cells(e) {
			k, err := r.key(c)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k.Key)
		}
		return out
	}
	a, b := keys(base), keys(withFigures(twoFigures))
	if len(a) == 0 || strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("cache keys with figures %v, without %v", b, a)
	}
}

// A figure may select its methods by kind and typed settings, resolved
// under each profile; an unset setting holds its zero value.
func TestFiguresSelect(t *testing.T) {
	ty := newToy()
	for _, c := range []struct {
		sel, want string
	}{
		{`where = { steps = 12 }`, "walk-a"},
		{`where = { steps = 0 }`, "walk-b"},
		{`kinds = ["walk"]`, "walk-a walk-b"},
		{"kinds = [\"walk\"]\nwhere = { steps = 12 }\nmethods = [\"walk-a\", \"walk-b\"]", "walk-a"},
	} {
		src := withFigures("[[figures]]\nid = \"f\"\ny = \"sq\"\n" + c.sel + "\n")
		e, err := Load(ty.reg, "toy.toml", []byte(src), "quick")
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		if got := strings.Join(e.Figures[0].Methods, " "); got != c.want {
			t.Errorf("%s: methods %q, want %q", c.sel, got, c.want)
		}
	}
	for _, c := range []struct {
		sel, key, msg string
	}{
		{`where = { steps = 7 }`, "figures[0].where", "the selection matches no method"},
		{`where = { nope = 1 }`, "figures[0].where.nope", `no selected method kind has a setting "nope"`},
		{`where = { steps = "x" }`, "figures[0].where.steps", "cannot be compared"},
		{`kinds = ["hmc"]`, "figures[0].kinds", `unknown method "hmc"`},
		// Under the quick profile walk-a's scale is 2: the selection of
		// the base protocol matches nothing there.
		{`where = { scale = 0.5 }`, "figures[0].where", "matches no method"},
	} {
		src := withFigures("[[figures]]\nid = \"f\"\ny = \"sq\"\n" + c.sel + "\n")
		_, err := Load(ty.reg, "toy.toml", []byte(src), "")
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != c.key || !strings.Contains(ce.Msg, c.msg) || ce.Line != 30 {
			t.Errorf("%s: %v, want line 30, key %s, %q", c.sel, err, c.key, c.msg)
		}
	}
}
