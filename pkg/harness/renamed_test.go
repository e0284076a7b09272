package harness

import (
	"strings"
	"testing"
)

// A settings key a kind renamed is refused with its new name, in the file
// and in an override; other unknown keys are refused as before.
func TestRenamedKey(t *testing.T) {
	ty := newToy()
	ty.reg.RenamedKey("walk", "spread", "scale")
	src := base
	for _, c := range []struct{ extra, want string }{
		{"spread = 0.5", `unknown key (renamed: scale in walk)`},
		{"sprede = 0.5", `unknown key`},
	} {
		file := strings.Replace(src, "steps = 12", "steps = 12\n"+c.extra, 1)
		_, err := Load(ty.reg, "exp.toml", []byte(file), "")
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one ending %q", c.extra, err, c.want)
		}
	}
	_, err := LoadSet(ty.reg, "exp.toml", []byte(src), "", []string{"methods.walk-a.settings.spread=0.5"})
	if err == nil || !strings.Contains(err.Error(), "renamed: scale in walk") {
		t.Errorf("override: %v", err)
	}
	wantPanic(t, "renamed twice", func() { ty.reg.RenamedKey("walk", "spread", "x") })
	wantPanic(t, "unregistered method", func() { ty.reg.RenamedKey("nope", "a", "b") })
}
