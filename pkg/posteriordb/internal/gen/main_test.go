package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "README.md")
	a, b := strings.Repeat("ab", 32), strings.Repeat("0f", 32)
	md := "# toy\n\nCopied from x/y, commit " + strings.Repeat("1", 40) + ", folder z.\n\n```\n" +
		a + "  p-q/posterior.json\n" + b + "  p-q/data.json.zip\nnot a line\n```\n"
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := parse(p)
	if err != nil {
		t.Fatal(err)
	}
	if tb.commit != strings.Repeat("1", 40) || len(tb.sums) != 2 || tb.sums["p-q/posterior.json"] != a || tb.sums["p-q/data.json.zip"] != b {
		t.Errorf("parsed %+v", tb)
	}
	for name, text := range map[string]string{
		"no sums":   "commit " + strings.Repeat("1", 40) + "\n",
		"no commit": a + "  p-q/posterior.json\n",
		"twice":     "commit " + strings.Repeat("1", 40) + "\n" + a + "  p-q/x\n" + b + "  p-q/x\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := parse(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestGeneratedIsCurrent checks sums_gen.go against the staged README when
// it is present.
func TestGeneratedIsCurrent(t *testing.T) {
	src := filepath.Join("..", "..", "..", "..", "..", "shared", "posteriordb", "README.md")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no staged posteriordb README at %s; skipping the comparison with sums_gen.go", src)
	}
	want, err := generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "sums_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("sums_gen.go differs from the staged README: run go generate ./pkg/posteriordb")
	}
}
