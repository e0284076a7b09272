package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDatasetFamily names datasets of a family in an experiment file: each
// is built once, on first use, from the rest of its name; a name the
// family refuses is unknown, and the message lists the family's pattern.
func TestDatasetFamily(t *testing.T) {
	ty := newToy()
	built := map[string]int{}
	ty.reg.RegisterDatasetFamily("fam.", func(member string) (Dataset, bool) {
		if strings.HasPrefix(member, "bad") {
			return Dataset{}, false
		}
		built[member]++
		return Dataset{
			Load: func(ctx context.Context, split int, env *Env) (*Problem, error) { return nil, fmt.Errorf("no problem") },
			Checksums: func(split int, env *Env) (map[string]string, error) {
				return map[string]string{member: "sum"}, nil
			},
		}, true
	})
	text := strings.Replace(dsBase, `datasets = ["gauss", "shared"]`, `datasets = ["gauss", "fam.one", "fam.two"]`, 1)
	text = strings.Replace(text, `datasets = ["shared"]`, `datasets = ["fam.one"]`, 1)
	e, err := Load(ty.reg, "toy.toml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := cellIDs(e); !strings.Contains(got, "toy/walk-a/fam.two/s1/n3") || !strings.Contains(got, "toy/walk-b/fam.one/s0") {
		t.Errorf("cells %s", got)
	}
	if _, err := Load(ty.reg, "toy.toml", []byte(text), ""); err != nil {
		t.Fatal(err)
	}
	if built["one"] != 1 || built["two"] != 1 || len(built) != 2 {
		t.Errorf("built %v, want each member once", built)
	}
	for _, name := range []string{"fam.bad", "fam.", "other.one"} {
		bad := strings.Replace(dsBase, `datasets = ["gauss", "shared"]`, `datasets = ["gauss", "shared", "`+name+`"]`, 1)
		_, err := Load(ty.reg, "toy.toml", []byte(bad), "")
		if err == nil || !strings.Contains(err.Error(), `unknown dataset "`+name+`"`) || !strings.Contains(err.Error(), "fam.<name>") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, p := range []string{"fam.", "fam", "fam.x"} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("family %q overlapping fam. registered", p)
				}
			}()
			ty.reg.RegisterDatasetFamily(p, func(string) (Dataset, bool) { return Dataset{}, false })
		}()
	}
}
