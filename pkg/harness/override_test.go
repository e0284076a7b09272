package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestOverridesApplyAfterProfile(t *testing.T) {
	ty := newToy()
	sets := []string{
		"methods.walk-a.settings.scale=0.25", // the quick profile sets 2.0
		"methods.walk-b.settings.inner.pull = 0.3",
		"splits=[1, 3]",
		"budget.steps=6",
		"methods.walk-a.particles=[5]",
		"budget.steps=7", // a later override of the same key wins
		`eval = { metrics = ["sq"] }`,
	}
	e, err := LoadSet(ty.reg, "toy.toml", []byte(base), "quick", sets)
	if err != nil {
		t.Fatal(err)
	}
	a := e.Methods[0].Settings.(walkSettings)
	if a.Scale != 0.25 || a.Steps != 12 {
		t.Errorf("walk-a settings %+v, want scale 0.25 (override) and steps 12 (base)", a)
	}
	if b := e.Methods[1].Settings.(walkSettings); b.Inner.Pull != 0.3 {
		t.Errorf("walk-b settings %+v", b)
	}
	if fmt.Sprint(e.Splits) != "[1 3]" || e.Budget.Steps != 7 || fmt.Sprint(e.Methods[0].Particles) != "[5]" ||
		fmt.Sprint(e.Eval.Metrics) != "[sq]" || e.Eval.Every != 2 { // a table sets only the keys it names, as in a profile
		t.Errorf("resolved splits %v budget %+v particles %v eval %+v", e.Splits, e.Budget, e.Methods[0].Particles, e.Eval)
	}
	want := "methods.walk-a.settings.scale=0.25 methods.walk-b.settings.inner.pull=0.3 splits=[1, 3] budget.steps=7 methods.walk-a.particles=[5] eval={ metrics = [\"sq\"] }"
	if got := strings.Join(e.Overrides, " "); got != want {
		t.Errorf("Overrides\n%s\nwant\n%s", got, want)
	}
	// Without overrides the experiment is as before and records none.
	plain, err := LoadSet(ty.reg, "toy.toml", []byte(base), "quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Overrides != nil || plain.Methods[0].Settings.(walkSettings).Scale != 2 {
		t.Errorf("no overrides: %+v", plain)
	}
}

// TestOverrideKeys checks that an override changes the keys of exactly
// the cells whose resolved values it changes, as the same edit of the file
// would.
func TestOverrideKeys(t *testing.T) {
	ty := newToy()
	r := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 1})
	keys := func(sets ...string) map[string]string {
		e, err := LoadSet(ty.reg, "toy.toml", []byte(base), "", sets)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, c := range Cells(e) {
			st, err := r.Status(c)
			if err != nil {
				t.Fatal(err)
			}
			m[c.ID] = st.Key
		}
		return m
	}
	plain := keys()
	same := keys("splits=[0, 1]", "methods.walk-a.settings.scale=0.5")
	for id, k := range plain {
		if same[id] != k {
			t.Errorf("%s: an override to the file's own value changed the key", id)
		}
	}
	changed := keys("methods.walk-b.settings.steps=3")
	for id, k := range plain {
		isB := strings.Contains(id, "/walk-b/")
		if (changed[id] != k) != isB {
			t.Errorf("%s: key changed %v, want %v", id, changed[id] != k, isB)
		}
	}
	edited := strings.Replace(base, "[methods.walk-b.settings.inner]", "[methods.walk-b.settings]\nsteps = 3\n[methods.walk-b.settings.inner]", 1)
	e, err := Load(ty.reg, "toy.toml", []byte(edited), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Cells(e) {
		st, _ := r.Status(c)
		if st.Key != changed[c.ID] {
			t.Errorf("%s: the override and the same edit of the file give different keys", c.ID)
		}
	}
}

func TestOverrideErrors(t *testing.T) {
	ty := newToy()
	for _, tc := range []struct {
		set, key, msg string
	}{
		{"methods.walk-a.settings.stepz=3", "methods.walk-a.settings.stepz", "unknown key"},
		{"colour=1", "colour", "unknown key"},
		{"methods.walk-a.settings.steps=\"x\"", "methods.walk-a.settings.steps", "incompatible types"},
		{"splits=\"zero\"", "splits", "incompatible types"},
		{"methods.walk-a.settings.scale=-1.0", "methods.walk-a.settings.scale", "out of range"},
		{"methods.walk-b.settings.inner.pull=2.0", "methods.walk-b.settings.inner.pull", "out of range"},
		{"budget.steps=-2", "budget.steps", "out of range"},
		{"splits=[]", "splits", "at least one split"},
		{"datasets=[gauss]", "", "is not TOML"},
		{"datasets=[\"gaus\"]", "datasets", "unknown dataset"},
		{"methods.walk-c.particles=[1]", "methods.walk-c", "does not define"},
		{"methods.walk-a.kind=\"other\"", "methods.walk-a.kind", "cannot change"},
		{"profiles.quick.splits=[0]", "", "without profiles"},
		{"splits", "", "want KEY=VALUE"},
		{"=3", "", "want KEY=VALUE"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			_, err := LoadSet(ty.reg, "toy.toml", []byte(base), "", []string{tc.set})
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a ConfigError", err)
			}
			if ce.File != "toy.toml" || ce.Line != 0 || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) || !strings.Contains(ce.Msg, "--set ") {
				t.Errorf("got %q (line %d key %q), want key %q, a message naming the override and containing %q", err, ce.Line, ce.Key, tc.key, tc.msg)
			}
		})
	}
	// Conflicting overrides.
	_, err := LoadSet(ty.reg, "toy.toml", []byte(base), "", []string{"budget.steps=3", "budget={steps=4}"})
	if err == nil || !strings.Contains(err.Error(), "conflicts with --set budget.steps=3") {
		t.Errorf("conflict: %v", err)
	}
}

