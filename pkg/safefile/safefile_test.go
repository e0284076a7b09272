package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(p, []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(p)
	if err != nil || string(b) != "content" {
		t.Fatalf("ReadFile = %q, %v; want content", b, err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent file: %v, want fs.ErrNotExist", err)
	}
}

// A link in the last element is never followed, for reading or for
// locking: the target keeps its content.
func TestSymlinkRefused(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "x.running")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := ReadFile(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("ReadFile through a link: %v, want ErrSymlink", err)
	}
	f, err := OpenLock(link, 0o644)
	if err == nil {
		f.Close()
		t.Fatal("OpenLock followed a link")
	}
	if !errors.Is(err, ErrSymlink) {
		t.Errorf("OpenLock through a link: %v, want ErrSymlink", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("target now holds %q", b)
	}
}

func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a directory: %v, want ErrNotRegular", err)
	}
}

// ReadFileMax refuses a file over its limit before reading it, and reads
// one within it whole.
func TestReadFileMax(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFileMax(p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("within the limit: %q %v", b, err)
	}
	if _, err := ReadFileMax(p, 9); err == nil || !strings.Contains(err.Error(), "10 bytes, more than the 9") {
		t.Errorf("over the limit: %v", err)
	}
}
