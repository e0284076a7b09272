package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mmdfw/mmdfw/internal/atomicfile"
)

// Store caches shared artefacts (a reference sample, a MAP point) under a
// directory. Each key is computed once: concurrent requests in one process
// share one computation (singleflight), and processes sharing the directory
// take turns through a lock file, the first computing and the others reading
// its result.
type Store struct {
	dir   string
	group singleflight.Group
}

// NewStore returns a store that keeps its artefacts under dir.
func NewStore(dir string) *Store { return &Store{dir: dir} }

var artefactKeyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$`)

// Path returns the file that holds the artefact key.
func (s *Store) Path(key string) string { return filepath.Join(s.dir, filepath.FromSlash(key)) }

// Artefact returns the bytes stored under key, calling compute to produce
// them when no process has. A failed computation is not cached. Keys are
// slash-separated paths of [A-Za-z0-9_.-] segments; they should include a
// hash of everything the artefact depends on.
func (s *Store) Artefact(ctx context.Context, key string, compute func(context.Context) ([]byte, error)) ([]byte, error) {
	if !artefactKeyRE.MatchString(key) || strings.Contains("/"+key+"/", "/../") || strings.Contains("/"+key+"/", "/./") {
		return nil, fmt.Errorf("harness: invalid artefact key %q", key)
	}
	v, err, _ := s.group.Do(key, func() (any, error) { return s.load(ctx, key, compute) })
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

func (s *Store) load(ctx context.Context, key string, compute func(context.Context) ([]byte, error)) ([]byte, error) {
	path := s.Path(key)
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	defer unlock()
	// Another process may have written it while this one waited.
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	}
	b, err := compute(context.WithValue(ctx, artefactKey{}, artefactInfo{key, path}))
	if err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	// The artefact is safe: the state a long computation saved to resume
	// from is of no further use.
	if err := os.Remove(CheckpointPath(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	return b, nil
}

type artefactKey struct{}

type artefactInfo struct{ key, path string }

// ArtefactOf returns the key and the file of the artefact that ctx, the
// context a compute function of Store.Artefact (or Env.Artefact) receives,
// is computing; ok is false for any other context. A long computation keeps
// the state it can resume from in CheckpointPath(path).
func ArtefactOf(ctx context.Context) (key, path string, ok bool) {
	a, ok := ctx.Value(artefactKey{}).(artefactInfo)
	return a.key, a.path, ok
}

// CheckpointPath is the file beside the artefact file path where its
// computation keeps the state to resume from. Store.Artefact removes it once
// the artefact is written.
func CheckpointPath(path string) string { return path + ".checkpoint" }

// lockPoll is how often a waiting process retries a held lock.
const lockPoll = 20 * time.Millisecond
