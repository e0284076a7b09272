package harness

import (
	"errors"
	"strings"
	"testing"
)

// A tuning experiment is refused when it would read a reported split, with
// the file, the line and the key; the refusals of eval.rows and role too.
func TestRowsRefused(t *testing.T) {
	ty := newToy()
	tuning := func(s string) string { return strings.Replace(s, "seed = 7", "seed = 7\nrole = \"tuning\"", 1) }
	for _, tc := range []struct {
		name string
		edit func(string) string
		line int
		key  string
		msg  string
	}{
		{"tuning on test rows", tuning, 12, "eval.metrics", `metric "mean0" would evaluate the test rows of split 0`},
		{"tuning with rows = test", func(s string) string {
			return strings.Replace(tuning(s), "every = 2", "every = 2\nrows = \"test\"", 1)
		}, 14, "eval.rows", "must not read a reported split"},
		{"tuning on a reported split in a profile", func(s string) string {
			s = strings.Replace(tuning(s), "splits = [0, 1]", "splits = [1000]", 1)
			return strings.Replace(s, "[profiles.quick]\nsplits = [0]", "[profiles.quick]\nsplits = [1000, 3]", 1)
		}, 12, "eval.metrics", "test rows of split 3"},
		{"reserved split in a reported experiment", func(s string) string {
			return strings.Replace(s, "splits = [0, 1]", "splits = [0, 1000]", 1)
		}, 5, "splits", "reserved for tuning"},
		{"unknown rows", func(s string) string {
			return strings.Replace(s, "every = 2", "every = 2\nrows = \"train\"", 1)
		}, 13, "eval.rows", "is not one of"},
		{"unknown role", func(s string) string { return strings.Replace(s, "seed = 7", "seed = 7\nrole = \"tune\"", 1) }, 4, "role", "is not one of"},
		{"fraction out of range", func(s string) string {
			return strings.Replace(s, "every = 2", "every = 2\nrows = \"validation\"\nvalidation_fraction = 1.0", 1)
		}, 14, "eval.validation_fraction", "out of range"},
		{"fraction without validation", func(s string) string {
			return strings.Replace(s, "every = 2", "every = 2\nrows = \"development\"\nvalidation_fraction = 0.3", 1)
		}, 14, "eval.validation_fraction", "applies only to"},
		{"seed without validation", func(s string) string {
			return strings.Replace(s, "every = 2", "every = 2\nvalidation_seed = 3", 1)
		}, 13, "eval.validation_seed", "applies only to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(ty.reg, "toy.toml", []byte(tc.edit(base)), "")
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

// A tuning experiment on validation or development rows, or on reserved
// splits, loads; the default fraction is resolved so that writing it or not
// gives the same key, and the published split's key is as before.
func TestRowsAccepted(t *testing.T) {
	ty := newToy()
	r := NewRunner(ty.reg, Options{Results: t.TempDir()})
	keys := func(src string) map[string]string {
		t.Helper()
		e, err := Load(ty.reg, "toy.toml", []byte(src), "")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, c := range Cells(e) {
			k, err := r.key(c)
			if err != nil {
				t.Fatal(err)
			}
			m[c.ID] = k.Key
		}
		return m
	}
	tuning := strings.Replace(base, "seed = 7", "seed = 7\nrole = \"tuning\"", 1)
	plain := keys(base)
	report := keys(strings.Replace(base, "seed = 7", "seed = 7\nrole = \"report\"", 1))
	test := keys(strings.Replace(base, "every = 2", "every = 2\nrows = \"test\"", 1))
	val := keys(strings.Replace(tuning, "every = 2", "every = 2\nrows = \"validation\"", 1))
	val2 := keys(strings.Replace(tuning, "every = 2", "every = 2\nrows = \"validation\"\nvalidation_fraction = 0.2", 1))
	val3 := keys(strings.Replace(tuning, "every = 2", "every = 2\nrows = \"validation\"\nvalidation_seed = 1", 1))
	dev := keys(strings.Replace(tuning, "every = 2", "every = 2\nrows = \"development\"", 1))
	reserved := keys(strings.NewReplacer("splits = [0, 1]", "splits = [1000, 1001]", "splits = [0]", "splits = [1000]").Replace(tuning))
	id := "toy/walk-a/gauss/s0/n3"
	if plain[id] != report[id] || plain[id] != test[id] {
		t.Error(`role = "report" or rows = "test" changed the key of the published split`)
	}
	if val[id] != val2[id] {
		t.Error("writing the default validation fraction changed the key")
	}
	if val[id] == plain[id] || val3[id] == val[id] || dev[id] == plain[id] || dev[id] == val[id] {
		t.Error("carved rows do not change the key")
	}
	if len(reserved) != len(plain) {
		t.Errorf("reserved splits: %d cells, want %d", len(reserved), len(plain))
	}
	e, err := Load(ty.reg, "toy.toml", []byte(strings.Replace(tuning, "every = 2", "every = 2\nrows = \"validation\"", 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Eval.RowsSpec(); got != (Rows{Kind: RowsValidation, Fraction: DefaultValidationFraction}) || e.Role != RoleTuning {
		t.Errorf("resolved %+v role %q", got, e.Role)
	}
	env := &Env{Cell: Cells(e)[0]}
	if env.Rows().String() != "validation 0.2 seed 0" {
		t.Errorf("Env.Rows = %v", env.Rows())
	}
}

// An override cannot turn a tuning experiment back to test rows: the
// refusal names the override.
func TestRowsOverrideRefused(t *testing.T) {
	ty := newToy()
	src := strings.Replace(strings.Replace(base, "seed = 7", "seed = 7\nrole = \"tuning\"", 1), "every = 2", "every = 2\nrows = \"validation\"", 1)
	if _, err := LoadSet(ty.reg, "toy.toml", []byte(src), "", nil); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSet(ty.reg, "toy.toml", []byte(src), "", []string{`eval.rows="test"`})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "eval.rows" || !strings.Contains(ce.Msg, `--set eval.rows="test"`) || !strings.Contains(ce.Msg, "must not read a reported split") {
		t.Errorf("override to test rows: %v", err)
	}
}
