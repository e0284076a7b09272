package data

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
)

// HashCacheFile is the file, directly under a data folder, in which Check
// keeps the sha256 of the files it has hashed, each with the size and
// modification time it had then.
const HashCacheFile = ".sha256-cache.json"

// hashEntry is one file's cached hash.
type hashEntry struct {
	Size   int64  `json:"size"`
	MTime  int64  `json:"mtime_ns"`
	SHA256 string `json:"sha256"`
}

// hashCache maps a file's path relative to the data folder to its hash.
type hashCache struct {
	mu      sync.Mutex
	entries map[string]hashEntry
	changed bool
}

// sum returns the sha256 of path (named rel in the cache), hashing the file
// only when its size or modification time differs from the cached entry.
func (c *hashCache) sum(path, rel string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	e, ok := c.entries[rel]
	c.mu.Unlock()
	if ok && e.Size == fi.Size() && e.MTime == fi.ModTime().UnixNano() {
		return e.SHA256, nil
	}
	got, _, err := hashFile(path)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.entries[rel] = hashEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), SHA256: got}
	c.changed = true
	c.mu.Unlock()
	return got, nil
}

// Check reports every registered dataset under dir as Status does, and
// also checks the bytes: a present file whose sha256 is not the one
// registered (or pinned) for it is listed in Bad and makes the dataset
// StateCorrupt. The hashes are cached in dir/HashCacheFile, keyed by each
// file's size and modification time, so that a second Check of unchanged
// files reads none of them. A cache that cannot be written (a read-only
// folder) costs time, not correctness; the error is returned with the
// statuses.
func Check(dir string) ([]DatasetStatus, error) {
	c := &hashCache{entries: map[string]hashEntry{}}
	cachePath := filepath.Join(dir, HashCacheFile)
	if b, err := os.ReadFile(cachePath); err == nil {
		// A malformed cache is ignored and rewritten.
		json.Unmarshal(b, &c.entries)
		if c.entries == nil {
			c.entries = map[string]hashEntry{}
		}
	}
	out := make([]DatasetStatus, len(registry))
	for i, d := range registry {
		out[i] = d.check(dir, c)
	}
	if !c.changed {
		return out, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return out, nil
	}
	b, err := json.MarshalIndent(c.entries, "", "  ")
	if err == nil {
		err = atomicfile.Write(cachePath, append(b, '\n'), 0o644)
	}
	return out, err
}

// check is Status with each present file's sha256 compared with the
// expected one. Files without a checksum to compare with are left to
// Verify, which reports them.
func (d *Dataset) check(dir string, c *hashCache) DatasetStatus {
	s := d.Status(dir)
	if s.State == StateMissing || s.State == StateCorrupt {
		return s
	}
	for _, f := range d.Files {
		path := filepath.Join(s.Path, f.Name)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		want, err := ExpectedSHA256(s.Path, f)
		if err != nil {
			continue
		}
		got, err := c.sum(path, filepath.ToSlash(filepath.Join(d.Name, f.Name)))
		if err != nil || got != want {
			s.Bad = append(s.Bad, f.Name)
		}
	}
	if len(s.Bad) > 0 {
		s.State, s.Rows = StateCorrupt, 0
	}
	return s
}
