package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/mirror"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	md := "# toy\n\n## Verified counts\n\n- Rows: 506\n- Columns in data.txt: 14 (13 features + target)\n" +
		"- Splits: 20; train/test sizes 455/51\n\n## Notes\n\n| not | a | file |\n\n## Files\n\n" +
		"| file | bytes | sha256 | git blob |\n|---|---|---|---|\n" +
		"| index_test_0.txt | 193 | `" + strings.Repeat("ab", 32) + "` | `x` |\n" +
		"| data.txt | 49082 | `" + strings.Repeat("0f", 32) + "` | `y` |\n\nTotal: 2 files.\n"
	p := filepath.Join(dir, "SOURCE.md")
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := parse(p, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if s.rows != 506 || s.cols != 14 || s.splits != 20 || s.nTrain != 455 || s.nTest != 51 {
		t.Errorf("counts %+v", s)
	}
	if len(s.files) != 2 || s.files[0].name != "data.txt" || s.files[0].size != 49082 || s.files[1].sha256 != strings.Repeat("ab", 32) {
		t.Errorf("files %+v", s.files)
	}
	if err := os.WriteFile(p, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := parse(p, "toy"); err == nil {
		t.Error("a SOURCE.md without a file table was accepted")
	}
}

// TestUpToDate regenerates the tables from the staged mirror and compares
// them with the committed sources_gen.go.
func TestUpToDate(t *testing.T) {
	src, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data folder ../shared/data beside the module; skipping the staleness check")
	}
	got, err := generate(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "sources_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("sources_gen.go is stale: run go generate ./pkg/data")
	}
}
