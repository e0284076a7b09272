package hmc

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// State is an HMC run between two transitions of its chains: Init makes
// one, Step advances every chain by one transition (Steps by several, one
// goroutine per chain, with the same result bit for bit), Result reads the
// draws and diagnostics, and Run is the loop
//
//	st, err := Init(ctx, t, start, s, src)
//	defer st.Close()
//	for st.Iteration < st.Warmup+st.DrawsPerChain { err = Steps(ctx, st, k) }
//	res, err := st.Detail() // or st.Result(), the sampler.Result
//
// with its snapshots every RecordEvery sampling iterations. Iterations
// 0 … Warmup−1 of a chain are warm-up (they adapt the step size and the
// inverse mass matrix, and keep no draw), iterations Warmup … Warmup+DrawsPerChain−1
// sampling (each keeps its draw). The chains' positions, random streams,
// adaptation and kept draws live inside the State; the fields below are
// what a caller reads between steps. Step sets them.
//
// With Settings.Checkpoint, Init resumes from the checkpoint file when it
// exists, and Step and Steps write checkpoints as Run does (every
// Checkpoint.Every iterations, every Checkpoint.Interval, and when ctx is
// cancelled).
type State struct {
	// Iteration is the number of iterations, warm-up and sampling
	// together, that every chain has done: 0 after Init (unless it
	// resumed from a checkpoint), Warmup+DrawsPerChain at the end. Chains resumed
	// from a checkpoint written on a cancellation may be ahead of it.
	Iteration int
	// Phase is the phase of iteration Iteration, the next one:
	// PhaseWarmup while Iteration < Warmup, then PhaseSampling.
	Phase Phase
	// Warmup and DrawsPerChain are the resolved schedule per chain: the
	// Settings' values after defaults (Warmup 0 with NoWarmup).
	Warmup, DrawsPerChain int
	// GradEvals is the number of per-datapoint gradient evaluations
	// spent so far (calls × target.NData), the search for the starting
	// points and step sizes included.
	GradEvals int64
	// ResumedAt is the number of iterations of the least advanced chain
	// in the checkpoint Init resumed from; 0 when it started afresh.
	ResumedAt int

	t      target.Target
	s      *Settings // resolved; the chains hold the same pointer
	d      int
	nd     int64
	chains []*chain
	pooled *mat.Dense // draw i of chain c in row i·Chains + c
	ck     *checkpointer
	errs   []error // Step's per-chain errors, reused
	// recorded is the count of sampling draws per chain of the last
	// Advance, the Step of its snapshot; warm tells that Advance has
	// made the warm-up.
	recorded int
	warm     bool
}

// Init returns the state of an HMC run before its first transition:
// s.Chains chains, chain c with its own PCG stream seeded by the c-th pair
// of numbers drawn from src. No chain has a starting point yet: the first
// Step (or Steps) finds each chain's and, when there is a warm-up, its initial step size
// (Stan's heuristic). With s.Checkpoint, Init resumes from the checkpoint
// file when there is one, or returns an error wrapping
// ErrCheckpointMismatch when it belongs to another run (another start
// included).
//
// The chains start around start.X0 when it is not nil (length Dim): chain
// c at X0 + InitScale·z, z ~ N(0, I); else from prior draws when the target
// is a target.PriorSampler, and uniformly on [−2, 2]ᵈ (Stan's default)
// otherwise; each draws again, up to 100 times, until its log density and
// score are finite. A starting set (start.Particles) is an error.
//
// With a checkpoint interval the State keeps a timer goroutine: Close
// releases it.
func Init(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source) (*State, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	d := t.Dim()
	if err := start.NoParticles("hmc"); err != nil {
		return nil, err
	}
	if start.X0 != nil && len(start.X0) != d {
		return nil, fmt.Errorf("hmc: X0 has length %d, target dimension is %d", len(start.X0), d)
	}
	x0 := append([]float64(nil), start.X0...)
	st := &State{Warmup: s.Warmup, DrawsPerChain: s.DrawsPerChain, t: t, s: &s, d: d, nd: int64(target.NData(t))}
	rng := rand.New(src)
	st.chains = make([]*chain, s.Chains)
	seeds := make([]uint64, 2*s.Chains)
	for c := range st.chains {
		seeds[2*c], seeds[2*c+1] = rng.Uint64(), rng.Uint64()
		st.chains[c] = newChain(c, t, st.s, x0, rand.NewPCG(seeds[2*c], seeds[2*c+1]))
	}
	st.errs = make([]error, s.Chains)
	st.pooled = mat.NewDense(s.Chains*s.DrawsPerChain, d, nil)
	if st.ck, err = newCheckpointer(st.s, x0, t, seeds); err != nil {
		return nil, err
	}
	if err := st.ck.resume(st.chains, st.pooled); err != nil {
		st.Close()
		return nil, err
	}
	st.ResumedAt = st.chains[0].it
	for _, ch := range st.chains {
		st.ResumedAt = min(st.ResumedAt, ch.it)
	}
	st.update()
	return st, nil
}

