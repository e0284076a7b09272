package mmdfw

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mmdfw/mmdfw/pkg/sampler"
)

var _ sampler.Checkpointer = (*State)(nil)

// stateFormat is the version of the layout of MarshalState: 2 since Rule
// became a string type (format 1 held it as an integer with a text form,
// which gob writes differently, so that a state of format 1 does not
// decode and the run starts afresh).
const stateFormat = 2

// savedState is the stored form of a State between two particles: what
// Step reads and writes. The rest (the target, the settings, the
// whitening, the first particle, the scales, the bandwidth, the kernel,
// the embedding, the candidates' law, the buffers) is made again by
// Init from the same inputs; the bandwidth, the AdaGrad steps and the
// random features are saved to check that it was.
type savedState struct {
	Format  int
	D, N    int // dimension and ceiling
	Rule    Rule
	Settled bool

	Src []byte // the run's random stream (rand.PCG's or rand.ChaCha8's MarshalBinary)

	H     float64   // the bandwidth
	Eps   []float64 // the LMO's AdaGrad steps
	Omega []float64 // the random features' frequencies (d×D) and phases
	Phase []float64

	Evals, MAPEvals, PoolEvals, SVGDEvals, LapEvals, TrainEvals int64

	Particles int
	X, S, LP  []float64 // the particles, their scores and log densities (n×d, n×d, n)
	Phi       []float64 // their random features (n×D)
	MMD       []float64 // the MMD² trace
	Weights   savedWeights
	Stop      *savedStop // StopKSD's rule now and before the last particle
	StopPrev  *savedStop
}

// savedWeights is the weights' state: the weights (the solver's warm
// start), the leading n×n blocks of the Gram, Cholesky and Stein kernel
// matrices, z, and the pairwise solver's state.
type savedWeights struct {
	N          int
	W, K, Z, L []float64
	K0, NB     []float64

	Pairwise      bool
	G, Diag       []float64
	Sup           []int
	Pos           []int32
	MaxAbs, Drift float64
	Stats         WeightStats
}

type savedStop struct {
	Size, N     int
	KSD2, Equal float64
	Done        bool
}

// block returns the leading n×n block of the c×c matrix a (nil for nil).
func block(a []float64, c, n int) []float64 {
	if a == nil {
		return nil
	}
	b := make([]float64, 0, n*n)
	for i := 0; i < n; i++ {
		b = append(b, a[i*c:i*c+n]...)
	}
	return b
}

// unblock writes the n×n block b into the leading block of the c×c
// matrix a.
func unblock(a, b []float64, c, n int) {
	for i := 0; i < n; i++ {
		copy(a[i*c:i*c+n], b[i*n:i*n+n])
	}
}

// sameLen reports whether b has n·m values where a is kept (a ≠ nil), and
// none where it is not.
func sameLen(a, b []float64, n int) bool {
	if a == nil {
		return len(b) == 0
	}
	return len(b) == n
}

