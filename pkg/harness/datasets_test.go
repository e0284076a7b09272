package harness

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// dsBase restricts walk-b to one of the file's two datasets, and the quick
// profile restricts walk-a; the line numbers in the tests below refer to it
// after the edit each test makes.
const dsBase = `id = "toy"
seed = 7
datasets = ["gauss", "shared"]
splits = [0, 1]

[eval]
metrics = ["mean0"]

[methods.walk-a]
kind = "walk"
particles = [3]

[methods.walk-b]
kind = "walk"
datasets = ["shared"]

[profiles.quick]
splits = [0]
[profiles.quick.methods.walk-a]
datasets = ["gauss"]
`

func cellIDs(e *Experiment) string {
	var ids []string
	for _, c := range Cells(e) {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, " ")
}

func TestMethodDatasets(t *testing.T) {
	ty := newToy()
	for _, tc := range []struct {
		name, text, profile string
		a, b                string // the methods' datasets
		cells               string
	}{
		{"base", dsBase, "", "[gauss shared]", "[shared]",
			"toy/walk-a/gauss/s0/n3 toy/walk-a/gauss/s1/n3 toy/walk-a/shared/s0/n3 toy/walk-a/shared/s1/n3 toy/walk-b/shared/s0 toy/walk-b/shared/s1"},
		{"profile overrides", dsBase, "quick", "[gauss]", "[shared]",
			"toy/walk-a/gauss/s0/n3 toy/walk-b/shared/s0"},
		{"an empty full profile is the base", dsBase + "\n[profiles.full]\n", "full", "[gauss shared]", "[shared]",
			"toy/walk-a/gauss/s0/n3 toy/walk-a/gauss/s1/n3 toy/walk-a/shared/s0/n3 toy/walk-a/shared/s1/n3 toy/walk-b/shared/s0 toy/walk-b/shared/s1"},
		// Cells follow the file's dataset order, not the method's.
		{"file order", strings.Replace(dsBase, `datasets = ["shared"]`, `datasets = ["shared", "gauss"]`, 1), "", "[gauss shared]", "[gauss shared]",
			"toy/walk-a/gauss/s0/n3 toy/walk-a/gauss/s1/n3 toy/walk-a/shared/s0/n3 toy/walk-a/shared/s1/n3 toy/walk-b/gauss/s0 toy/walk-b/gauss/s1 toy/walk-b/shared/s0 toy/walk-b/shared/s1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Load(ty.reg, "toy.toml", []byte(tc.text), tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := fmt.Sprint(e.Methods[0].Datasets), fmt.Sprint(e.Methods[1].Datasets); a != tc.a || b != tc.b {
				t.Errorf("datasets: walk-a %s walk-b %s, want %s and %s", a, b, tc.a, tc.b)
			}
			if got := cellIDs(e); got != tc.cells {
				t.Errorf("cells:\n got %s\nwant %s", got, tc.cells)
			}
		})
	}
}

func TestMethodDatasetsErrors(t *testing.T) {
	ty := newToy()
	for _, tc := range []struct {
		name    string
		edit    func(string) string
		profile string
		line    int
		key     string
		msg     string
	}{
		// "maybe" is a registered dataset, but not one of the file's.
		{"not in the file's list", func(s string) string { return strings.Replace(s, `datasets = ["shared"]`, `datasets = ["maybe"]`, 1) }, "", 15, "methods.walk-b.datasets", `dataset "maybe" is not among the experiment's datasets (gauss, shared)`},
		{"unregistered", func(s string) string { return strings.Replace(s, `datasets = ["shared"]`, `datasets = ["shraed"]`, 1) }, "", 15, "methods.walk-b.datasets", `"shraed" is not among`},
		{"listed twice", func(s string) string {
			return strings.Replace(s, `datasets = ["shared"]`, `datasets = ["shared", "shared"]`, 1)
		}, "", 15, "methods.walk-b.datasets", `dataset "shared" is listed twice`},
		{"empty", func(s string) string { return strings.Replace(s, `datasets = ["shared"]`, `datasets = []`, 1) }, "", 15, "methods.walk-b.datasets", "at least one dataset"},
		{"wrong type", func(s string) string { return strings.Replace(s, `datasets = ["shared"]`, `datasets = "shared"`, 1) }, "", 15, "methods.walk-b.datasets", "incompatible types"},
		// The profile's list is checked, at the profile's line, even when
		// another profile is requested.
		{"in a profile", func(s string) string { return strings.Replace(s, `datasets = ["gauss"]`, `datasets = ["maybe"]`, 1) }, "", 20, "profiles.quick.methods.walk-a.datasets", `dataset "maybe" is not among`},
		// A profile that narrows the file's datasets must narrow the
		// method's list too; the error points at the method's list.
		{"profile narrows the file", func(s string) string {
			return strings.Replace(s, "splits = [0]", "splits = [0]\ndatasets = [\"gauss\"]", 1)
		}, "quick", 15, "methods.walk-b.datasets", `"shared" is not among the experiment's datasets under profile quick (gauss)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(ty.reg, "toy.toml", []byte(tc.edit(dsBase)), tc.profile)
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
		})
	}
}

// TestMethodDatasetsKeys: restricting a method to fewer datasets leaves the
// ids and cache keys of every cell it keeps, and of every other method's
// cells, as they were, so a cached run stays cached.
func TestMethodDatasetsKeys(t *testing.T) {
	ty := newToy()
	all := strings.Replace(dsBase, "datasets = [\"shared\"]\n", "", 1)
	results := t.TempDir()
	sum := runExp(t, ty, results, 2, all, "", false)
	if sum.Done != 8 || sum.Failed != 0 {
		t.Fatalf("unrestricted run: %v", sum)
	}
	full, err := Load(ty.reg, "toy.toml", []byte(all), "")
	if err != nil {
		t.Fatal(err)
	}
	part, err := Load(ty.reg, "toy.toml", []byte(dsBase), "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: results, Log: quiet})
	keys := map[string]string{}
	for _, c := range Plan([]*Experiment{full}) {
		st, err := r.Status(c)
		if err != nil {
			t.Fatal(err)
		}
		keys[c.ID] = st.Key
	}
	cells := Plan([]*Experiment{part})
	if len(cells) != 6 {
		t.Fatalf("restricted experiment has %d cells, want 6", len(cells))
	}
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			t.Fatal(err)
		}
		k, ok := keys[c.ID]
		if !ok {
			t.Errorf("cell %s is new", c.ID)
			continue
		}
		if st.Key != k || st.Status != Done {
			t.Errorf("cell %s: key %s status %v, want the unrestricted key %s, done", c.ID, st.Key, st.Status, k)
		}
	}
	runs := ty.runs.Load()
	sum = runExp(t, ty, results, 2, dsBase, "", false)
	if sum.Cached != 6 || ty.runs.Load() != runs {
		t.Errorf("restricted run recomputed cells: %v", sum)
	}
}
