package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/safefile"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

// CheckpointDir is the folder, under the results directory, where a cell
// that is running keeps the checkpoint it can resume from, one file per
// cache key (<key>.ckpt). A name beginning with a dot keeps it out of
// every listing of results.
const CheckpointDir = ".tmp/checkpoints"

// CellCheckpointEvery is how often, at most, a running cell whose method
// can resume saves a checkpoint (at its next snapshot after that long;
// 0: at every snapshot). A checkpoint is also saved when the run is
// cancelled between two of the method's steps.
var CellCheckpointEvery = 10 * time.Second

// maxCheckpoint bounds the size of a checkpoint file read back.
const maxCheckpoint = 1 << 30

// cellCheckpointFormat is the version of the layout of a cell's
// checkpoint file.
const cellCheckpointFormat = 1

// cellCheckpoint is what a cell's checkpoint file holds: the key and cell
// it belongs to, what the recorder had written and counted when it was
// saved, and the run's state (sampler's bytes).
type cellCheckpoint struct {
	Format int
	Key    string
	Cell   string
	Step   int

	CSV           []byte // the CSV written so far, header included
	Rows          int
	LastKey       float64
	LastEvalSec   float64
	LastEvalGrads int64
	NextLog       int
	Evaluated     bool
	Seen          bool
	LastStep      int
	LastSeconds   float64
	LastGradEvals int64
	LastStats     map[string]float64
	NaN           string

	State []byte
}

// checkpointFile is the stored form of a cellCheckpoint: its gob bytes
// and their sha256.
type checkpointFile struct {
	SHA256 [sha256.Size]byte
	Body   []byte
}

// CheckpointFile returns the file where a running cell of cache key key
// keeps its checkpoint.
func (r *Runner) CheckpointFile(key string) string {
	return filepath.Join(r.opts.Results, filepath.FromSlash(CheckpointDir), key+".ckpt")
}

// cellCheckpoints makes rec keep the checkpoints of cell c, of cache key
// key, in path, and loads the one an interrupted run left there: one that
// cannot be read, does not decode or belongs to another key or cell is
// removed with a log line, and the cell starts from its beginning.
func (rec *recorder) cellCheckpoints(log *slog.Logger, key, path string) {
	rec.ck = &recCheckpoints{log: log, key: key, path: path, last: time.Now(), resumed: -1}
	b, err := safefile.ReadFileMax(path, maxCheckpoint)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil {
		var f checkpointFile
		var c cellCheckpoint
		switch err = gob.NewDecoder(bytes.NewReader(b)).Decode(&f); {
		case err != nil:
			err = fmt.Errorf("does not decode: %w", err)
		case sha256.Sum256(f.Body) != f.SHA256:
			err = errors.New("does not match its sha256")
		default:
			err = gob.NewDecoder(bytes.NewReader(f.Body)).Decode(&c)
			switch {
			case err != nil:
				err = fmt.Errorf("does not decode: %w", err)
			case c.Format != cellCheckpointFormat:
				err = fmt.Errorf("format %d, this build reads %d", c.Format, cellCheckpointFormat)
			case c.Key != key || c.Cell != rec.cell.ID:
				err = fmt.Errorf("written for cell %s key %s", c.Cell, c.Key)
			case len(c.CSV) < len(CSVHeader)+1 || string(c.CSV[:len(CSVHeader)+1]) != CSVHeader+"\n":
				err = errors.New("its CSV does not begin with the header")
			}
		}
		if err == nil {
			rec.ck.saved = &c
			return
		}
	}
	log.Warn("checkpoint ignored; the cell starts from its beginning", "cell", rec.cell.ID, "checkpoint", path, "reason", err)
	rec.ck.remove()
}

// recCheckpoints is the checkpoint side of a cell's recorder.
type recCheckpoints struct {
	log  *slog.Logger
	key  string
	path string
	last time.Time // of the last save, or the cell's start

	saved *cellCheckpoint // to resume from, nil for none
	csv   bytes.Buffer    // a copy of the CSV written
	// resumed is the Step the cell resumed from, −1 when it did not.
	resumed int
	failed  bool // a save failed, and was logged
}

