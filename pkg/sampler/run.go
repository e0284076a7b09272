package sampler

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// Scheduled is a State that says where its snapshots fall, what they
// hold and what its run gives when it ends otherwise than by Done; Run
// and Drive record a State that is not one after every step, labelled
// with the count of steps. Every method of this module is one: SVGD
// records every RecordEvery updates, SGLD and HMC advance their chains a
// segment at a time on several goroutines, MMD-FW and Stein Points label
// a snapshot with the count of particles and MMD-FW adds its statistics.
type Scheduled interface {
	State
	// Advance makes the steps up to the state's next snapshot, one or
	// more, with the result of as many calls of Step; it stops at Done.
	// A cancelled ctx returns an error wrapping ctx.Err().
	Advance(ctx context.Context) error
	// Snapshot writes into snap the snapshot of the state after its last
	// Advance (before the first, of its start): Step (the method's own
	// count), X and W (in the target's coordinates, valid until the next
	// call), GradEvals (Evals) and Stats, and reports whether there is
	// one to record (false, with snap unspecified, before the method has
	// a set or between its record points). Seconds are the caller's.
	Snapshot(snap *particle.Snapshot) bool
	// Finish returns the result of the run ended with err: nil when it
	// is Done, particle.ErrStop when its recorder ended it at the last
	// snapshot (the set of that snapshot, without the conclusions of the
	// stopping rule), a *RecordError when its recorder failed, else the
	// error of Advance (ctx's included). It returns err (or an error
	// wrapping it) beside what the method keeps of a run ended so, and
	// nil or a *particle.FlaggedError after nil or ErrStop. Result is
	// Finish(context.Background(), nil).
	Finish(ctx context.Context, err error) (Result, error)
}

// RecordError is the error of a recorder other than particle.ErrStop,
// with the Step of the snapshot it was given.
type RecordError struct {
	Step int
	Err  error
}

// Error names the step and the recorder's error.
func (e *RecordError) Error() string {
	return fmt.Sprintf("sampler: recorder at step %d: %v", e.Step, e.Err)
}

// Unwrap returns the recorder's error.
func (e *RecordError) Unwrap() error { return e.Err }

// Init makes the State of a run. rec is nil or the recorder of Run,
// on Run's clock, for the snapshots that the method's set-up reports
// itself (MMD-FW's first particle, as soon as it exists); a State made
// after rec returned particle.ErrStop is not stepped.
type Init func(rec particle.Recorder) (State, error)

// Run makes a State with init and runs it to its end as Drive does, on
// one clock from the start of init, so that the snapshots' seconds and
// the result's count the set-up; then it closes the state. Every method's
// package function Run is this loop over its Init. An error of init is
// returned as it is, with an empty Result.
func Run(ctx context.Context, init Init, rec particle.Recorder) (Result, error) {
	l := newLoop(rec)
	l.sw.Start()
	var setup particle.Recorder
	var held []particle.Snapshot
	switch {
	case l.ck != nil && l.ck.Saved() != nil:
		// The set-up's snapshots were recorded by the run that saved the
		// checkpoint: they are held, and recorded only when it is not
		// restored.
		setup = particle.RecorderFunc(func(s particle.Snapshot) error {
			l.sw.Stop()
			s.Seconds = l.seconds()
			held = append(held, copySnapshot(s))
			l.sw.Start()
			return nil
		})
	case rec != nil:
		setup = particle.RecorderFunc(l.setup)
	}
	st, err := init(setup)
	if err != nil {
		l.sw.Stop()
		return Result{}, err
	}
	defer st.Close()
	if l.ck != nil && l.ck.Saved() != nil {
		step, pending, ok := l.restore(st)
		if ok {
			return l.resume(ctx, st, step, pending)
		}
		for _, s := range held {
			if l.stopped {
				break
			}
			l.sw.Stop()
			err := l.rec.Record(s)
			l.sw.Start()
			switch {
			case errors.Is(err, particle.ErrStop):
				l.stopped = true
			case err != nil:
				l.sw.Stop()
				sc, _ := st.(Scheduled)
				return l.end(ctx, st, sc, &RecordError{Step: s.Step, Err: err})
			}
		}
	}
	return l.drive(ctx, st)
}

// copySnapshot returns a copy of s that owns its particles, weights and
// statistics.
func copySnapshot(s particle.Snapshot) particle.Snapshot {
	if s.X != nil {
		s.X = mat.DenseCopyOf(s.X)
	}
	s.W = append([]float64(nil), s.W...)
	if s.Stats != nil {
		m := make(map[string]float64, len(s.Stats))
		for k, v := range s.Stats {
			m[k] = v
		}
		s.Stats = m
	}
	return s
}

// Drive runs st to its end: it records the start (the snapshot before the
// first step) and the set after every step through rec (nil records
// nothing), steps until st.Done, and returns st.Result; a Scheduled state
// advances and records as it says. particle.ErrStop from rec ends the run
// with the result at that snapshot and a nil error (beside Strict's);
// another error from rec, from ctx or from Step ends it with that error
// (a recorder's as a *RecordError) and the result of the steps made so far
// when a cancellation or the recorder left the state readable. Drive does
// not close st. The snapshots' Seconds and, when st does not time itself
// (Result's Cost.Seconds is zero), the result's, are the seconds of the
// steps, recording excluded; their GradEvals is st.Evals. A snapshot
// before the method has a set (SGLD's burn-in, HMC's warm-up) is skipped.
// Each snapshot is assembled off the clock into buffers that Drive or st
// reuse: a recorder that keeps a snapshot past its Record call copies it.
// A recorder that is (or wraps) a Checkpoints, with a State that is a
// Checkpointer, has the run saved as it goes and resumed from its saved
// checkpoint (see Checkpoints); Run does the same, and holds back the
// set-up's snapshots of a run that resumes.
func Drive(ctx context.Context, st State, rec particle.Recorder) (Result, error) {
	l := newLoop(rec)
	l.sw.Start()
	if step, pending, ok := l.restore(st); ok {
		return l.resume(ctx, st, step, pending)
	}
	return l.drive(ctx, st)
}