// Step advances every chain of st by one transition, in the phase the
// schedule gives iteration st.Iteration: in warm-up a transition followed
// by a step of dual averaging and of the windowed estimate of the inverse
// mass matrix, in sampling a transition whose state is kept as a draw.
// The chains take their turns on the calling goroutine; without a
// checkpoint Step allocates nothing once every chain has started. A
// cancelled ctx returns ctx.Err() (after writing a checkpoint when
// Settings.Checkpoint asks for one); a chain that reaches a non-finite
// state returns an error naming the chain and the iteration, as Run does.
// Step after the last iteration does nothing.
func Step(ctx context.Context, st *State) error {
	return st.advance(ctx, min(st.Iteration+1, st.Warmup+st.DrawsPerChain), true)
}

// Steps advances every chain of st by k transitions (fewer at the end of
// the schedule), one goroutine per chain: k calls of Step, with the same
// result bit for bit. Run advances by Steps.
func Steps(ctx context.Context, st *State, k int) error {
	return st.advance(ctx, min(st.Iteration+k, st.Warmup+st.DrawsPerChain), false)
}

// advance runs every chain to iteration to (warm-up and sampling counted
// together), through the checkpointer when there is one, else on the
// calling goroutine when serial and one goroutine per chain otherwise;
// then it updates the exported fields.
func (st *State) advance(ctx context.Context, to int, serial bool) error {
	var err error
	switch {
	case st.ck != nil || !serial:
		err = st.ck.run(ctx, st.chains, to, st.pooled)
	default:
		for c, ch := range st.chains {
			st.errs[c] = ch.advance(ctx, to, st.pooled, nil)
		}
		if err = ctx.Err(); err == nil {
			err = firstNonNil(st.errs)
		}
	}
	st.update()
	return err
}

// update sets Iteration, Phase and GradEvals from the chains.
func (st *State) update() {
	it := st.chains[0].it
	var calls int64
	for _, ch := range st.chains {
		it = min(it, ch.it)
		calls += ch.calls
	}
	st.Iteration, st.GradEvals = it, calls*st.nd
	st.Phase = PhaseWarmup
	if it >= st.Warmup {
		st.Phase = PhaseSampling
	}
}

// Detail returns the sampling draws every chain has made so far
// (Iteration − Warmup of them) with the per-chain diagnostics, R̂, ESS and
// the flags, as Run returns them; Seconds is zero (the caller times
// its own loop). Before the first sampling draw it returns an error and no
// Result. With Settings.Strict a flagged result comes with a
// *particle.FlaggedError. The state is not changed: Step may go on after
// Detail. It is Result's Detail.
func (st *State) Detail() (*Result, error) {
	done := min(max(st.Iteration-st.Warmup, 0), st.DrawsPerChain)
	if done == 0 {
		return nil, fmt.Errorf("hmc: no sampling draw yet: iteration %d, warm-up of %d", st.Iteration, st.Warmup)
	}
	return st.result(done, nil)
}

// Close releases the checkpoint timer of st, if any. Step and Steps may
// still be called (checkpoints are then written by Every and on
// cancellation only); Result may.
func (st *State) Close() {
	st.ck.stop()
}

// result builds the Result of the first done sampling draws of every
// chain. When sw is non-nil it stops sw after the diagnostics that Flagged
// rests on and records its seconds.
func (st *State) result(done int, sw *particle.Stopwatch) (*Result, error) {
	s, d := st.s, st.d
	res := &Result{
		Set:         particle.Set{X: mat.DenseCopyOf(st.pooled.Slice(0, done*s.Chains, 0, d)), W: particle.Equal(done * s.Chains)},
		Chains:      make([]*mat.Dense, s.Chains),
		Diagnostics: make([]ChainDiagnostics, s.Chains),
	}
	for c, ch := range st.chains {
		m := mat.NewDense(done, d, nil)
		for i := 0; i < done; i++ {
			m.SetRow(i, st.pooled.RawRowView(i*s.Chains+c))
		}
		res.Chains[c] = m
		res.Diagnostics[c] = ch.diagnostics()
	}
	res.diagnose(s)
	if sw != nil {
		sw.Stop()
		res.Seconds = sw.Seconds()
	}
	res.GradEvals = st.GradEvals
	res.ResumedAt = st.ResumedAt
	res.fillDiag()
	return res, particle.Strict("hmc", res.Set, s.Strict)
}
