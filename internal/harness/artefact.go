package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mmdfw/mmdfw/internal/atomicfile"
)

// Store caches shared artefacts (a reference sample, a MAP point) under a
// directory. Each key is computed once: concurrent requests in one process
// share one computation, and processes sharing the directory take turns
// through a lock file, the first computing and the others reading its
// result. A request that waits for another's computation tells the job
// slot of its cell, which is free for other cells meanwhile.
type Store struct {
	dir string

	mu       sync.Mutex
	inflight map[string]*flight
}

// flight is one computation of an artefact that other requests wait for.
type flight struct {
	done chan struct{}
	b    []byte
	err  error
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
	s.mu.Lock()
	if f, ok := s.inflight[key]; ok {
		s.mu.Unlock()
		resume := waitFor(ctx, key)
		defer resume()
		select {
		case <-f.done:
			return f.b, f.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.inflight == nil {
		s.inflight = map[string]*flight{}
	}
	f := &flight{done: make(chan struct{})}
	s.inflight[key] = f
	s.mu.Unlock()
	f.b, f.err = s.load(ctx, key, compute)
	s.mu.Lock()
	delete(s.inflight, key)
	s.mu.Unlock()
	close(f.done)
	return f.b, f.err
}

func (s *Store) load(ctx context.Context, key string, compute func(context.Context) ([]byte, error)) ([]byte, error) {
	path := s.Path(key)
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, path+".lock", func() func() { return waitFor(ctx, key+" (computed by another process)") })
	if err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	defer unlock()
	// Another process may have written it while this one waited.
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	}
	b, err := compute(ctx)
	if err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	return b, nil
}

// lockPoll is how often a waiting process retries a held lock.
const lockPoll = 20 * time.Millisecond
