package sgld

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Checkpointer = (*State)(nil)

// stateFormat is the version of the layout of MarshalState.
const stateFormat = 1

// savedState is the stored form of a State between two segments: every
// chain and the convergence monitor. The rest (the target, the settings,
// the whitening, the workers) is made again by Init from the same inputs.
type savedState struct {
	Format    int
	Chains, D int
	Iteration int
	GradEvals int64
	Converged bool

	Chain   []savedChain
	Monitor *savedMonitor
}

type savedChain struct {
	X, G     []float64
	PCG      []byte // the chain's random stream (rand.PCG's MarshalBinary)
	Perm     []int  // the minibatch epoch
	Pos      int
	Evals    int64
	It       int
	Redrawns int
	Draws    []float64
	Kept     int
	Skip     int
	Dropped  bool
	Adapt    *savedAdapt
}

type savedAdapt struct {
	LogE, Sum, Final, LPP, EPP float64
	Cnt, Rejected              int
	XP, GP                     []float64
	Has                        bool
}

type savedMonitor struct {
	Rhat, ESS        []float64
	Last, Iterations int
	Checked, Done    bool
	RhatMax, ESSMin  float64
}

// MarshalState returns the state of st between two segments, for
// UnmarshalState (sampler.Checkpointer): every chain's position, score,
// random stream, minibatch epoch, step-size adaptation and kept draws,
// and the convergence monitor. A state whose chain has failed cannot be
// saved.
func (st *State) MarshalState() ([]byte, error) {
	r := st.r
	v := savedState{Format: stateFormat, Chains: len(r.chains), D: r.d, Iteration: st.Iteration, GradEvals: st.GradEvals, Converged: st.Converged}
	for _, c := range r.chains {
		if c.err != nil {
			return nil, fmt.Errorf("%w; the state of a failed chain is not saved", c.err)
		}
		pcg, err := c.pcg.MarshalBinary()
		if err != nil {
			return nil, err
		}
		sc := savedChain{X: c.x, G: c.g, PCG: pcg, Perm: c.est.perm, Pos: c.est.pos, Evals: c.est.evals, It: c.it,
			Redrawns: c.redrawns, Draws: c.draws, Kept: c.kept, Skip: c.skip, Dropped: c.dropped}
		if a := c.ad; a != nil {
			sc.Adapt = &savedAdapt{LogE: a.logE, Sum: a.sum, Final: a.final, LPP: a.lpp, EPP: a.epp, Cnt: a.cnt, Rejected: a.rejected, XP: a.xp, GP: a.gp, Has: a.has}
		}
		v.Chain = append(v.Chain, sc)
	}
	if m := r.cv; m != nil {
		v.Monitor = &savedMonitor{Rhat: m.rhat, ESS: m.ess, Last: m.last, Iterations: m.iterations, Checked: m.checked, Done: m.done, RhatMax: m.rhatMax, ESSMin: m.essMin}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("sgld: saving the state: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalState restores st, made by Init from the same target, start,
// settings and source, to the state of b, written by MarshalState. A b
// of another layout or run (chain count, dimension, minibatch size,
// adaptation, stopping rule) is an error, and st is then unchanged.
func (st *State) UnmarshalState(b []byte) error {
	var v savedState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		return fmt.Errorf("sgld: saved state does not decode: %w", err)
	}
	r := st.r
	d := r.d
	switch {
	case v.Format != stateFormat:
		return fmt.Errorf("sgld: saved state of format %d, this build reads %d", v.Format, stateFormat)
	case v.Chains != len(r.chains) || len(v.Chain) != len(r.chains) || v.D != d:
		return fmt.Errorf("sgld: saved state of %d chains of dimension %d, this run has %d of %d", v.Chains, v.D, len(r.chains), d)
	case v.Iteration < 0 || v.GradEvals < 0:
		return fmt.Errorf("sgld: saved state at iteration %d with %d gradient evaluations", v.Iteration, v.GradEvals)
	case (v.Monitor != nil) != (r.cv != nil):
		return errors.New("sgld: saved state of another stopping rule")
	}
	if m := v.Monitor; m != nil && (len(m.Rhat) != d || len(m.ESS) != d) {
		return fmt.Errorf("sgld: saved monitor of %d and %d values, not %d", len(m.Rhat), len(m.ESS), d)
	}
	pcgs := make([]*rand.PCG, len(r.chains))
	for i, c := range r.chains {
		sc := &v.Chain[i]
		pcgs[i] = new(rand.PCG)
		if err := pcgs[i].UnmarshalBinary(sc.PCG); err != nil {
			return fmt.Errorf("sgld: saved chain %d: random stream: %w", i, err)
		}
		switch {
		case len(sc.X) != d || len(sc.G) != len(c.g):
			return fmt.Errorf("sgld: saved chain %d has %d and %d values, not %d and %d", i, len(sc.X), len(sc.G), d, len(c.g))
		case len(sc.Perm) != len(c.est.perm) || sc.Pos < 0 || sc.Pos > len(sc.Perm):
			return fmt.Errorf("sgld: saved chain %d has a minibatch epoch of %d at %d, this run's has %d", i, len(sc.Perm), sc.Pos, len(c.est.perm))
		case sc.It < 0 || sc.It != v.Iteration || sc.Evals < 0 || sc.Kept < 0 || sc.Skip < 0 || sc.Redrawns < 0:
			return fmt.Errorf("sgld: saved chain %d at iteration %d (the run's %d), %d kept", i, sc.It, v.Iteration, sc.Kept)
		case len(sc.Draws)%d != 0 || len(sc.Draws)/d > c.rows || len(sc.Draws)/d < min(sc.Kept, c.rows):
			return fmt.Errorf("sgld: saved chain %d holds %d values of draws for %d kept of at most %d rows", i, len(sc.Draws), sc.Kept, c.rows)
		case (sc.Adapt != nil) != (c.ad != nil):
			return fmt.Errorf("sgld: saved chain %d of another step-size schedule", i)
		case sc.Adapt != nil && (len(sc.Adapt.XP) != d || len(sc.Adapt.GP) != d):
			return fmt.Errorf("sgld: saved chain %d has an adaptation of dimension %d", i, len(sc.Adapt.XP))
		}
		for _, p := range sc.Perm {
			if p < 0 || p >= len(sc.Perm) {
				return fmt.Errorf("sgld: saved chain %d has data row %d in its minibatch epoch of %d", i, p, len(sc.Perm))
			}
		}
	}
	st.Iteration, st.GradEvals, st.Converged = v.Iteration, v.GradEvals, v.Converged
	for i, c := range r.chains {
		sc := &v.Chain[i]
		copy(c.x, sc.X)
		copy(c.g, sc.G)
		*c.pcg = *pcgs[i]
		copy(c.est.perm, sc.Perm)
		c.est.pos, c.est.evals = sc.Pos, sc.Evals
		c.it, c.redrawns, c.kept, c.skip, c.dropped = sc.It, sc.Redrawns, sc.Kept, sc.Skip, sc.Dropped
		c.draws = append(c.draws[:0], sc.Draws...)
		if a := sc.Adapt; a != nil {
			q := c.ad
			q.logE, q.sum, q.final, q.lpp, q.epp, q.cnt, q.rejected, q.has = a.LogE, a.Sum, a.Final, a.LPP, a.EPP, a.Cnt, a.Rejected, a.Has
			copy(q.xp, a.XP)
			copy(q.gp, a.GP)
		}
	}
	if m := v.Monitor; m != nil {
		q := r.cv
		copy(q.rhat, m.Rhat)
		copy(q.ess, m.ESS)
		q.last, q.iterations, q.checked, q.done, q.rhatMax, q.essMin = m.Last, m.Iterations, m.Checked, m.Done, m.RhatMax, m.ESSMin
	}
	return nil
}