var _ sampler.Checkpoints = (*recorder)(nil)

// Saved implements sampler.Checkpoints.
func (r *recorder) Saved() []byte {
	if r.ck == nil || r.ck.saved == nil {
		return nil
	}
	return r.ck.saved.State
}

// Restored implements sampler.Checkpoints: on success the recorder takes
// back what it had written and counted at the checkpoint.
func (r *recorder) Restored(step int, err error) {
	k := r.ck
	c := k.saved
	k.saved = nil
	if err != nil {
		k.log.Warn("checkpoint ignored; the cell starts from its beginning", "cell", r.cell.ID, "checkpoint", k.path, "reason", err)
		k.remove()
		return
	}
	if r.started {
		panic("harness: checkpoint restored after the recorder's first row")
	}
	r.start()
	r.w.Write(c.CSV[len(CSVHeader)+1:])
	r.rows, r.lastKey, r.lastEvalSec, r.lastEvalGrads, r.nextLog = c.Rows, c.LastKey, c.LastEvalSec, c.LastEvalGrads, c.NextLog
	r.evaluated, r.seen = c.Evaluated, c.Seen
	r.last = lastSnapshot(c)
	if len(c.LastStats) > 0 {
		r.lastStats = c.LastStats
		r.last.Stats = r.lastStats
	}
	if c.NaN != "" {
		r.nan = errors.New(c.NaN)
	}
	k.resumed = step
	k.log.Info(fmt.Sprintf("cell resumed from step %d", step), "cell", r.cell.ID, "checkpoint", k.path)
}

// Due implements sampler.Checkpoints.
func (r *recorder) Due() bool {
	return r.ck != nil && time.Since(r.ck.last) >= CellCheckpointEvery
}

// Save implements sampler.Checkpoints: it writes the checkpoint file, and
// logs a failure (once) without ending the cell.
func (r *recorder) Save(step int, state []byte) {
	k := r.ck
	if k == nil {
		return
	}
	k.last = time.Now()
	r.start()
	err := r.w.Flush()
	if err == nil {
		c := cellCheckpoint{
			Format: cellCheckpointFormat, Key: k.key, Cell: r.cell.ID, Step: step,
			CSV: k.csv.Bytes(), Rows: r.rows, LastKey: r.lastKey, LastEvalSec: r.lastEvalSec, LastEvalGrads: r.lastEvalGrads,
			NextLog: r.nextLog, Evaluated: r.evaluated, Seen: r.seen,
			LastStep: r.last.Step, LastSeconds: r.last.Seconds, LastGradEvals: r.last.GradEvals, LastStats: r.lastStats,
			State: state,
		}
		if r.nan != nil {
			c.NaN = r.nan.Error()
		}
		err = k.write(&c)
	}
	if err != nil && !k.failed {
		k.failed = true
		k.log.Warn("checkpoint not written; the cell goes on", "cell", r.cell.ID, "checkpoint", k.path, "error", err)
	}
}

func (k *recCheckpoints) write(c *cellCheckpoint) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(c); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := gob.NewEncoder(&out).Encode(checkpointFile{SHA256: sha256.Sum256(body.Bytes()), Body: body.Bytes()}); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(k.path, out.Bytes(), 0o644)
}

// remove removes the checkpoint file, if any.
func (k *recCheckpoints) remove() {
	if k == nil {
		return
	}
	if err := os.Remove(k.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		k.log.Warn("checkpoint not removed", "checkpoint", k.path, "error", err)
	}
}

// lastSnapshot returns the last snapshot a checkpoint's recorder saw,
// without particles.
func lastSnapshot(c *cellCheckpoint) particle.Snapshot {
	return particle.Snapshot{Step: c.LastStep, Seconds: c.LastSeconds, GradEvals: c.LastGradEvals}
}
