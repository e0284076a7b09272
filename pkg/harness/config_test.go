package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// base is a valid experiment; the line numbers in the tests below refer to
// it after the edit each test makes.
const base = `id = "toy"
description = "a toy experiment"
seed = 7
datasets = ["gauss"]
splits = [0, 1]

[budget]
steps = 10

[eval]
metrics = ["mean0", "sq"]
every = 2

[methods.walk-a]
kind = "walk"
particles = [3, 4]

[methods.walk-a.settings]
steps = 12
scale = 0.5

[methods.walk-b]
kind = "walk"
[methods.walk-b.settings.inner]
pull = 0.1

[profiles.quick]
splits = [0]
[profiles.quick.budget]
steps = 4
[profiles.quick.methods.walk-a]
particles = [2]
[profiles.quick.methods.walk-a.settings]
scale = 2.0
`

func TestLoadBase(t *testing.T) {
	ty := newToy()
	e, err := Load(ty.reg, "toy.toml", []byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "toy" || e.Seed != 7 || len(e.Splits) != 2 || e.Budget.Steps != 10 || e.Eval.Every != 2 {
		t.Errorf("base resolved wrongly: %+v", e)
	}
	if len(e.Methods) != 2 || e.Methods[0].Name != "walk-a" || e.Methods[1].Name != "walk-b" {
		t.Fatalf("methods not in file order: %v", e.Methods)
	}
	a := e.Methods[0].Settings.(walkSettings)
	if a.Steps != 12 || a.Scale != 0.5 {
		t.Errorf("walk-a settings: %+v", a)
	}
	if b := e.Methods[1].Settings.(walkSettings); b.Inner.Pull != 0.1 || b.Steps != 0 {
		t.Errorf("walk-b settings: %+v", b)
	}
	if n := len(Cells(e)); n != 2*2+2 {
		t.Errorf("got %d cells, want 6", n)
	}
}

func TestLoadProfile(t *testing.T) {
	ty := newToy()
	e, err := Load(ty.reg, "toy.toml", []byte(base), "quick")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(e.Splits) != "[0]" || e.Budget.Steps != 4 || e.Eval.Every != 2 || e.Seed != 7 {
		t.Errorf("quick resolved wrongly: splits %v budget %+v eval %+v", e.Splits, e.Budget, e.Eval)
	}
	a := e.Methods[0].Settings.(walkSettings)
	// scale comes from the profile, steps from the base.
	if a.Steps != 12 || a.Scale != 2 || fmt.Sprint(e.Methods[0].Particles) != "[2]" {
		t.Errorf("walk-a under quick: %+v %v", a, e.Methods[0].Particles)
	}
	if b := e.Methods[1].Settings.(walkSettings); b.Inner.Pull != 0.1 {
		t.Errorf("walk-b under quick: %+v", b)
	}
	ids := []string{}
	for _, c := range Cells(e) {
		ids = append(ids, c.ID)
	}
	want := "toy/walk-a/gauss/s0/n2 toy/walk-b/gauss/s0"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("cells: got %s, want %s", got, want)
	}
	// The full profile is not defined: asking for it is an error naming
	// the file and the profiles it has, not the base under full's name.
	_, err = Load(ty.reg, "toy.toml", []byte(base), "full")
	if !errors.Is(err, ErrNoProfile) || err.Error() != "toy.toml: key profiles.full: the file has no [profiles.full] (its profiles: quick): leave --profile out to run its base settings, or add a [profiles.full] table (an empty one runs the base settings under full)" {
		t.Errorf("full: %v", err)
	}
	// Nor are overrides a way around it.
	if _, err := LoadSet(ty.reg, "toy.toml", []byte(base), "full", []string{"splits=[0]"}); !errors.Is(err, ErrNoProfile) {
		t.Errorf("full with --set: %v", err)
	}
	// An empty table runs the base settings under the profile's name.
	f, err := Load(ty.reg, "toy.toml", []byte(base+"\n[profiles.full]\n"), "full")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Splits) != 2 || f.Profile != "full" {
		t.Errorf("full: %+v", f)
	}
	// A file with no profile at all names none.
	noProf := base[:strings.Index(base, "[profiles.")]
	if _, err := Load(ty.reg, "toy.toml", []byte(noProf), "quick"); err == nil || !strings.Contains(err.Error(), "no [profiles.quick] (it defines none)") {
		t.Errorf("no profiles: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	ty := newToy()
	for _, tc := range []struct {
		name    string
		edit    func(string) string
		profile string
		line    int
		key     string
		msg     string
	}{
		{"unknown top-level key", func(s string) string { return strings.Replace(s, "seed = 7", "seed = 7\ncolour = \"red\"", 1) }, "", 4, "colour", "unknown key"},
		{"unknown settings key", func(s string) string { return strings.Replace(s, "scale = 0.5", "scale = 0.5\nstepz = 3", 1) }, "", 21, "methods.walk-a.settings.stepz", "unknown key"},
		{"unknown nested settings key", func(s string) string { return strings.Replace(s, "pull = 0.1", "pull = 0.1\npush = 1", 1) }, "", 26, "methods.walk-b.settings.inner.push", "unknown key"},
		{"unknown key in profile settings", func(s string) string { return s + "stepz = 1\n" }, "", 35, "profiles.quick.methods.walk-a.settings.stepz", "unknown key"},
		{"wrong type", func(s string) string { return strings.Replace(s, "splits = [0, 1]", `splits = "zero"`, 1) }, "", 5, "splits", "incompatible types"},
		{"wrong type in settings", func(s string) string { return strings.Replace(s, "steps = 12", `steps = "twelve"`, 1) }, "", 19, "methods.walk-a.settings.steps", "incompatible types"},
		{"missing kind", func(s string) string { return strings.Replace(s, "kind = \"walk\"\nparticles", "particles", 1) }, "", 14, "methods.walk-a.kind", "required"},
		{"missing metrics", func(s string) string { return strings.Replace(s, "metrics = [\"mean0\", \"sq\"]\n", "", 1) }, "", 10, "eval.metrics", "required"},
		{"out of range particles", func(s string) string { return strings.Replace(s, "particles = [3, 4]", "particles = [3, 0]", 1) }, "", 16, "methods.walk-a.particles", "out of range"},
		{"empty particles", func(s string) string { return strings.Replace(s, "particles = [3, 4]", "particles = []", 1) }, "", 16, "methods.walk-a.particles", "at least one particle count"},
		{"empty particles in profile", func(s string) string { return strings.Replace(s, "particles = [2]", "particles = []", 1) }, "quick", 32, "profiles.quick.methods.walk-a.particles", "at least one particle count"},
		{"out of range budget", func(s string) string { return strings.Replace(s, "steps = 10", "steps = -1", 1) }, "", 8, "budget.steps", "out of range"},
		{"out of range gradient budget", func(s string) string { return strings.Replace(s, "steps = 10", "steps = 10\ngrad_evals = -5", 1) }, "", 9, "budget.grad_evals", "out of range"},
		{"out of range gradient schedule", func(s string) string { return strings.Replace(s, "every = 2", "every = 2\nevery_grad_evals = -1", 1) }, "", 13, "eval.every_grad_evals", "out of range"},
		{"unknown rows", func(s string) string { return strings.Replace(s, "every = 2", "every = 2\nrows = \"dev+test\"", 1) }, "", 13, "eval.rows", "development+test"},
		{"out of range setting", func(s string) string { return strings.Replace(s, "scale = 0.5", "scale = -0.5", 1) }, "", 20, "methods.walk-a.settings.scale", "out of range"},
		{"out of range nested setting", func(s string) string { return strings.Replace(s, "pull = 0.1", "pull = 1.5", 1) }, "", 25, "methods.walk-b.settings.inner.pull", "out of range"},
		{"out of range setting in profile", func(s string) string { return strings.Replace(s, "scale = 2.0", "scale = -2.0", 1) }, "", 34, "profiles.quick.methods.walk-a.settings.scale", "out of range"},
		{"unknown method kind", func(s string) string {
			return strings.Replace(s, "kind = \"walk\"\nparticles", "kind = \"wlak\"\nparticles", 1)
		}, "", 15, "methods.walk-a.kind", "unknown method"},
		{"unknown dataset", func(s string) string { return strings.Replace(s, `["gauss"]`, `["gaus"]`, 1) }, "", 4, "datasets", "unknown dataset"},
		{"bad profile name in file", func(s string) string { return strings.Replace(s, "[profiles.quick]", "[profiles.fast]", 1) }, "", 27, "profiles.fast", "unknown profile"},
		{"bad profile requested", func(s string) string { return s }, "fast", 0, "profiles.fast", "unknown profile"},
		{"profile names unknown method", func(s string) string { return s + "[profiles.full.methods.walk-c]\nparticles = [1]\n" }, "", 35, "profiles.full.methods.walk-c", "does not define"},
		{"parse error", func(s string) string { return strings.Replace(s, "seed = 7", "seed = = 7", 1) }, "", 3, "seed", "expected value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(ty.reg, "toy.toml", []byte(tc.edit(base)), tc.profile)
			if err == nil {
				t.Fatal("no error")
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a ConfigError", err)
			}
			if ce.File != "toy.toml" || ce.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
				t.Errorf("got %q (line %d key %q), want line %d key %q message containing %q", err, ce.Line, ce.Key, tc.line, tc.key, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "toy.toml") || (tc.line > 0 && !strings.Contains(err.Error(), fmt.Sprintf(":%d:", tc.line))) {
				t.Errorf("message %q does not start with file:line", err)
			}
		})
	}
}

