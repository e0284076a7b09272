package particle

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Set is a weighted particle set: row i of X is particle xᵢ, W[i] its weight.
type Set struct {
	X *mat.Dense
	W []float64
	// Diag is what the method that made the set says about it (see
	// Diagnostics); the zero value says nothing.
	Diag Diagnostics
}

// Len returns the number of particles.
func (s Set) Len() int {
	if s.X == nil {
		return 0
	}
	r, _ := s.X.Dims()
	return r
}

// Mean writes the weighted mean Σᵢ wᵢ xᵢ into dst (allocated when nil) and
// returns it.
func (s Set) Mean(dst []float64) []float64 {
	n, d := s.X.Dims()
	if dst == nil {
		dst = make([]float64, d)
	}
	if len(dst) != d || len(s.W) != n {
		panic("particle: dimension mismatch")
	}
	for j := range dst {
		dst[j] = 0
	}
	for i := 0; i < n; i++ {
		w := s.W[i]
		for j, v := range s.X.RawRowView(i) {
			dst[j] += w * v
		}
	}
	return dst
}

// Clone returns a deep copy of s, its diagnostics included.
func (s Set) Clone() Set {
	var x *mat.Dense
	if s.X != nil {
		x = mat.DenseCopyOf(s.X)
	}
	c := Set{X: x, W: append([]float64(nil), s.W...)}
	for _, k := range s.Diag.Names() {
		c.Diag.Set(k, s.Diag.Values[k])
	}
	c.Diag.Flags = append([]Flag(nil), s.Diag.Flags...)
	return c
}

// Equal returns n weights 1/n.
func Equal(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	return w
}

// Snapshot is the state of a method at one point of its run.
//
// X, W and Stats are only valid during the Record call that receives them:
// a Recorder that keeps them must copy them.
type Snapshot struct {
	// Step counts what the method counts: particles added (MMD-FW, SP),
	// iterations (SVGD, SGLD, HMC).
	Step int
	// X and W are the current weighted particles.
	X *mat.Dense
	W []float64
	// Seconds is the compute time since the start of Run, excluding the time
	// spent in Record.
	Seconds float64
	// GradEvals counts per-datapoint likelihood-gradient evaluations so far
	// (see target.NData).
	GradEvals int64
	// Stats are method-internal quantities known exactly at this snapshot,
	// e.g. the objective; nil when none. A method knows some quantities
	// that no outside metric can recompute cheaply or at all (MMD² in its
	// own random-feature kernel, from its closed-form embedding), so it
	// reports them here. The method may reuse one map for every snapshot.
	Stats map[string]float64
}

// Recorder receives snapshots. Returning ErrStop asks the method to stop and
// return its current particles without error; any other error aborts the run
// and is returned by the method.
type Recorder interface {
	Record(s Snapshot) error
}

// RecorderFunc adapts a function to a Recorder.
type RecorderFunc func(Snapshot) error

// Record calls f.
func (f RecorderFunc) Record(s Snapshot) error { return f(s) }

// Discard is a Recorder that keeps nothing.
var Discard Recorder = RecorderFunc(func(Snapshot) error { return nil })

// ErrStop is returned by a Recorder to stop a method early, for example when
// a wall-clock budget is spent.
var ErrStop = errors.New("particle: stop requested")

// Stopwatch measures a method's compute time with pauses.
// The zero value is stopped at zero.
type Stopwatch struct {
	total   time.Duration
	started time.Time
	running bool
}

// Start resumes the stopwatch.
func (s *Stopwatch) Start() {
	if !s.running {
		s.started = time.Now()
		s.running = true
	}
}

// Stop pauses the stopwatch.
func (s *Stopwatch) Stop() {
	if s.running {
		s.total += time.Since(s.started)
		s.running = false
	}
}

// Seconds returns the accumulated running time.
func (s *Stopwatch) Seconds() float64 {
	t := s.total
	if s.running {
		t += time.Since(s.started)
	}
	return t.Seconds()
}

// Report fills snap.Seconds from sw, pauses sw while rec.Record runs and
// resumes it afterwards. It returns (true, nil) when the recorder asked to
// stop, and the recorder's error otherwise. A nil rec records nothing.
func Report(rec Recorder, sw *Stopwatch, snap Snapshot) (stop bool, err error) {
	if rec == nil {
		return false, nil
	}
	sw.Stop()
	snap.Seconds = sw.Seconds()
	err = rec.Record(snap)
	sw.Start()
	if errors.Is(err, ErrStop) {
		return true, nil
	}
	return false, err
}

// CheckFinite returns an error naming the method, the step and the first
// non-finite coordinate of x, or nil when every value is finite. Methods call
// it so that a divergence is an error, never NaN particles.
func CheckFinite(method string, step int, x []float64) error {
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: diverged at step %d: coordinate %d is %v", method, step, j, v)
		}
	}
	return nil
}
