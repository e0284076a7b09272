// Package par runs the parts of small parallel jobs on a Team: the calling
// goroutine and a few persistent helpers, with a hand-off far cheaper than a
// channel round trip, for per-iteration work of tens of microseconds (one
// SVGD iteration) that a goroutine per call or a channel per part would
// eat up.
//
// A job is n parts, r.Run(0), …, r.Run(n−1), taken in turn from a shared
// counter by the caller (from the first on) and the helpers (from the last
// down): a part runs exactly once, on
// whichever goroutine claims it, so a job whose parts write disjoint
// outputs, each computed the same way wherever it runs, gives the same bits
// with any number of helpers, including none. The caller never waits for a
// helper to arrive: when the helpers are busy elsewhere or asleep, it runs
// the parts itself and waits only for parts already claimed.
//
// An idle helper polls for the next job for a few microseconds (SpinTime),
// then blocks on a channel and costs no CPU until the next job wakes it.
package par

import (
	"runtime"
	"sync/atomic"
	"time"
)

// SpinTime is how long an idle helper polls for the next job before it
// blocks; the caller polls as long for the last claimed part to finish
// before it blocks. A few microseconds cover the serial gaps between the
// phases of an SVGD iteration, so a busy run hands off without system
// calls, and an idle run burns no core.
const SpinTime = 5 * time.Microsecond

// Runner is a job's body: Run(k) does part k.
type Runner interface {
	Run(part int)
}

// helper states.
const (
	running int32 = iota
	parked
	quit
)

// Team is the calling goroutine plus Workers()−1 helper goroutines that run
// the parts of jobs given to Do. The zero value and a nil *Team are teams
// of one: Do runs every part on the caller. A Team is used by one goroutine
// at a time (its jobs do not nest) and must be closed.
type Team struct {
	// word packs the current job: epoch (bits 32–63) and the unclaimed
	// parts [front, back) (front in bits 16–31, back in 0–15). The caller
	// claims from the front, the helpers from the back, by
	// compare-and-swap, so a helper that saw an old job can claim nothing
	// of a new one.
	word  atomic.Uint64
	_     [56]byte
	done  atomic.Int64 // parts of the current job finished
	_     [56]byte
	r     Runner // the current job, written before word is published
	parts int64  // its number of parts

	waiting atomic.Int32 // 1 while the caller blocks on fin
	fin     chan struct{}
	helpers []*helper
}

type helper struct {
	state atomic.Int32
	wake  chan struct{}
	_     [48]byte
}

// MaxParts is the largest number of parts of one job.
const MaxParts = 1<<16 - 1

// NewTeam returns a team of min(workers, runtime.GOMAXPROCS(0)) goroutines,
// the caller included, at least one; workers ≤ 0 means GOMAXPROCS. A team
// of one starts no goroutine.
func NewTeam(workers int) *Team {
	g := runtime.GOMAXPROCS(0)
	if workers <= 0 || workers > g {
		workers = g
	}
	t := &Team{fin: make(chan struct{}, 1)}
	for k := 1; k < workers; k++ {
		h := &helper{wake: make(chan struct{}, 1)}
		t.helpers = append(t.helpers, h)
		go t.serve(h)
	}
	return t
}

// Workers returns the number of goroutines of the team, the caller
// included.
func (t *Team) Workers() int {
	if t == nil {
		return 1
	}
	return len(t.helpers) + 1
}

// Close stops the helpers. The team runs later jobs on the caller alone.
func (t *Team) Close() {
	if t == nil {
		return
	}
	for _, h := range t.helpers {
		if h.state.Swap(quit) == parked {
			h.wake <- struct{}{}
		}
	}
	t.helpers = nil
}

// Do runs r.Run(k) for k = 0, …, parts−1 and returns when all have
// returned. Parts run concurrently on the team's goroutines, in no fixed
// assignment; each runs once. It panics ("par: ...") when parts exceeds
// MaxParts. Do allocates nothing.
func (t *Team) Do(parts int, r Runner) {
	if parts > MaxParts {
		panic("par: too many parts")
	}
	if parts <= 0 {
		return
	}
	if t == nil || len(t.helpers) == 0 || parts == 1 {
		for k := 0; k < parts; k++ {
			r.Run(k)
		}
		return
	}
	t.r, t.parts = r, int64(parts)
	t.done.Store(0)
	epoch := t.word.Load()>>32 + 1
	t.word.Store(epoch<<32 | uint64(parts))
	for _, h := range t.helpers {
		if h.state.Load() == parked && h.state.CompareAndSwap(parked, running) {
			h.wake <- struct{}{}
		}
	}
	for {
		k, ok := t.claim(epoch, true)
		if !ok {
			break
		}
		r.Run(k)
		t.done.Add(1)
	}
	t.waitDone(int64(parts))
	t.r = nil
}

// claim takes the first (front) or the last unclaimed part of job epoch,
// false when none is left. Taking the rows of a job from both ends keeps
// each goroutine on about the same rows in consecutive jobs, and their
// cache lines in its cache.
func (t *Team) claim(epoch uint64, front bool) (int, bool) {
	for {
		w := t.word.Load()
		f, b := (w>>16)&0xffff, w&0xffff
		if w>>32 != epoch || f >= b {
			return 0, false
		}
		if front {
			if t.word.CompareAndSwap(w, w+1<<16) {
				return int(f), true
			}
		} else if t.word.CompareAndSwap(w, w-1) {
			return int(b - 1), true
		}
	}
}

// waitDone returns when n parts are done: it polls for SpinTime, then
// blocks until the helper that finishes the last part signals fin.
func (t *Team) waitDone(n int64) {
	if t.done.Load() == n {
		return
	}
	deadline := time.Now().Add(SpinTime)
	for i := 1; ; i++ {
		if t.done.Load() == n {
			return
		}
		if i%64 == 0 && time.Now().After(deadline) {
			break
		}
	}
	t.waiting.Store(1)
	if t.done.Load() == n && t.waiting.CompareAndSwap(1, 0) {
		return
	}
	<-t.fin // the finishing helper took waiting back and signals
}

// serve is a helper's loop: run the parts of each new job it sees, poll
// for the next for SpinTime, then block.
func (t *Team) serve(h *helper) {
	var seen uint64 // epoch of the last job looked at
	for {
		w := t.word.Load()
		if e := w >> 32; e != seen {
			seen = e
			for {
				k, ok := t.claim(e, false)
				if !ok {
					break
				}
				// r and parts are read while the job holds a claimed part, so
				// the caller cannot be starting the next one.
				r, parts := t.r, t.parts
				r.Run(k)
				if t.done.Add(1) == parts && t.waiting.CompareAndSwap(1, 0) {
					t.fin <- struct{}{}
				}
			}
			continue
		}
		if !t.idle(h, seen) {
			return
		}
	}
}

// idle waits until the epoch differs from seen: it polls for SpinTime,
// then parks on h.wake. It returns false when the team is closed.
func (t *Team) idle(h *helper, seen uint64) bool {
	deadline := time.Now().Add(SpinTime)
	for i := 1; ; i++ {
		if t.word.Load()>>32 != seen {
			return true
		}
		if h.state.Load() == quit {
			return false
		}
		if i%64 == 0 && time.Now().After(deadline) {
			break
		}
	}
	if !h.state.CompareAndSwap(running, parked) {
		return false // quit
	}
	if t.word.Load()>>32 != seen && h.state.CompareAndSwap(parked, running) {
		return true
	}
	<-h.wake // Do or Close took the state back and signals
	return h.state.Load() != quit
}