// MarshalState returns the state of st between two particles, for
// UnmarshalState (sampler.Checkpointer): the particles with their scores,
// log densities and random features, the weights with the matrices and
// the pairwise solver's state they are solved from, the MMD² trace, the
// gradient evaluations, StopKSD's rule and the random stream of the
// source Init was given, which must be a *rand.PCG or a
// *rand.ChaCha8 (another is an error: the run cannot be saved).
func (st *State) MarshalState() ([]byte, error) {
	r := st.r
	if r.n == 0 {
		return nil, errors.New("mmdfw: no particle to save")
	}
	src, err := sampler.MarshalSource(r.src)
	if err != nil {
		return nil, fmt.Errorf("mmdfw: %w", err)
	}
	n, d, c := r.n, r.d, r.wt.cap
	wt := r.wt
	v := savedState{
		Format: stateFormat, D: d, N: r.s.N, Rule: wt.rule, Settled: st.Settled, Src: src,
		H: r.h, Eps: r.eps,
		Evals: r.evals, MAPEvals: r.mapEvals, PoolEvals: r.poolEvals, SVGDEvals: r.svgdEvals, LapEvals: r.lapEvals, TrainEvals: r.trainEvals,
		Particles: n,
		X:         r.X.RawMatrix().Data[:n*d],
		S:         r.S.RawMatrix().Data[:n*d],
		LP:        r.lp[:n],
		MMD:       r.mmd,
	}
	if r.rff != nil {
		v.Omega, v.Phase = r.rff.Omega().RawMatrix().Data, r.rff.Phase()
		D := r.rff.Len()
		v.Phi = r.phi.RawMatrix().Data[:n*D]
	}
	v.Weights = savedWeights{N: wt.n, W: wt.w[:n], K: block(wt.K, c, n), L: block(wt.L, c, n), K0: block(wt.K0, c, n)}
	if wt.z != nil {
		v.Weights.Z = wt.z[:n]
	}
	if wt.qp.nb != nil {
		v.Weights.NB = wt.qp.nb[:n]
	}
	if p := &wt.qp; p.pairwise {
		v.Weights.Pairwise = true
		v.Weights.G, v.Weights.Diag, v.Weights.Sup, v.Weights.Pos = p.g[:n], p.diag[:n], p.sup, p.pos[:n]
		v.Weights.MaxAbs, v.Weights.Drift, v.Weights.Stats = p.maxAbs, p.drift, p.stats
	}
	if k := r.ks; k != nil {
		p := &r.ksPrev
		v.Stop = &savedStop{Size: k.size, N: k.n, KSD2: k.ksd2, Equal: k.equal, Done: k.done}
		v.StopPrev = &savedStop{Size: p.size, N: p.n, KSD2: p.ksd2, Equal: p.equal, Done: p.done}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("mmdfw: saving the state: %w", err)
	}
	return buf.Bytes(), nil
}

