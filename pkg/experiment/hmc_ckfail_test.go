package experiment

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// TestReferenceGoesOnWhenCheckpointsFail stores no checkpoint at all (every
// write reports a full disk): the reference still completes with the draws
// of a run whose checkpoints are stored, its cells are done, and the log
// says, per failed write, that the reference goes on.
func TestReferenceGoesOnWhenCheckpointsFail(t *testing.T) {
	old := hmcCheckpoint
	defer func() { hmcCheckpoint = old }()
	hmcCheckpoint.Every, hmcCheckpoint.Interval = 40, -1

	whole := t.TempDir()
	runRefExperiment(t, context.Background(), whole)
	want, _ := loadRef(t, whole)

	var writes atomic.Int64
	hmcCheckpoint.Write = func(path string, data []byte) error {
		writes.Add(1)
		return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}
	results := t.TempDir()
	log := runRefExperiment(t, context.Background(), results)
	t.Logf("first warning: %s", ckfailLine(log, "checkpoint not written"))
	if writes.Load() == 0 {
		t.Fatal("no checkpoint write was attempted")
	}
	if n := strings.Count(log, "checkpoint not written; the reference goes on"); int64(n) != writes.Load() {
		t.Errorf("%d warnings for %d failed writes:\n%s", n, writes.Load(), log)
	}
	if !strings.Contains(log, "no space left on device") {
		t.Errorf("the warning does not carry the cause:\n%s", log)
	}
	provs, _ := filepath.Glob(filepath.Join(results, "base", "ckpt", "*", "*", "*", "*.json"))
	if len(provs) == 0 {
		t.Fatalf("no cell result under %s:\n%s", results, log)
	}
	for _, p := range provs {
		pr, err := harness.ReadProvenance(p)
		if err != nil || pr.Status != harness.Done {
			t.Errorf("%s: %v, %+v", p, err, pr)
		}
	}
	got, _ := loadRef(t, results)
	if len(got.X) != len(want.X) {
		t.Fatalf("reference of %d values, want %d", len(got.X), len(want.X))
	}
	for i := range want.X {
		if math.Float64bits(got.X[i]) != math.Float64bits(want.X[i]) {
			t.Fatalf("reference differs at entry %d: %v vs %v", i, got.X[i], want.X[i])
		}
	}
}

// ckfailLine returns the first line of log that contains s.
func ckfailLine(log, s string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
