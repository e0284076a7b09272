package sp

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Checkpointer = (*State)(nil)

// stateFormat is the version of the layout of MarshalState.
const stateFormat = 1

// savedState is the stored form of a State between two points. The rest
// (the target, the settings, the whitening, the scratch of a step) is
// made again by Init from the same inputs.
type savedState struct {
	Format    int
	D         int
	Points    int
	GradEvals int64
	KSD2      float64
	Settled   bool

	Src []byte // the run's random stream (rand.PCG's or rand.ChaCha8's MarshalBinary)

	X, S, LPs []float64 // the points, their scores and log densities
	Calls     int64
	Refused   int
	DLo, DHi  []float64

	Cost Cost
	Stop *savedStop
}

type savedStop struct {
	K0, KSD2, Equal float64
	Done            bool
	Points          int
}

// MarshalState returns the state of st between two points, for
// UnmarshalState (sampler.Checkpointer): the points with their scores and
// log densities, the search domain, the cost trace, the stopping rule and
// the random stream of the source Init was given, which must be a
// *rand.PCG or a *rand.ChaCha8 (another is an error: the run cannot be
// saved).
func (st *State) MarshalState() ([]byte, error) {
	r := st.r
	o := r.obj
	if o.err != nil {
		return nil, fmt.Errorf("%w; the state of a failed run is not saved", o.err)
	}
	src, err := sampler.MarshalSource(r.src)
	if err != nil {
		return nil, fmt.Errorf("sp: %w", err)
	}
	v := savedState{
		Format: stateFormat, D: o.d, Points: st.Points, GradEvals: st.GradEvals, KSD2: st.KSD2, Settled: st.Settled,
		Src: src, X: o.x, S: o.s, LPs: o.lps, Calls: o.calls, Refused: r.ref.refused, DLo: r.dlo, DHi: r.dhi, Cost: r.cost,
	}
	if k := st.ks; k != nil {
		v.Stop = &savedStop{K0: k.k0, KSD2: k.ksd2, Equal: k.equal, Done: k.done, Points: k.points}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("sp: saving the state: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalState restores st, made by Init from the same target, start,
// settings and source, to the state of b, written by MarshalState. A b
// of another layout or run (dimension, counts, stopping rule, source
// type) is an error, and st is then unchanged.
func (st *State) UnmarshalState(b []byte) error {
	var v savedState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		return fmt.Errorf("sp: saved state does not decode: %w", err)
	}
	r := st.r
	o := r.obj
	d := o.d
	n := v.Points
	c := &v.Cost
	switch {
	case v.Format != stateFormat:
		return fmt.Errorf("sp: saved state of format %d, this build reads %d", v.Format, stateFormat)
	case v.D != d:
		return fmt.Errorf("sp: saved state of dimension %d, this run's is %d", v.D, d)
	case n < 0 || len(v.X) != n*d || len(v.S) != n*d || len(v.LPs) != n:
		return fmt.Errorf("sp: saved state of %d points holds %d, %d and %d values", n, len(v.X), len(v.S), len(v.LPs))
	case len(c.Candidates) != n || len(c.Refine) != n || len(c.Outside) != n || len(c.Projected) != n || len(c.Rejected) != n || len(c.Objective) != n:
		return fmt.Errorf("sp: saved cost trace does not have %d points", n)
	case n > 0 && (len(v.DLo) != d || len(v.DHi) != d):
		return fmt.Errorf("sp: saved search domain of %d and %d values, not %d", len(v.DLo), len(v.DHi), d)
	case v.Calls < 0 || v.GradEvals < 0 || v.Refused < 0:
		return fmt.Errorf("sp: saved state with %d score calls", v.Calls)
	case (v.Stop != nil) != (st.ks != nil):
		return errors.New("sp: saved state of another stopping rule")
	}
	if err := sampler.UnmarshalSource(r.src, v.Src); err != nil {
		return fmt.Errorf("sp: saved random stream: %w", err)
	}
	st.Points, st.GradEvals, st.KSD2, st.Settled = v.Points, v.GradEvals, v.KSD2, v.Settled
	o.x = append(o.x[:0], v.X...)
	o.s = append(o.s[:0], v.S...)
	o.lps = append(o.lps[:0], v.LPs...)
	o.n, o.calls = n, v.Calls
	r.ref.refused = v.Refused
	if n > 0 {
		copy(r.dlo, v.DLo)
		copy(r.dhi, v.DHi)
	}
	r.cost.ScoreCalls = c.ScoreCalls
	r.cost.Candidates = append(r.cost.Candidates[:0], c.Candidates...)
	r.cost.Refine = append(r.cost.Refine[:0], c.Refine...)
	r.cost.Outside = append(r.cost.Outside[:0], c.Outside...)
	r.cost.Projected = append(r.cost.Projected[:0], c.Projected...)
	r.cost.Rejected = append(r.cost.Rejected[:0], c.Rejected...)
	r.cost.Objective = append(r.cost.Objective[:0], c.Objective...)
	if k := v.Stop; k != nil {
		q := st.ks
		q.k0, q.ksd2, q.equal, q.done, q.points = k.K0, k.KSD2, k.Equal, k.Done, k.Points
	}
	return nil
}
