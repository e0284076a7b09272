package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// ownSettings declare a toy dataset: a constant checksum.
type ownSettings struct {
	Sum string `toml:"sum"`
}

func (s ownSettings) Validate() error {
	if s.Sum == "" {
		return &FieldError{Key: "sum", Err: errors.New("required key is missing")}
	}
	return nil
}

const ownExp = `id = "toy"
seed = 7
datasets = ["gauss", "mine"]
splits = [0]

[data.mine]
sum = "aa"

[eval]
metrics = ["mean0"]

[methods.walk-a]
kind = "walk"
datasets = ["mine"]
`

func TestFileDatasets(t *testing.T) {
	ty := newToy()
	// Without a registered kind, a declaration is an error at its table.
	_, err := Load(ty.reg, "toy.toml", []byte(ownExp), "")
	if err == nil || !strings.Contains(err.Error(), "toy.toml:6: key data.mine: datasets cannot be declared") {
		t.Fatalf("no kind: %v", err)
	}
	var built []string
	RegisterFileDataset(ty.reg, func(file, name string, s ownSettings) (Dataset, error) {
		built = append(built, file+" "+name+" "+s.Sum)
		gauss, _ := ty.reg.dataset("gauss")
		return Dataset{Load: gauss.Load, Checksums: func(int, *Env) (map[string]string, error) {
			return map[string]string{name: s.Sum}, nil
		}}, nil
	})
	e, err := Load(ty.reg, "toy.toml", []byte(ownExp), "")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(built) != "[toy.toml mine aa]" {
		t.Errorf("built %v, want one build for every profile", built)
	}
	cells := Cells(e)
	if len(cells) != 1 || cells[0].ID != "toy/walk-a/mine/s0" {
		t.Fatalf("cells %v", cells)
	}
	r := NewRunner(ty.reg, Options{Results: t.TempDir(), Log: quiet})
	sum, err := r.Run(context.Background(), cells)
	if err != nil || sum.Done != 1 {
		t.Fatalf("run: %v %v", sum, err)
	}
	st, err := r.Status(cells[0])
	if err != nil || st.Status != Done || st.Prov.KeyDoc.Data["mine"] != "aa" {
		t.Fatalf("status %+v %v", st, err)
	}
	// The declaration's checksum is in the key.
	e2, _ := Load(ty.reg, "toy.toml", []byte(strings.Replace(ownExp, `"aa"`, `"bb"`, 1)), "")
	st2, _ := r.Status(Cells(e2)[0])
	if st2.Status != Stale || st2.StaleReason() != "data.mine changed" {
		t.Errorf("after the declaration changed: %s, %q", st2.Status, st2.StaleReason())
	}
	for _, tc := range []struct{ edit, want string }{
		{strings.Replace(ownExp, `sum = "aa"`, `sum = ""`, 1), "toy.toml:7: key data.mine.sum: required key is missing"},
		{strings.Replace(ownExp, `sum = "aa"`, "sum = \"aa\"\nsums = 1", 1), "toy.toml:8: key data.mine.sums: unknown key"},
		{strings.Replace(strings.Replace(ownExp, "[data.mine]", "[data.gauss]", 1), `"gauss", "mine"`, `"gauss"`, 1), `toy.toml:6: key data.gauss: dataset "gauss" is a built-in dataset`},
		{strings.Replace(ownExp, `datasets = ["gauss", "mine"]`, `datasets = ["gauss", "yours"]`, 1), "unknown dataset"},
		{ownExp + "[profiles.full.data.mine]\nsum = \"cc\"\n", "key profiles.full.data: datasets are declared in the base of the file"},
	} {
		if _, err := Load(ty.reg, "toy.toml", []byte(tc.edit), ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if _, err := LoadSet(ty.reg, "toy.toml", []byte(ownExp), "", []string{`data.mine.sum="cc"`}); err == nil || !strings.Contains(err.Error(), "key data: --set data.mine.sum=\"cc\": datasets are declared in the file") {
		t.Errorf("override of a declaration: %v", err)
	}
}
