package repro

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The --rename and --add values: KIND.KEY=VALUE, VALUE as JSON or else a
// string, a key repeated for several values; anything else is a usage
// error naming the flag and the value.
func TestRekeyRule(t *testing.T) {
	rule, err := rekeyRule([]string{"sgld.jitter=init_scale"}, []string{"svgd.whiten=none", "mmdfw.starts=1", "mmdfw.scale=bandwidth", "mmdfw.scale=given", `sp.map=true`})
	if err != nil {
		t.Fatal(err)
	}
	if rule.Rename["sgld"]["jitter"] != "init_scale" {
		t.Errorf("rename %v", rule.Rename)
	}
	want := map[string]map[string][]any{
		"svgd":  {"whiten": {"none"}},
		"mmdfw": {"starts": {1.0}, "scale": {"bandwidth", "given"}},
		"sp":    {"map": {true}},
	}
	if !reflect.DeepEqual(rule.Add, want) {
		t.Errorf("add %v, want %v", rule.Add, want)
	}
	for _, bad := range []string{"svgd", "svgd.whiten", ".whiten=none", "svgd.=none", "svgd.whiten="} {
		_, err := rekeyRule(nil, []string{bad})
		var u *usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "--add") || !strings.Contains(err.Error(), bad) {
			t.Errorf("--add %q: error %v, want a usage error naming the flag and value", bad, err)
		}
	}
}
