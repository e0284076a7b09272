package hmc

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// failingWriter stores checkpoints as atomicfile does, except for the
// writes whose 1-based numbers are in fail, which report a full disk.
type failingWriter struct {
	mu     sync.Mutex
	fail   map[int]bool
	n      int   // writes asked for
	stored []int // numbers of the writes stored
}

func (w *failingWriter) write(path string, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	if w.fail[w.n] {
		return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}
	w.stored = append(w.stored, w.n)
	return atomicfile.Write(path, data, 0o644)
}

// A checkpoint that cannot be stored is reported to Failed and the run
// goes on to the draws of a run without checkpoints; the next checkpoint is
// stored, and a run resumed from it matches too. Without Failed, the
// failed write stops the run with its error.
func TestCheckpointWriteFailureIsRetried(t *testing.T) {
	g := newGaussian(rand.New(rand.NewPCG(5, 5)), 3, 0.5, 5)
	base := Settings{Chains: 2, Warmup: 200, DrawsPerChain: 300}
	hmcRes, err := Run(context.Background(), g.target(), particle.Start{}, base, rand.NewPCG(1, 9), nil)
	want, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}

	// Checkpoints at iterations 50, 100, …, 500; the 2nd and 3rd (100,
	// 150) and the last (500) fail.
	path := filepath.Join(t.TempDir(), "ref.ckpt")
	w := &failingWriter{fail: map[int]bool{2: true, 3: true, 10: true}}
	var failed []error
	s := base
	s.Checkpoint = &Checkpoint{Path: path, Every: 50, Interval: NoInterval, Write: w.write,
		Failed: func(err error) { failed = append(failed, err) }}
	var at200 []byte // the checkpoint on disk when the chains pass 200
	s.Progress = func(p ChainProgress) {
		if p.Chain == 0 && p.Done == 201 {
			at200, _ = os.ReadFile(path)
		}
	}
	hmcRes, err = Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 9), nil)
	got, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatalf("a run whose checkpoints fail to store: %v", err)
	}
	sameResult(t, "failing checkpoints", want, got)
	if w.n != 10 || len(failed) != 3 {
		t.Fatalf("%d writes, %d reported failures (%v); want 10 writes, 3 failures", w.n, len(failed), failed)
	}
	for _, err := range failed {
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "hmc: checkpoint "+path) {
			t.Errorf("reported failure %q does not name the file and wrap the cause", err)
		}
	}
	if at200 == nil {
		t.Error("no checkpoint stored by iteration 200: the write after the failures was not tried")
	}
	// The file holds the last stored checkpoint (iteration 450): a run
	// resumed from it does the remaining 50 iterations per chain and
	// matches.
	var after int
	var mu sync.Mutex
	s.Progress = func(ChainProgress) { mu.Lock(); after++; mu.Unlock() }
	s.Checkpoint = &Checkpoint{Path: path, Every: 50, Interval: NoInterval}
	hmcRes, err = Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 9), nil)
	again, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if after != 2*50 {
		t.Errorf("resumed run did %d transitions, want 100 (2 chains from iteration 450)", after)
	}
	sameResult(t, "resumed after failures", want, again)

	// Without Failed the first failure stops the run.
	w = &failingWriter{fail: map[int]bool{2: true}}
	s = base
	s.Checkpoint = &Checkpoint{Path: filepath.Join(t.TempDir(), "ref.ckpt"), Every: 50, Interval: NoInterval, Write: w.write}
	if _, err := Run(context.Background(), g.target(), particle.Start{}, s, rand.NewPCG(1, 9), nil); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("without Failed: err = %v, want the write's error", err)
	}
	if w.n != 2 {
		t.Errorf("without Failed: %d writes, want 2 (the run stops at the failure)", w.n)
	}
}
