package hmc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/safefile"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Checkpoint makes a run save the state of its chains to a file as it goes,
// and resume from that file, so that an interrupted run continues where it
// stopped and returns the draws an uninterrupted run would have returned,
// bit for bit.
//
// The file holds, per chain, the iterations done, the position with its log
// density and gradient, the step size, the inverse mass matrix, the state of
// dual averaging and of the windowed (Welford) covariance estimate, the
// counters behind the diagnostics, the state of the chain's PCG generator and
// the draws kept so far. It also holds a fingerprint of the Settings, the
// target's dimension and the generator seeds drawn from Run's source: a
// file whose fingerprint differs is refused with an error wrapping
// ErrCheckpointMismatch, as is one whose stored log densities the target does
// not reproduce.
type Checkpoint struct {
	// Path is the checkpoint file, written atomically. Run resumes from it
	// when it exists. Run does not remove it: the caller removes it once the
	// result is stored.
	Path string
	// Every, when positive, writes a checkpoint whenever the chains have
	// done a multiple of Every iterations (warm-up and sampling counted
	// together). Default 0: by time only.
	Every int
	// Interval is the wall time between two checkpoints. Default 10 s;
	// NoInterval writes by Every only (other negative values are errors).
	// A checkpoint is also written when the context is cancelled.
	Interval time.Duration
	// Write, when non-nil, stores a checkpoint's bytes at Path in place
	// of the default atomic file write (a temporary file renamed over
	// Path), e.g. to keep checkpoints elsewhere or to test a failing
	// disk. Default nil.
	Write func(path string, data []byte) error
	// Failed, when non-nil, is told of each checkpoint that could not be
	// stored (a full disk, say) and the run goes on: the next checkpoint
	// is tried as planned, and only the progress since the last stored
	// one is at risk. When nil, a failed store stops the run with its
	// error. The chains are paused while it runs. Default nil.
	Failed func(error)
}

// NoInterval as Checkpoint.Interval writes checkpoints by Every only.
const NoInterval time.Duration = -1

// ErrCheckpointMismatch marks a checkpoint file written by a run of other
// settings, another target dimension or another random source, or in another
// format; Run refuses to resume from it.
var ErrCheckpointMismatch = errors.New("checkpoint does not match this run")

// errPause stops the chains between two transitions so that a checkpoint can
// be written.
var errPause = errors.New("hmc: pause for a checkpoint")

// checkpointFormat is the version of the file layout.
const checkpointFormat = 2

// checkpointer writes and reads the checkpoints of one run. A nil
// *checkpointer runs the chains without checkpoints.
type checkpointer struct {
	ck     Checkpoint
	t      target.Target
	header ckHeader
	pause  atomic.Bool
	done   chan struct{}
	ticker *time.Ticker
}

// ckHeader identifies the run a checkpoint belongs to.
type ckHeader struct {
	Format   int
	Settings string // sha256 of the Settings that shape the draws
	Dim      int
	Seeds    []uint64
}

// ckFile is the stored form of a checkpoint.
type ckFile struct {
	Header ckHeader
	Chains []ckChain
}

// ckChain is the saved state of one chain.
type ckChain struct {
	Started bool
	It      int
	X, G    []float64
	LP, Eps float64

	MInv, PSD, Cov, Chol []float64

	DAMu, DASBar, DAXBar float64
	DACount              int

	WinCounter, WinSize, WinNext int

	WfN          int
	WfMean, WfM2 []float64

	Calls                    int64
	AcceptSum, AdaptSum      float64
	AdaptN                   int
	Steps                    int64
	NSample                  int
	Capped                   int // absent (0) in files written before it was recorded
	Divergent, WarmDivergent int

	RNG   []byte
	Draws []float64 // the kept draws, NSample × Dim row-major
}

// settingsFingerprint hashes what shapes the draws: the settings (all but
// Checkpoint and Progress), after defaults, and the start point x0.
func settingsFingerprint(s *Settings, x0 []float64) string {
	c := *s
	c.Checkpoint, c.Progress = nil, nil
	h := sha256.Sum256(fmt.Appendf(nil, "%+v X0:%v", c, x0))
	return hex.EncodeToString(h[:])
}

