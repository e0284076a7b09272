package harness

import (
	"errors"
	"strings"
	"testing"
)

// tuningBase is the toy experiment as a tuning one, on splits reserved for
// tuning.
var tuningBase = strings.NewReplacer("splits = [0, 1]\n", "splits = [1000, 1001]\nrole = \"tuning\"\n", "splits = [0]\n", "splits = [1000]\n").Replace(base)

const chooseRules = `
[[choose]]
name = "by-sq"
metric = "sq"
cells = "geomean"
tie_relative = 0.01
then = ["grad_evals", "mean0"]

[[choose]]
name = "at-3"
methods = ["walk-a"]
metric = "mean0"
n = 3
tie_absolute = 0.5

[[choose]]
name = "ranked"
metric = "sq"
across = "datasets"
combine = "mean-rank"
per = "start"
ties = "file-order"
`

// The [[choose]] tables decode into Experiment.Choose, are checked with
// errors naming the file and key, and leave every cache key as it is.
func TestChooseKey(t *testing.T) {
	ty := newToy()
	// The tables go before the first table of the file: after the
	// top-level keys.
	withRules := func(rules string) string {
		i := strings.Index(tuningBase, "[budget]")
		return tuningBase[:i] + rules + "\n" + tuningBase[i:]
	}
	src := withRules(chooseRules)
	e, err := Load(ty.reg, "toy.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Choose) != 3 {
		t.Fatalf("rules %+v", e.Choose)
	}
	r, q, k := e.Choose[0], e.Choose[1], e.Choose[2]
	if k.Across != ChooseAcrossDatasets || k.Combine != ChooseMeanRank || k.Per != ChoosePerStart || k.Ties != ChooseFileOrder {
		t.Errorf("rule %+v", k)
	}
	if r.Name != "by-sq" || r.Metric != "sq" || r.Cells != "geomean" || r.TieRelative != 0.01 || strings.Join(r.Then, " ") != "grad_evals mean0" ||
		q.Name != "at-3" || q.N != 3 || q.TieAbsolute != 0.5 || strings.Join(q.Methods, " ") != "walk-a" {
		t.Errorf("rules %+v", e.Choose)
	}
	for _, bad := range []struct{ rule, key, msg string }{
		{"name = \"By\"\nmetric = \"sq\"", "choose.0.name", `"By" is not a rule name`},
		{"name = \"a\"\nmetric = \"nope\"", "choose.0.metric", `metric "nope" is not one of eval.metrics`},
		{"name = \"a\"\nmetric = \"sq\"\nn = -1", "choose.0.n", "negative"},
		{"name = \"a\"\nmetric = \"sq\"\ncells = \"mean\"", "choose.0.cells", `"mean" is not "geomean"`},
		{"name = \"a\"\nmetric = \"sq\"\ntie_relative = 0.1\ntie_absolute = 1", "choose.0.tie_absolute", "not both"},
		{"name = \"a\"\nmetric = \"sq\"\ntie_relative = -0.1", "choose.0.tie_relative", "finite non-negative"},
		{"name = \"a\"\nmetric = \"sq\"\nthen = [\"speed\"]", "choose.0.then", `tie-break "speed"`},
		{"name = \"a\"\nmetric = \"sq\"\nthen = [\"sq\", \"sq\"]", "choose.0.then", "named twice"},
		{"name = \"a\"\nmetric = \"sq\"\nkinds = [\"svgd\"]", "choose.0.kinds", `no method of the file has kind "svgd"`},
		{"name = \"a\"\nmetric = \"sq\"\nmethods = [\"walk-c\"]", "choose.0.methods", `no method "walk-c"`},
		{"name = \"a\"\nmetric = \"sq\"\nkinds = [\"walk\"]\nmethods = [\"walk-a\"]", "choose.0.methods", "not both"},
		{"name = \"a\"\nmetric = \"sq\"\nbest = 1", "choose", "best"},
		{"name = \"a\"\nmetric = \"sq\"\nacross = \"splits\"\ncombine = \"mean-rank\"", "choose.0.across", `across = "splits" is not "datasets"`},
		{"name = \"a\"\nmetric = \"sq\"\nacross = \"datasets\"", "choose.0.across", `needs combine = "mean-rank"`},
		{"name = \"a\"\nmetric = \"sq\"\nacross = \"datasets\"\ncombine = \"mean\"", "choose.0.combine", `combine = "mean" is not "mean-rank"`},
		{"name = \"a\"\nmetric = \"sq\"\ncombine = \"mean-rank\"", "choose.0.combine", `needs across = "datasets"`},
		{"name = \"a\"\nmetric = \"sq\"\nacross = \"datasets\"\ncombine = \"mean-rank\"\nper = \"kind\"", "choose.0.per", `per = "kind" is not "start"`},
		{"name = \"a\"\nmetric = \"sq\"\nper = \"start\"", "choose.0.per", `needs across = "datasets"`},
		{"name = \"a\"\nmetric = \"sq\"\nties = \"legend\"", "choose.0.ties", `ties = "legend" is not "file-order"`},
		{"name = \"a\"\nmetric = \"sq\"\nacross = \"datasets\"\ncombine = \"mean-rank\"\ntie_relative = 0.01", "choose.0.across", "ties only exactly"},
		{"name = \"a\"\nmetric = \"sq\"\nacross = \"datasets\"\ncombine = \"mean-rank\"\nthen = [\"sq\"]", "choose.0.then", "by order only"},
	} {
		_, err := Load(ty.reg, "toy.toml", []byte(withRules("[[choose]]\n"+bad.rule+"\n")), "")
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.File != "toy.toml" || !strings.HasPrefix(ce.Key, bad.key) || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%q: error %v, want a *ConfigError of toy.toml at %s with %q", bad.rule, err, bad.key, bad.msg)
		}
	}
	twice := withRules("[[choose]]\nname = \"a\"\nmetric = \"sq\"\n[[choose]]\nname = \"a\"\nmetric = \"sq\"\n")
	if _, err := Load(ty.reg, "toy.toml", []byte(twice), ""); err == nil || !strings.Contains(err.Error(), `rule "a" is declared twice`) {
		t.Errorf("a rule named twice: %v", err)
	}
	i := strings.Index(base, "[budget]")
	reported := base[:i] + chooseRules + "\n" + base[i:]
	if _, err := Load(ty.reg, "toy.toml", []byte(reported), ""); err == nil || !strings.Contains(err.Error(), "needs role") {
		t.Errorf("rules in a reported experiment: %v", err)
	}
	keys := func(src string) string {
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
		return strings.Join(out, " ")
	}
	if a, b := keys(tuningBase), keys(src); a == "" || a != b {
		t.Errorf("cache keys with the rules %v, without %v", b, a)
	}
}
