package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmdfw/mmdfw/internal/testutil"
)

// counter records how often each part ran; work makes each part take
// about that long.
type counter struct {
	hits []atomic.Int32
	work time.Duration
}

func (c *counter) Run(k int) {
	c.hits[k].Add(1)
	if c.work > 0 {
		for t := time.Now(); time.Since(t) < c.work; {
		}
	}
}

func TestDoRunsEveryPartOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, w := range []int{0, 1, 2, 3} {
			team := NewTeam(w)
			if got, want := team.Workers(), min(procs, max(w, procs*boolInt(w <= 0))); w > 0 && got != want {
				t.Errorf("GOMAXPROCS %d, NewTeam(%d).Workers() = %d, want %d", procs, w, got, want)
			}
			for _, parts := range []int{0, 1, 2, 7, 64, 1000} {
				for rep := 0; rep < 20; rep++ {
					c := &counter{hits: make([]atomic.Int32, parts)}
					if rep%5 == 4 {
						c.work = time.Microsecond
					}
					if rep%7 == 6 {
						time.Sleep(3 * SpinTime) // let the helpers park
					}
					team.Do(parts, c)
					for k := range c.hits {
						if h := c.hits[k].Load(); h != 1 {
							t.Fatalf("GOMAXPROCS %d, workers %d, %d parts: part %d ran %d times", procs, w, parts, k, h)
						}
					}
				}
			}
			team.Close()
			// A closed team runs jobs on the caller.
			c := &counter{hits: make([]atomic.Int32, 5)}
			team.Do(5, c)
			for k := range c.hits {
				if c.hits[k].Load() != 1 {
					t.Fatalf("closed team: part %d ran %d times", k, c.hits[k].Load())
				}
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestNilTeam(t *testing.T) {
	var team *Team
	if team.Workers() != 1 {
		t.Errorf("nil team has %d workers", team.Workers())
	}
	c := &counter{hits: make([]atomic.Int32, 3)}
	team.Do(3, c)
	team.Close()
	for k := range c.hits {
		if c.hits[k].Load() != 1 {
			t.Fatalf("nil team: part %d ran %d times", k, c.hits[k].Load())
		}
	}
}

func TestDoPanicsOnTooManyParts(t *testing.T) {
	defer func() {
		if r := recover(); r != "par: too many parts" {
			t.Errorf("recovered %v", r)
		}
	}()
	NewTeam(1).Do(MaxParts+1, &counter{})
}

// TestHelperTakesParts: with two workers and parts that take a while, the
// helper takes some of them.
func TestHelperTakesParts(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	team := NewTeam(2)
	defer team.Close()
	var helperRan atomic.Int32
	for rep := 0; rep < 50 && helperRan.Load() == 0; rep++ {
		r := &ownerRecorder{owner: goid(), helper: &helperRan}
		team.Do(64, r)
	}
	if helperRan.Load() == 0 {
		t.Error("the helper ran no part of 50 jobs of 64 parts")
	}
}

type ownerRecorder struct {
	owner  uint64
	helper *atomic.Int32
}

func (o *ownerRecorder) Run(int) {
	for t := time.Now(); time.Since(t) < 20*time.Microsecond; {
	}
	if goid() != o.owner {
		o.helper.Add(1)
	}
}

// goid identifies the running goroutine by its stack's header line.
func goid() uint64 {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	var id uint64
	for _, c := range buf[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// chanRound is the channel hand-off of pkg/model's pool: one task sent to
// a worker, the caller's part, and a WaitGroup wait.
type chanRound struct {
	tasks chan *sync.WaitGroup
	wg    sync.WaitGroup
}

// spin is a job whose parts each take about a microsecond of busy work.
type spin struct{ d time.Duration }

func (s spin) Run(int) {
	for t := time.Now(); time.Since(t) < s.d; {
	}
}

// BenchmarkHandoff is one job of two parts of 1 µs each: on a team of two
// the wall time above 1 µs is the hand-off (waking the helper, its claim,
// and the wait for it), against 2 µs on one goroutine ("alone") and the
// round trip through a channel and a WaitGroup of pkg/model's pool
// ("channel"). "gap" jobs come after a pause longer than SpinTime, so the
// helper has parked and the job pays its wake-up; "do-ns/op" is the time in
// Do alone.
func BenchmarkHandoff(b *testing.B) {
	job := spin{time.Microsecond}
	for _, w := range []int{1, 2} {
		name := "team"
		if w == 1 {
			name = "alone"
		}
		b.Run(name, func(b *testing.B) {
			team := NewTeam(w)
			defer team.Close()
			cpu := testutil.StartCPU()
			for b.Loop() {
				team.Do(2, job)
			}
			cpu.Report(b)
		})
	}
	b.Run("team/gap", func(b *testing.B) {
		team := NewTeam(2)
		defer team.Close()
		var inDo time.Duration
		for b.Loop() {
			time.Sleep(4 * SpinTime)
			t := time.Now()
			team.Do(2, job)
			inDo += time.Since(t)
		}
		b.ReportMetric(float64(inDo.Nanoseconds())/float64(b.N), "do-ns/op")
	})
	b.Run("channel", func(b *testing.B) {
		c := &chanRound{tasks: make(chan *sync.WaitGroup, 1)}
		go func() {
			for wg := range c.tasks {
				job.Run(1)
				wg.Done()
			}
		}()
		defer close(c.tasks)
		cpu := testutil.StartCPU()
		for b.Loop() {
			c.wg.Add(1)
			c.tasks <- &c.wg
			job.Run(0)
			c.wg.Wait()
		}
		cpu.Report(b)
	})
}