func newCheckpointer(s *Settings, x0 []float64, t target.Target, seeds []uint64) (*checkpointer, error) {
	if s.Checkpoint == nil || s.Checkpoint.Path == "" {
		return nil, nil
	}
	ck := *s.Checkpoint
	if ck.Every < 0 {
		panic("hmc: negative Checkpoint.Every")
	}
	if ck.Interval == 0 {
		ck.Interval = 10 * time.Second
	}
	p := &checkpointer{ck: ck, t: t, header: ckHeader{
		Format: checkpointFormat, Settings: settingsFingerprint(s, x0), Dim: t.Dim(), Seeds: seeds,
	}}
	if ck.Interval > 0 {
		done := make(chan struct{})
		p.done = done
		p.ticker = time.NewTicker(ck.Interval)
		go func() {
			for {
				select {
				case <-p.ticker.C:
					p.pause.Store(true)
				case <-done:
					return
				}
			}
		}()
	}
	return p, nil
}

// stop ends the timer; a second call does nothing.
func (p *checkpointer) stop() {
	if p == nil || p.done == nil {
		return
	}
	p.ticker.Stop()
	close(p.done)
	p.done = nil
}

// run advances every chain to iteration to, writing checkpoints on the way
// and when ctx is cancelled.
func (p *checkpointer) run(ctx context.Context, chains []*chain, to int, pooled *mat.Dense) error {
	if p == nil {
		return parallel(ctx, chains, func(ch *chain) error { return ch.advance(ctx, to, pooled, nil) })
	}
	for {
		lo, started := to, true
		for _, ch := range chains {
			lo, started = min(lo, ch.it), started && ch.started
		}
		if lo >= to && started {
			return nil
		}
		block := to
		if p.ck.Every > 0 {
			block = min(to, (lo/p.ck.Every+1)*p.ck.Every)
		}
		err := parallel(ctx, chains, func(ch *chain) error { return ch.advance(ctx, block, pooled, &p.pause) })
		switch {
		case errors.Is(err, errPause):
			p.pause.Store(false)
			if err := p.checkpoint(chains, pooled); err != nil {
				return err
			}
		case err == nil:
			if p.ck.Every > 0 && block%p.ck.Every == 0 {
				if err := p.checkpoint(chains, pooled); err != nil {
					return err
				}
			}
		case ctx.Err() != nil:
			if werr := p.checkpoint(chains, pooled); werr != nil {
				return errors.Join(err, werr)
			}
			return err
		default:
			return err
		}
	}
}

// checkpoint writes a checkpoint of the stopped chains. A store that fails
// goes to Checkpoint.Failed, when set, and the run goes on; an error in
// encoding the state (which would recur at every checkpoint) always stops
// it.
func (p *checkpointer) checkpoint(chains []*chain, pooled *mat.Dense) error {
	b, err := p.encode(chains, pooled)
	if err != nil {
		return err
	}
	write := p.ck.Write
	if write == nil {
		write = func(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }
	}
	if err := write(p.ck.Path, b); err != nil {
		err = fmt.Errorf("hmc: checkpoint %s: %w", p.ck.Path, err)
		if p.ck.Failed == nil {
			return err
		}
		p.ck.Failed(err)
	}
	return nil
}

// encode returns the stored form of the state of every chain, which must
// all be stopped.
func (p *checkpointer) encode(chains []*chain, pooled *mat.Dense) ([]byte, error) {
	f := ckFile{Header: p.header, Chains: make([]ckChain, len(chains))}
	for i, c := range chains {
		st, err := c.save(pooled)
		if err != nil {
			return nil, err
		}
		f.Chains[i] = st
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&f); err != nil {
		return nil, fmt.Errorf("hmc: checkpoint %s: %w", p.ck.Path, err)
	}
	return buf.Bytes(), nil
}

// resume restores the chains from the checkpoint file when there is one.
func (p *checkpointer) resume(chains []*chain, pooled *mat.Dense) error {
	if p == nil {
		return nil
	}
	b, err := safefile.ReadFile(p.ck.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hmc: checkpoint: %w", err)
	}
	var f ckFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return fmt.Errorf("hmc: checkpoint %s: %w: unreadable: %v", p.ck.Path, ErrCheckpointMismatch, err)
	}
	h, want := f.Header, p.header
	var why string
	switch {
	case h.Format != want.Format:
		why = fmt.Sprintf("format %d, this run writes %d", h.Format, want.Format)
	case h.Settings != want.Settings:
		why = "written with other settings"
	case h.Dim != want.Dim:
		why = fmt.Sprintf("dimension %d, the target has %d", h.Dim, want.Dim)
	case !slices.Equal(h.Seeds, want.Seeds):
		why = "written with another random source or seed"
	case len(f.Chains) != len(chains):
		why = fmt.Sprintf("%d chains, this run has %d", len(f.Chains), len(chains))
	}
	if why != "" {
		return fmt.Errorf("hmc: checkpoint %s: %w: %s", p.ck.Path, ErrCheckpointMismatch, why)
	}
	for i, c := range chains {
		if err := c.restore(&f.Chains[i], pooled); err != nil {
			return fmt.Errorf("hmc: checkpoint %s: %w: chain %d: %v", p.ck.Path, ErrCheckpointMismatch, i, err)
		}
	}
	return nil
}

