package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	for _, s := range []string{"first\n", "second, longer\n"} {
		if err := Write(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != s {
			t.Fatalf("read %q, %v; want %q", b, err, s)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only out.csv", len(entries))
	}
}

func TestWriteFailureKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory in the way of the rename makes the write fail after the
	// temporary file is written.
	blocked := filepath.Join(dir, "sub")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(blocked, []byte("new"), 0o644); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries after the failure, want 2 (no temporary left)", len(entries))
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("unrelated file changed to %q", b)
	}
	err := Write(filepath.Join(dir, "missing", "out"), []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v, want ErrNotExist", err)
	}
}

// TestCreateCommitAbort: a File's bytes reach the target only at Commit;
// Abort leaves the old content; neither leaves a temporary file.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := Write(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("aborted\n"))
	a.Abort()
	a.Abort()
	if got := read(); got != "old\n" {
		t.Fatalf("after Abort: %q", got)
	}
	a, err = Create(path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("new, "))
	if got := read(); got != "old\n" {
		t.Fatalf("before Commit: %q", got)
	}
	a.Write([]byte("in two pieces\n"))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	a.Abort()
	if got := read(); got != "new, in two pieces\n" {
		t.Fatalf("after Commit: %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only out.csv", len(entries))
	}
}
