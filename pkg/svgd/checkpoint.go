package svgd

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"slices"

	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Checkpointer = (*State)(nil)

// stateFormat is the version of the layout of MarshalState.
const stateFormat = 1

// savedState is the stored form of a State between two updates: what
// Step reads and writes. The rest (the target, the settings, the
// whitening, the workspace) is made again by Init from the same inputs.
type savedState struct {
	Format    int
	N, D      int
	Iteration int
	GradEvals int64
	Bandwidth float64
	Settled   bool

	X, Hist, Scores []float64
	LP              []float64
	H               float64
	Perm            []int
	Pos             int
	Evals           int64

	Plateau *savedPlateau
}

type savedPlateau struct {
	It, Flat, Windows  int
	Mean, SD, Avg      []float64
	Done               bool
	Last               float64
	HaveWindowsStarted bool
}

// MarshalState returns the state of st between two updates, for
// UnmarshalState (sampler.Checkpointer): the particles, their AdaGrad
// history, the last scores and log densities, the minibatch order and
// position, the counts and the stopping rule's windows. Step draws no
// random numbers, so no stream is saved.
func (st *State) MarshalState() ([]byte, error) {
	r := st.r
	n, d := r.x.Dims()
	v := savedState{
		Format: stateFormat, N: n, D: d,
		Iteration: st.Iteration, GradEvals: st.GradEvals, Bandwidth: st.Bandwidth, Settled: st.Settled,
		X: r.x.RawMatrix().Data, Hist: r.hist.RawMatrix().Data, Scores: r.scores.RawMatrix().Data,
		LP: r.lp, H: r.h, Perm: r.perm, Pos: r.pos, Evals: r.evals,
	}
	if p := r.plat; p != nil {
		v.Plateau = &savedPlateau{It: p.it, Flat: p.flat, Windows: p.windows, Mean: p.mean, SD: p.sd, Avg: p.avg,
			Done: p.done, Last: p.last, HaveWindowsStarted: p.mean != nil}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("svgd: saving the state: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalState restores st, made by Init from the same target, start,
// settings and source, to the state of b, written by MarshalState. A b
// of another layout, size or run (particle count, dimension, minibatch
// order) is an error, and st is then unchanged.
func (st *State) UnmarshalState(b []byte) error {
	var v savedState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		return fmt.Errorf("svgd: saved state does not decode: %w", err)
	}
	r := st.r
	n, d := r.x.Dims()
	nd := n * d
	switch {
	case v.Format != stateFormat:
		return fmt.Errorf("svgd: saved state of format %d, this build reads %d", v.Format, stateFormat)
	case v.N != n || v.D != d:
		return fmt.Errorf("svgd: saved state of %d particles of dimension %d, this run has %d of %d", v.N, v.D, n, d)
	case len(v.X) != nd || len(v.Hist) != nd || len(v.Scores) != nd || len(v.LP) != n:
		return fmt.Errorf("svgd: saved state has %d, %d, %d values and %d log densities, not %d and %d", len(v.X), len(v.Hist), len(v.Scores), len(v.LP), nd, n)
	case v.Iteration < 0 || v.Iteration > max(st.s.Iterations, v.Iteration) || v.GradEvals < 0 || v.Evals < 0:
		return fmt.Errorf("svgd: saved state at iteration %d with %d gradient evaluations", v.Iteration, v.GradEvals)
	case !slices.Equal(v.Perm, r.perm):
		return fmt.Errorf("svgd: saved state of another minibatch order")
	case len(r.perm) > 0 && (v.Pos < 0 || v.Pos >= len(r.perm)) || len(r.perm) == 0 && v.Pos != 0:
		return fmt.Errorf("svgd: saved minibatch position %d out of range", v.Pos)
	case (v.Plateau != nil) != (r.plat != nil):
		return fmt.Errorf("svgd: saved state of another stopping rule")
	}
	if p := v.Plateau; p != nil && p.HaveWindowsStarted && (len(p.Mean) != d || len(p.SD) != d || len(p.Avg) != nd) {
		return fmt.Errorf("svgd: saved stopping rule of %d, %d and %d values, not %d and %d", len(p.Mean), len(p.SD), len(p.Avg), d, nd)
	}
	st.Iteration, st.GradEvals, st.Bandwidth, st.Settled = v.Iteration, v.GradEvals, v.Bandwidth, v.Settled
	copy(r.x.RawMatrix().Data, v.X)
	copy(r.hist.RawMatrix().Data, v.Hist)
	copy(r.scores.RawMatrix().Data, v.Scores)
	copy(r.lp, v.LP)
	r.h, r.pos, r.evals = v.H, v.Pos, v.Evals
	if p := v.Plateau; p != nil {
		q := r.plat
		q.it, q.flat, q.windows, q.done, q.last = p.It, p.Flat, p.Windows, p.Done, p.Last
		q.mean, q.sd, q.m, q.v, q.avg = nil, nil, nil, nil, nil
		if p.HaveWindowsStarted {
			q.mean, q.sd, q.avg = p.Mean, p.SD, p.Avg
			q.m, q.v = make([]float64, d), make([]float64, d)
		}
	}
	return nil
}