// save returns the chain's state; its kept draws are read from pooled.
func (c *chain) save(pooled *mat.Dense) (ckChain, error) {
	rng, err := c.pcg.MarshalBinary()
	if err != nil {
		return ckChain{}, fmt.Errorf("hmc: chain %d: %w", c.id, err)
	}
	d := len(c.x)
	st := ckChain{
		Started: c.started, It: c.it,
		X: clone(c.x), G: clone(c.g), LP: c.lp, Eps: c.eps,
		MInv: clone(c.m.minv), PSD: clone(c.m.psd), Cov: clone(c.m.cov.Data), Chol: clone(c.m.chol.Data),
		DAMu: c.da.mu, DASBar: c.da.sBar, DAXBar: c.da.xBar, DACount: c.da.count,
		WinCounter: c.win.counter, WinSize: c.win.size, WinNext: c.win.next,
		WfN: c.wf.n, WfMean: clone(c.wf.mean), WfM2: clone(c.wf.m2),
		Calls: c.calls, AcceptSum: c.acceptSum, AdaptSum: c.adaptSum, AdaptN: c.adaptN,
		Steps: c.steps, NSample: c.nSample, Capped: c.capped, Divergent: c.divergent, WarmDivergent: c.warmDivergent,
		RNG:   rng,
		Draws: make([]float64, 0, c.nSample*d),
	}
	for i := 0; i < c.nSample; i++ {
		st.Draws = append(st.Draws, pooled.RawRowView(i*c.s.Chains+c.id)...)
	}
	return st, nil
}

// restore sets the chain's state from st and writes its kept draws into
// pooled, after checking that the target reproduces the stored log density.
func (c *chain) restore(st *ckChain, pooled *mat.Dense) error {
	d := len(c.x)
	n := len(c.m.cov.Data)
	switch {
	case len(st.X) != d || len(st.G) != d || len(st.MInv) != d || len(st.PSD) != d || len(st.WfMean) != d:
		return errors.New("vector lengths differ from the dimension")
	case len(st.Cov) != n || len(st.Chol) != n || len(st.WfM2) != len(c.wf.m2):
		return errors.New("metric size differs from this run's")
	case st.It < 0 || st.It > c.s.Warmup+c.s.DrawsPerChain || st.NSample != max(0, st.It-c.s.Warmup) || len(st.Draws) != st.NSample*d:
		return fmt.Errorf("iteration %d and %d draws do not fit %d warm-up and %d sampling iterations", st.It, st.NSample, c.s.Warmup, c.s.DrawsPerChain)
	}
	if st.Started {
		lp := c.t.LogProbGrad(st.X, c.gp)
		if !(math.Abs(lp-st.LP) <= 1e-9*max(1, math.Abs(st.LP))) {
			return fmt.Errorf("the target's log density at the saved point is %v, the checkpoint says %v: another target", lp, st.LP)
		}
	}
	if err := c.pcg.UnmarshalBinary(st.RNG); err != nil {
		return err
	}
	c.started, c.it = st.Started, st.It
	copy(c.x, st.X)
	copy(c.g, st.G)
	c.lp, c.eps = st.LP, st.Eps
	copy(c.m.minv, st.MInv)
	copy(c.m.psd, st.PSD)
	copy(c.m.cov.Data, st.Cov)
	copy(c.m.chol.Data, st.Chol)
	c.da.mu, c.da.sBar, c.da.xBar, c.da.count = st.DAMu, st.DASBar, st.DAXBar, st.DACount
	c.win.counter, c.win.size, c.win.next = st.WinCounter, st.WinSize, st.WinNext
	c.wf.n = st.WfN
	copy(c.wf.mean, st.WfMean)
	copy(c.wf.m2, st.WfM2)
	c.calls, c.acceptSum, c.adaptSum, c.adaptN = st.Calls, st.AcceptSum, st.AdaptSum, st.AdaptN
	c.steps, c.nSample, c.divergent, c.warmDivergent = st.Steps, st.NSample, st.Divergent, st.WarmDivergent
	c.capped = st.Capped
	c.metricChanged()
	for i := 0; i < st.NSample; i++ {
		copy(pooled.RawRowView(i*c.s.Chains+c.id), st.Draws[i*d:(i+1)*d])
	}
	return nil
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }
