package harness

import (
	"errors"
	"strings"
	"testing"
)

// The top-level report key names the report's plug-ins of the experiment
// under every profile, is checked, and leaves every cache key as it is.
func TestReportKey(t *testing.T) {
	ty := newToy()
	src := "report = [\"paper\", \"own-2\"]\n" + base
	for _, p := range []string{"", "quick"} {
		e, err := Load(ty.reg, "toy.toml", []byte(src), p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(e.Report, " ") != "paper own-2" {
			t.Errorf("profile %q: report %q", p, e.Report)
		}
	}
	e, err := Load(ty.reg, "toy.toml", []byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Report != nil {
		t.Errorf("a file without the key: report %q", e.Report)
	}
	for _, bad := range []struct{ src, msg string }{
		{"report = [\"Paper\"]\n", `"Paper" is not a plug-in name`},
		{"report = [\"\"]\n", `"" is not a plug-in name`},
		{"report = [\"paper\", \"paper\"]\n", `"paper" is named twice`},
		{"report = \"paper\"\n", "report"},
	} {
		_, err := Load(ty.reg, "toy.toml", []byte(bad.src+base), "")
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), bad.msg) || (bad.msg != "report" && ce.Line != 1) {
			t.Errorf("%q: error %v, want a *ConfigError at line 1 with %q", bad.src, err, bad.msg)
		}
	}
	// Only the base of a file names plug-ins: a profile's report key is an
	// unknown key.
	if _, err := Load(ty.reg, "toy.toml", []byte(strings.Replace(base, "[profiles.quick]", "[profiles.quick]\nreport = [\"paper\"]", 1)), "quick"); err == nil {
		t.Error("a profile's report key is accepted")
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
	if a, b := keys(base), keys(src); a == "" || a != b {
		t.Errorf("cache keys with the report key %v, without %v", b, a)
	}
}
