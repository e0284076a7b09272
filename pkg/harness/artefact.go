package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/safefile"
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
	if b, err := readArtefact(path, key); err == nil {
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
	// Another process may have written it while this one waited. One
	// that does not match its recorded checksum is computed again.
	if b, err := readArtefact(path, key); err == nil {
		return b, nil
	}
	b, err := compute(context.WithValue(ctx, artefactKey{}, artefactInfo{key, path}))
	if err != nil {
		return nil, fmt.Errorf("artefact %s: %w", key, err)
	}
	// The checksum goes first: a crash between the two writes leaves a
	// checksum that no artefact matches, and the next run computes it
	// again.
	if err := writeArtefactSum(path, key, b); err != nil {
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

// SumSuffix ends the name of the file beside an artefact that records its
// key and the sha256 of its bytes, written with the artefact. An artefact
// is used only when it matches its record; one without a record (written
// before records were kept) is used as it is.
const SumSuffix = ".sha256"

// artefactSum is the content of an artefact's SumSuffix file.
type artefactSum struct {
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
}

// errArtefactChanged is the error of an artefact that does not match its
// recorded checksum.
var errArtefactChanged = errors.New("does not match the sha256 recorded beside it")

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// writeArtefactSum records key and the checksum of b beside the artefact
// file path.
func writeArtefactSum(path, key string, b []byte) error {
	j, err := json.Marshal(artefactSum{Key: key, SHA256: sha256Hex(b)})
	if err != nil {
		return err
	}
	return atomicfile.Write(path+SumSuffix, append(j, '\n'), 0o644)
}

// readArtefact reads the artefact file path, stored under key (empty: any
// key), and checks it against its recorded checksum when there is one. A
// file that is a link or not a regular file is an error (see
// package safefile), as is a mismatch (errArtefactChanged).
func readArtefact(path, key string) ([]byte, error) {
	b, err := safefile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rec, err := safefile.ReadFile(path + SumSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var sum artefactSum
	if err := json.Unmarshal(rec, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w (%s%s unreadable: %v)", path, errArtefactChanged, path, SumSuffix, err)
	}
	if key != "" && sum.Key != key {
		return nil, fmt.Errorf("%s: %w: recorded for key %q, read for %q", path, errArtefactChanged, sum.Key, key)
	}
	if got := sha256Hex(b); got != sum.SHA256 {
		return nil, fmt.Errorf("%s: %w: sha256 %s, recorded %s", path, errArtefactChanged, got, sum.SHA256)
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

// ReferenceArtefact returns the id ("reference/hmc/covertype/s1") and the
// file of the reference sample that cell c's metrics measure against, as
// Env.Reference caches it, without computing anything: the file exists only
// once a run has needed it. It fails when c's experiment has no reference or
// when the checksums of c's data, which enter the key, cannot be read.
func (r *Runner) ReferenceArtefact(c *Cell) (id, path string, err error) {
	id, key, _, err := r.referenceKey(c)
	if err != nil {
		return "", "", err
	}
	return id, r.store.Path(key), nil
}

// referenceKey returns the id of the reference sample that cell c reads,
// its artefact key (the id and a hash of the code and kind versions, the
// reference settings, the dataset's split, its data checksums and the
// experiment's seed), and the dataset it is drawn for.
func (r *Runner) referenceKey(c *Cell) (id, key string, ds *Dataset, err error) {
	e := c.Experiment
	ref := e.Reference
	if ref == nil {
		return "", "", nil, fmt.Errorf("experiment %s has no [reference]", e.ID)
	}
	ds, ok := r.datasetOf(c)
	if !ok {
		return "", "", nil, unknownName("dataset", c.Dataset, r.reg)
	}
	ds = withRows(ds, e)
	var sums map[string]string
	if ds.Checksums != nil {
		if sums, err = ds.Checksums(c.Split, &Env{Cell: c, runner: r, exp: e}); err != nil {
			return "", "", nil, err
		}
	}
	kd, err := json.Marshal(struct {
		Code, Module, Kind, Version string
		Settings                    any
		N                           int
		Dataset                     string
		Split                       int
		Data                        map[string]string
		Seed                        int64
	}{CodeVersion, moduleVersion(), ref.Kind, kindVersion(ref.kind, ref.Settings), ref.Settings, ref.Particles, c.Dataset, c.Split, sums, e.Seed})
	if err != nil {
		return "", "", nil, err
	}
	h := sha256.Sum256(kd)
	id = fmt.Sprintf("reference/%s/%s/s%d", ref.Kind, c.Dataset, c.Split)
	return id, id + "/" + hex.EncodeToString(h[:8]), ds, nil
}

// ReadReference decodes a cached reference sample file: its draws (rows in
// the order the reference method returned them) and the method's summary as
// JSON. A file that does not match the checksum recorded beside it (see
// SumSuffix) is an error.
func ReadReference(path string) (set particle.Set, summary []byte, err error) {
	b, err := readArtefact(path, "")
	if err != nil {
		return particle.Set{}, nil, err
	}
	var f refFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return particle.Set{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.R*f.C != len(f.X) || len(f.W) != f.R {
		return particle.Set{}, nil, fmt.Errorf("%s: %d×%d draws stored as %d values and %d weights", path, f.R, f.C, len(f.X), len(f.W))
	}
	return particle.Set{X: mat.NewDense(f.R, f.C, f.X), W: f.W}, f.Summary, nil
}