// sameBits reports whether a and b hold the same values bit for bit.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// UnmarshalState restores st, made by Init from the same target,
// start, settings and source, to the state of b, written by
// MarshalState. A b of another layout or run (dimension, ceiling, weight
// rule or solver, bandwidth, AdaGrad steps, random features, stopping
// rule, source type) is an error, and st is then unchanged.
func (st *State) UnmarshalState(b []byte) error {
	var v savedState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		return fmt.Errorf("mmdfw: saved state does not decode: %w", err)
	}
	r := st.r
	wt := r.wt
	d, c := r.d, wt.cap
	n := v.Particles
	sw := &v.Weights
	var D int
	if r.rff != nil {
		D = r.rff.Len()
	}
	switch {
	case v.Format != stateFormat:
		return fmt.Errorf("mmdfw: saved state of format %d, this build reads %d", v.Format, stateFormat)
	case v.D != d || v.N != r.s.N || v.Rule != wt.rule:
		return fmt.Errorf("mmdfw: saved state of dimension %d, %d particles at most and %v weights; this run's are %d, %d and %v", v.D, v.N, v.Rule, d, r.s.N, wt.rule)
	case n < 1 || n > c || sw.N != n:
		return fmt.Errorf("mmdfw: saved state of %d particles (weights of %d), this run holds 1 to %d", n, sw.N, c)
	case len(v.X) != n*d || len(v.S) != n*d || len(v.LP) != n || len(v.Phi) != n*D:
		return fmt.Errorf("mmdfw: saved state of %d particles holds %d, %d, %d and %d values", n, len(v.X), len(v.S), len(v.LP), len(v.Phi))
	case math.Float64bits(v.H) != math.Float64bits(r.h) || !sameBits(v.Eps, r.eps):
		return fmt.Errorf("mmdfw: saved state of bandwidth %v and AdaGrad steps %v, this run's are %v and %v", v.H, v.Eps, r.h, r.eps)
	case r.rff != nil && (!sameBits(v.Omega, r.rff.Omega().RawMatrix().Data) || !sameBits(v.Phase, r.rff.Phase())):
		return errors.New("mmdfw: saved state of other random features")
	case r.rff == nil && (v.Omega != nil || v.Phase != nil):
		return errors.New("mmdfw: saved state of random features, this run's kernel is an RBF")
	case r.emb != nil && len(v.MMD) != n || r.emb == nil && len(v.MMD) != 0:
		return fmt.Errorf("mmdfw: saved MMD² trace of %d values for %d particles", len(v.MMD), n)
	case len(sw.W) != n || !sameLen(wt.K, sw.K, n*n) || !sameLen(wt.L, sw.L, n*n) || !sameLen(wt.K0, sw.K0, n*n) ||
		!sameLen(wt.z, sw.Z, n) || !sameLen(wt.qp.nb, sw.NB, n):
		return fmt.Errorf("mmdfw: saved weights do not have %d particles or are of another rule", n)
	case sw.Pairwise != wt.qp.pairwise:
		return errors.New("mmdfw: saved weights of another solver")
	case sw.Pairwise && (len(sw.G) != n || len(sw.Diag) != n || len(sw.Pos) != n || len(sw.Sup) > n):
		return fmt.Errorf("mmdfw: saved pairwise solver of %d, %d, %d and %d values for %d particles", len(sw.G), len(sw.Diag), len(sw.Pos), len(sw.Sup), n)
	case (v.Stop != nil) != (r.ks != nil) || (v.StopPrev != nil) != (r.ks != nil) ||
		v.Stop != nil && (v.Stop.Size != r.ks.size || v.Stop.N != r.ks.n):
		return errors.New("mmdfw: saved state of another stopping rule")
	case v.Evals < 0:
		return fmt.Errorf("mmdfw: saved state with %d gradient evaluations", v.Evals)
	}
	if sw.Pairwise {
		for k, i := range sw.Sup {
			if i < 0 || i >= n || int(sw.Pos[i]) != k {
				return fmt.Errorf("mmdfw: saved pairwise solver has particle %d at place %d of its support", i, k)
			}
		}
	}
	// The stream is the last check: from it on nothing fails.
	if err := sampler.UnmarshalSource(r.src, v.Src); err != nil {
		return fmt.Errorf("mmdfw: saved random stream: %w", err)
	}
	r.evals, r.mapEvals, r.poolEvals, r.svgdEvals, r.lapEvals, r.trainEvals = v.Evals, v.MAPEvals, v.PoolEvals, v.SVGDEvals, v.LapEvals, v.TrainEvals
	r.n = n
	copy(r.X.RawMatrix().Data, v.X)
	copy(r.S.RawMatrix().Data, v.S)
	copy(r.lp, v.LP)
	if r.rff != nil {
		copy(r.phi.RawMatrix().Data, v.Phi)
	}
	if r.emb != nil {
		r.mmd = append(r.mmd[:0], v.MMD...)
	}
	wt.n = n
	copy(wt.w, sw.W)
	if wt.K != nil {
		unblock(wt.K, sw.K, c, n)
		copy(wt.z, sw.Z)
	}
	if wt.L != nil {
		unblock(wt.L, sw.L, c, n)
	}
	if wt.K0 != nil {
		unblock(wt.K0, sw.K0, c, n)
	}
	if wt.qp.nb != nil {
		copy(wt.qp.nb, sw.NB)
	}
	if p := &wt.qp; p.pairwise {
		copy(p.g, sw.G)
		copy(p.diag, sw.Diag)
		copy(p.pos, sw.Pos)
		p.sup = append(p.sup[:0], sw.Sup...)
		p.maxAbs, p.drift, p.stats = sw.MaxAbs, sw.Drift, sw.Stats
	}
	if k := v.Stop; k != nil {
		r.ks.ksd2, r.ks.equal, r.ks.done = k.KSD2, k.Equal, k.Done
		p := v.StopPrev
		r.ksPrev = ksdStop{size: p.Size, n: p.N, ksd2: p.KSD2, equal: p.Equal, done: p.Done}
	}
	// The snapshot of the restored particles is the loop's to record
	// when it is pending (the first particle's included).
	r.snapped = n - 1
	st.Settled = v.Settled
	st.sync()
	return nil
}