func TestKeyLine(t *testing.T) {
	for _, tc := range []struct {
		key  []string
		line int
	}{
		{[]string{"id"}, 1},
		{[]string{"splits"}, 5},
		{[]string{"budget", "steps"}, 8},
		{[]string{"methods", "walk-a", "settings", "scale"}, 20},
		{[]string{"profiles", "quick", "methods", "walk-a", "settings", "scale"}, 34},
		{[]string{"nothing"}, 0},
	} {
		if got := keyLine([]byte(base), tc.key); got != tc.line {
			t.Errorf("keyLine(%v) = %d, want %d", tc.key, got, tc.line)
		}
	}
}

func TestSelect(t *testing.T) {
	cells := make([]*Cell, 5)
	for i := range cells {
		cells[i] = &Cell{Index: i}
	}
	for spec, want := range map[string]string{"": "0-4", "1-3": "1-3", "2": "2-2", "3-": "3-4", "-1": "0-1"} {
		got, err := Select(cells, spec)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprintf("%d-%d", got[0].Index, got[len(got)-1].Index); s != want {
			t.Errorf("Select(%q) = %s, want %s", spec, s, want)
		}
	}
	for spec, msg := range map[string]string{
		"4-2":   "reversed (4 > 2); write 2-4",
		"0-5":   "index 5 is past the last cell, 4",
		"x":     `"x" is not a cell index`,
		"-1-2":  `"1-2" is not a cell index`,
		"abc":   `"abc" is not a cell index (want a comma-separated list of A-B, A-, -B or A, indices 0-4)`,
		"-":     "no index",
		"1,,3":  `no index in ""`,
		"1,5":   "index 5 is past the last cell, 4",
		"0,3-1": "reversed (3 > 1)",
	} {
		_, err := Select(cells, spec)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Select(%q): %v, want %q", spec, err, msg)
		}
	}
}

// TestSelectList: comma-separated parts select their union in index order,
// each cell once.
func TestSelectList(t *testing.T) {
	cells := make([]*Cell, 8)
	for i := range cells {
		cells[i] = &Cell{Index: i}
	}
	for spec, want := range map[string][]int{
		"0,5":      {0, 5},
		"6,1-2":    {1, 2, 6},
		"3-,0":     {0, 3, 4, 5, 6, 7},
		"2, 2,1-3": {1, 2, 3},
		"-1,7":     {0, 1, 7},
	} {
		got, err := Select(cells, spec)
		if err != nil {
			t.Fatalf("Select(%q): %v", spec, err)
		}
		var idx []int
		for _, c := range got {
			idx = append(idx, c.Index)
		}
		if !slices.Equal(idx, want) {
			t.Errorf("Select(%q) = %v, want %v", spec, idx, want)
		}
	}
}

func TestNextLogStep(t *testing.T) {
	k, got := 1, []int{}
	for k <= 1000 {
		got = append(got, k)
		k = nextLogStep(k)
	}
	if s := fmt.Sprint(got); s != "[1 2 5 10 20 50 100 200 500 1000]" {
		t.Errorf("log steps %s", s)
	}
}