// An empty particles list given by --set is refused like one in the file,
// naming the override.
func TestOverrideEmptyParticles(t *testing.T) {
	ty := newToy()
	_, err := LoadSet(ty.reg, "toy.toml", []byte(base), "", []string{"methods.walk-a.particles=[]"})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "methods.walk-a.particles" || !strings.Contains(ce.Msg, "--set methods.walk-a.particles=[]") ||
		!strings.Contains(ce.Msg, "at least one particle count") {
		t.Fatalf("got %v, want a ConfigError at key methods.walk-a.particles naming the override", err)
	}
}

// A run with overrides keeps the cells they change apart from the file's
// own (under <profile>/<id>@<namespace>/): the file's cells stay done, and
// read with the same overrides, every cell is done; the cells the
// overrides leave as the file has them are the file's own, shared.
func TestOverrideNamespace(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	load := func(sets ...string) []*Cell {
		t.Helper()
		e, err := LoadSet(ty.reg, "toy.toml", []byte(base), "quick", sets)
		if err != nil {
			t.Fatal(err)
		}
		return Plan([]*Experiment{e})
	}
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	run := func(cells []*Cell) *Summary {
		t.Helper()
		sum, err := r.Run(context.Background(), cells)
		if err != nil || sum.Err() != nil {
			t.Fatalf("run: %v %v", sum, err)
		}
		return sum
	}
	plain := load()
	run(plain)
	files := readResults(t, dir)
	if len(files) != 2 {
		t.Fatalf("the file's run wrote %v", files)
	}

	// walk-b's settings changed, walk-a's particle count added one.
	sets := []string{"methods.walk-b.settings.steps=3", "methods.walk-a.particles=[2, 5]"}
	over := load(sets...)
	ns := over[0].Experiment.Namespace
	if len(ns) != 8 {
		t.Fatalf("namespace %q", ns)
	}
	where := map[string]string{}
	for _, c := range over {
		csv, _ := r.Paths(c)
		rel, _ := filepath.Rel(dir, csv)
		where[c.ID] = filepath.ToSlash(rel)
	}
	want := map[string]string{
		"toy/walk-a/gauss/s0/n2": "quick/toy/walk-a/gauss/s0/n2.csv", // the file's own cell
		"toy/walk-a/gauss/s0/n5": "quick/toy@" + ns + "/walk-a/gauss/s0/n5.csv",
		"toy/walk-b/gauss/s0":    "quick/toy@" + ns + "/walk-b/gauss/s0.csv",
	}
	if fmt.Sprint(where) != fmt.Sprint(want) {
		t.Fatalf("paths\n%v\nwant\n%v", where, want)
	}
	before := ty.runs.Load()
	sum := run(over)
	if sum.Cached != 1 || ty.runs.Load()-before != 2 {
		t.Errorf("the override's run: %d cached, %d computed; want the file's own cell cached and 2 computed", sum.Cached, ty.runs.Load()-before)
	}
	after := readResults(t, dir)
	for p, b := range files {
		if after[p] != b {
			t.Errorf("%s changed", p)
		}
	}
	for _, cells := range [][]*Cell{plain, over} {
		n, err := r.Count(cells)
		if err != nil || n.Done != len(cells) {
			t.Errorf("count %v, %v: want every cell done", n, err)
		}
	}
	// The namespace depends on what the overrides say, not how.
	if e, err := LoadSet(ty.reg, "toy.toml", []byte(base), "quick", []string{"methods.walk-a.particles = [2,5]", "methods.walk-b.settings = { steps = 3 }"}); err != nil || e.Namespace != ns {
		t.Errorf("reordered overrides: namespace %q, %v; want %q", e.Namespace, err, ns)
	}
	if e, _ := LoadSet(ty.reg, "toy.toml", []byte(base), "quick", []string{"methods.walk-b.settings.steps=4"}); e.Namespace == ns {
		t.Errorf("another value has the same namespace")
	}
	// Overrides that only select cells leave them the file's own.
	for _, c := range load("splits=[0]", "methods.walk-a.particles=[2]") {
		if c.Namespace != "" {
			t.Errorf("%s: namespace %q for a cell the file has", c.ID, c.Namespace)
		}
	}
}
