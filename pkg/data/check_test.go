package data

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A same-size corruption is corrupt for Check (Status only sees sizes), and
// the hash cache is keyed by size and modification time: an unchanged file
// is not hashed again, a changed one is.
func TestCheckFindsChecksumMismatch(t *testing.T) {
	dir, d := writeRegression(t, nil)
	c := &hashCache{entries: map[string]hashEntry{}}
	if s := d.check(dir, c); s.State != StateComplete || len(s.Bad) != 0 {
		t.Fatalf("intact: %v, bad %v", s, s.Bad)
	}
	if len(c.entries) != len(d.Files) {
		t.Fatalf("%d cached hashes, want %d", len(c.entries), len(d.Files))
	}
	path := filepath.Join(dir, d.Name, "data.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[2] = '7' // same size, other bytes
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// A later modification time, as an edit after the first check has.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if s := d.Status(dir); s.State != StateComplete {
		t.Fatalf("Status of a same-size corruption: %v", s)
	}
	s := d.check(dir, c)
	if s.State != StateCorrupt || !slices.Equal(s.Bad, []string{"data.txt"}) {
		t.Fatalf("corrupted: %v, bad %v", s, s.Bad)
	}
	// The cache answers for an unchanged file: a forged entry with the
	// file's size and time is believed (and so proves no hashing).
	fi, _ := os.Stat(path)
	c.entries["toy/data.txt"] = hashEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), SHA256: d.Files[slices.IndexFunc(d.Files, func(f File) bool { return f.Name == "data.txt" })].SHA256}
	if s := d.check(dir, c); s.State != StateComplete {
		t.Errorf("with a cached hash for the file's size and time: %v", s)
	}
}

// Check writes its cache into the data folder and reads it back.
func TestCheckCacheFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Check(dir); err != nil {
		t.Fatal(err)
	}
	// No registered dataset is present: nothing hashed, nothing written.
	if _, err := os.Stat(filepath.Join(dir, HashCacheFile)); err == nil {
		t.Error("a cache written for an empty folder")
	}
	// A folder that does not exist: every dataset missing, no error.
	sts, err := Check(filepath.Join(dir, "absent"))
	if err != nil || len(sts) != len(Datasets()) || sts[0].State != StateMissing {
		t.Errorf("absent folder: %v, %v", sts, err)
	}
}