func newLoop(rec particle.Recorder) *loop {
	return &loop{rec: rec, ck: checkpointsOf(rec)}
}

// loop is the one run loop of Run and Drive: its clock, its recorder and
// the buffers of its snapshots.
type loop struct {
	rec     particle.Recorder
	sw      particle.Stopwatch
	stopped bool // the set-up's recorder returned particle.ErrStop
	set     particle.Set
	snap    particle.Snapshot
	// ck is the recorder's Checkpoints, nil when it keeps none; base is
	// the seconds of the run a checkpoint restored.
	ck   Checkpoints
	base float64
}

// seconds returns the loop's clock: the restored run's seconds and this
// one's.
func (l *loop) seconds() float64 { return l.base + l.sw.Seconds() }

// setup records a snapshot that a method's set-up reports itself, on the
// loop's clock.
func (l *loop) setup(s particle.Snapshot) error {
	l.sw.Stop()
	s.Seconds = l.seconds()
	err := l.rec.Record(s)
	l.sw.Start()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, particle.ErrStop):
		l.stopped = true
		return err
	}
	return &RecordError{Step: s.Step, Err: err}
}

func (l *loop) drive(ctx context.Context, st State) (Result, error) {
	sc, _ := st.(Scheduled)
	if l.stopped {
		return l.end(ctx, st, sc, particle.ErrStop)
	}
	if err := l.record(ctx, st, sc, 0); err != nil {
		return l.end(ctx, st, sc, err)
	}
	return l.steps(ctx, st, sc, 1)
}

// resume goes on with st restored after the loop's step: it records the
// snapshot of that step when it is pending, then steps.
func (l *loop) resume(ctx context.Context, st State, step int, pending bool) (Result, error) {
	sc, _ := st.(Scheduled)
	if pending {
		if err := l.record(ctx, st, sc, step); err != nil {
			return l.end(ctx, st, sc, err)
		}
	}
	return l.steps(ctx, st, sc, step+1)
}

// steps steps st from the loop's step first until it is done, recording
// after each step.
func (l *loop) steps(ctx context.Context, st State, sc Scheduled, first int) (Result, error) {
	for step := first; !st.Done(); step++ {
		if l.ck != nil && ctx.Err() != nil {
			// Between two steps the state is whole: the run resumes
			// from here.
			l.save(st, step-1, false)
		}
		var err error
		if sc != nil {
			err = sc.Advance(ctx)
		} else if err = ctx.Err(); err == nil {
			err = st.Step(ctx)
		}
		if err != nil {
			return l.end(ctx, st, sc, err)
		}
		if err := l.record(ctx, st, sc, step); err != nil {
			return l.end(ctx, st, sc, err)
		}
	}
	return l.end(ctx, st, sc, nil)
}

// record reports the state after step to the recorder, off the clock; it
// returns particle.ErrStop or a *RecordError from the recorder. With a
// recorder that keeps checkpoints it saves one when the recorder wants it
// after the snapshot, and one pending the snapshot when the recorder
// refused it for ctx's cancellation.
func (l *loop) record(ctx context.Context, st State, sc Scheduled, step int) error {
	if l.rec == nil {
		return nil
	}
	l.sw.Stop()
	defer l.sw.Start()
	if sc != nil {
		if !sc.Snapshot(&l.snap) {
			if l.ck != nil && l.ck.Due() {
				l.save(st, step, false)
			}
			return nil
		}
	} else {
		st.Set(&l.set)
		if l.set.X == nil {
			return nil
		}
		l.snap = particle.Snapshot{Step: step, X: l.set.X, W: l.set.W, GradEvals: st.Evals()}
	}
	l.snap.Seconds = l.seconds()
	err := l.rec.Record(l.snap)
	switch {
	case err == nil:
		if l.ck != nil && l.ck.Due() {
			l.save(st, step, false)
		}
		return nil
	case ctx.Err() != nil && l.ck != nil && !errors.Is(err, particle.ErrStop):
		l.save(st, step, true)
	case errors.Is(err, particle.ErrStop):
		return particle.ErrStop
	}
	return &RecordError{Step: l.snap.Step, Err: err}
}

// end stops the clock and returns the result of the run ended with err
// (nil, particle.ErrStop, a *RecordError or the error of a step).
func (l *loop) end(ctx context.Context, st State, sc Scheduled, err error) (Result, error) {
	l.sw.Stop()
	var res Result
	var rerr error
	switch {
	case sc != nil:
		res, rerr = sc.Finish(ctx, err)
	case err == nil || err == particle.ErrStop:
		res, rerr = st.Result()
	default:
		var re *RecordError
		if ctx.Err() == nil && !errors.As(err, &re) {
			// A failed step leaves nothing to read.
			return Result{}, err
		}
		res, _ = st.Result()
		rerr = err
	}
	if res.Cost.Seconds == 0 {
		res.Cost.Seconds = l.seconds()
	}
	return res, rerr
}

// Set returns the set of r with err: Set(m.Run(…)) for a caller that
// keeps only the particles, as Sampler.Run returns them.
func Set(r Result, err error) (particle.Set, error) { return r.Set, err }
