package sampler

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// Checkpointer is a State that can save its whole run between two steps
// and be restored to it: svgd.State, sgld.State, sp.State and
// mmdfw.State are ones (hmc.State is not). A State
// made by the same Init (the same target, start, settings and source)
// and given the bytes of MarshalState by UnmarshalState continues as the
// saved state would have, bit for bit: its steps, snapshots and result
// are those of the run that was saved. UnmarshalState checks what it can
// (dimensions, counts, the method's format) and, on error, leaves the
// state as it was.
type Checkpointer interface {
	MarshalState() ([]byte, error)
	UnmarshalState(b []byte) error
}

// Checkpoints is a recorder that keeps checkpoints of the run it records,
// so that an interrupted run can resume: Run and Drive, given one as their
// recorder and a State that is a Checkpointer, save the state with Save
// when Due says so (after a snapshot's Record, and when ctx is found
// cancelled between two steps), and, when Saved returns a checkpoint,
// restore it before the first step and tell the recorder with Restored.
// The recorder keeps, beside the bytes it is given, what it recorded up
// to the moment of Save, and restores it when Restored reports success:
// the snapshots after the restored step are then recorded as an
// uninterrupted run records them (seconds aside, which continue from the
// saved count). A recorder that returns an error because ctx is cancelled
// has not recorded the snapshot it was given.
type Checkpoints interface {
	particle.Recorder
	// Saved returns the checkpoint to resume from (the bytes of an
	// earlier Save), nil for none.
	Saved() []byte
	// Restored reports the outcome of resuming from Saved: step, the
	// method's Step of the restored state, and err nil when the run goes
	// on from it, else why the checkpoint was ignored (the run then
	// starts from its beginning).
	Restored(step int, err error)
	// Due reports whether a checkpoint is wanted now.
	Due() bool
	// Save keeps b, the run's checkpoint after the snapshot of step
	// (pending: before the recorder was given that snapshot, which the
	// resumed run records first).
	Save(step int, b []byte)
}

// UnwrapRecorder is a recorder that wraps another (adding costs to its
// snapshots, say); Run and Drive look through it for Checkpoints.
type UnwrapRecorder interface {
	particle.Recorder
	Unwrap() particle.Recorder
}

// checkpointsOf returns the Checkpoints that rec is or wraps, nil for
// none.
func checkpointsOf(rec particle.Recorder) Checkpoints {
	for rec != nil {
		if c, ok := rec.(Checkpoints); ok {
			return c
		}
		u, ok := rec.(UnwrapRecorder)
		if !ok {
			return nil
		}
		rec = u.Unwrap()
	}
	return nil
}

// checkpointFormat is the version of the loop's checkpoint layout.
const checkpointFormat = 1

// loopCheckpoint is the loop's checkpoint: its own counters around the
// state's bytes.
type loopCheckpoint struct {
	Format  int
	Step    int     // the loop's count of steps
	Label   int     // the Step of the snapshot (the method's count)
	Seconds float64 // the loop's clock
	Pending bool    // the snapshot of Step is still to be recorded
	State   []byte
}

// save offers the recorder a checkpoint of st after the loop's step.
func (l *loop) save(st State, step int, pending bool) {
	cs, ok := st.(Checkpointer)
	if l.ck == nil || !ok {
		return
	}
	b, err := cs.MarshalState()
	if err != nil {
		// A state that cannot be saved now is saved at a later one.
		return
	}
	label := step
	if sc, ok := st.(Scheduled); ok {
		var snap particle.Snapshot
		if sc.Snapshot(&snap) {
			label = snap.Step
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(loopCheckpoint{
		Format: checkpointFormat, Step: step, Label: label, Seconds: l.seconds(), Pending: pending, State: b,
	}); err != nil {
		return
	}
	l.ck.Save(label, buf.Bytes())
}

// restore restores st from the recorder's saved checkpoint: it returns
// the loop's step and whether the snapshot of that step is still to be
// recorded, and ok false when there was nothing to restore or it was
// ignored (the recorder told why).
func (l *loop) restore(st State) (step int, pending, ok bool) {
	if l.ck == nil {
		return 0, false, false
	}
	b := l.ck.Saved()
	if b == nil {
		return 0, false, false
	}
	var c loopCheckpoint
	err := gob.NewDecoder(bytes.NewReader(b)).Decode(&c)
	cs, isCk := st.(Checkpointer)
	switch {
	case err != nil:
		err = fmt.Errorf("sampler: checkpoint does not decode: %w", err)
	case c.Format != checkpointFormat:
		err = fmt.Errorf("sampler: checkpoint format %d, this build reads %d", c.Format, checkpointFormat)
	case !isCk:
		err = errors.New("sampler: the method's state cannot be restored")
	case c.Step < 0 || c.Seconds < 0:
		err = fmt.Errorf("sampler: checkpoint at step %d, %g s", c.Step, c.Seconds)
	default:
		err = cs.UnmarshalState(c.State)
	}
	if err != nil {
		l.ck.Restored(c.Label, err)
		return 0, false, false
	}
	l.base = c.Seconds
	l.ck.Restored(c.Label, nil)
	return c.Step, c.Pending, true
}

// MarshalSource returns the stream of src for a checkpoint: src must be a
// *rand.PCG or a *rand.ChaCha8 (their MarshalBinary); another source is an
// error, and a run from it cannot be saved.
func MarshalSource(src rand.Source) ([]byte, error) {
	switch s := src.(type) {
	case *rand.PCG:
		return s.MarshalBinary()
	case *rand.ChaCha8:
		return s.MarshalBinary()
	}
	return nil, fmt.Errorf("a source of type %T cannot be saved", src)
}

// UnmarshalSource sets src to the stream b that MarshalSource returned. It
// decodes b first and changes src only when b decodes, so that a caller
// may make it its last check.
func UnmarshalSource(src rand.Source, b []byte) error {
	switch s := src.(type) {
	case *rand.PCG:
		var t rand.PCG
		if err := t.UnmarshalBinary(b); err != nil {
			return err
		}
		*s = t
		return nil
	case *rand.ChaCha8:
		var t rand.ChaCha8
		if err := t.UnmarshalBinary(b); err != nil {
			return err
		}
		*s = t
		return nil
	}
	return fmt.Errorf("a source of type %T cannot be restored", src)
}
