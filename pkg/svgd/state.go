package svgd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// State is an SVGD run between two updates: Init makes one, Step
// advances it by one update, and Run is the loop
//
//	st, err := Init(ctx, t, start, s, src)
//	for !st.Done() { err = st.Step(ctx) }
//	res, err := st.Result()
//
// with its snapshots. A caller that drives the loop itself may stop on a
// criterion of its own, read the particles between steps (Particles) and
// step past the ceiling Settings.Iterations.
//
// The particles, their AdaGrad history, the minibatch order and the
// workspace of the direction live inside the State; the fields below are
// what a caller reads between steps. Step sets them.
type State struct {
	// Iteration is the number of updates made, 0 after Init. The update
	// that Step makes from Iteration 0 starts the AdaGrad history
	// (hist = φ²); the others add to it.
	Iteration int
	// GradEvals is the number of per-datapoint gradient evaluations
	// spent so far: those of the MAP search and the Laplace fit with
	// WhitenLaplace, then n|B| per update with minibatches (n N with
	// full-data scores).
	GradEvals int64
	// Bandwidth is the RBF bandwidth h of the last update, in the run's
	// coordinates (whitened with WhitenLaplace): Settings.Bandwidth when
	// fixed, else the rule's value on the particles the update moved.
	// Zero before the first update.
	Bandwidth float64
	// Settled reports that the stopping rule StopPlateau has been met: the
	// window averages of the particles' means and standard deviations
	// changed by less than StopTol for PlateauPatience windows in a row.
	// Always false with StopFixed.
	Settled bool

	r *state
	// s is the resolved Settings of the caller (in x with WhitenLaplace;
	// r.s are those of the run in z).
	s Settings
	// wh maps the run's coordinates z to the target's x (its W nil with
	// WhitenNone, where the run is in x) and holds what the fit cost.
	wh sampler.Whitened
}

// Init returns the state of an SVGD run before its first update, from
// start: its Particles (one per row, n×Dim; copied, never modified, n
// replacing Settings.N), else N drawn points. With WhitenNone the drawn
// points are X0 + InitScale·z, z ~ N(0, I), when start.X0 is set (length
// Dim), else prior draws from a target that implements
// target.PriorSampler, and Init fails otherwise. With WhitenLaplace (the
// default) Init first searches the MAP x̂, from start.X0, else from the
// mean of the starting particles, else from a prior draw, else from the
// origin, and fits the Laplace approximation N(x̂, LLᵀ) there, under ctx,
// charging their gradient evaluations to the state; the drawn points are
// then x̂ + InitScale·Lz. src seeds the draws of the start and the
// permutation that orders the minibatches; Step draws no more random
// numbers.
//
// The State may keep goroutines (Settings.Workers): Close releases them.
func Init(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source) (*State, error) {
	if !s.Whitened() {
		r, err := newState(t, s, start, src)
		if err != nil {
			return nil, err
		}
		return &State{r: r, s: r.s}, nil
	}
	s, err := s.resolved()
	if err != nil {
		return nil, err
	}
	d := t.Dim()
	if d < 1 {
		return nil, fmt.Errorf("svgd: target dimension %d < 1", d)
	}
	rng := rand.New(src)
	x0, init := start.X0, start.Particles
	if x0 == nil && init != nil {
		// The MAP search starts at the mean of the initial particles.
		n, c := init.Dims()
		if c != d {
			return nil, fmt.Errorf("svgd: the starting particles have %d columns, target dimension is %d", c, d)
		}
		x0 = make([]float64, d)
		for i := 0; i < n; i++ {
			for j, v := range init.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("svgd: initial particle %d: coordinate %d is %v", i, j, v)
				}
				x0[j] += v / float64(n)
			}
		}
	}
	sc, err := laplace.FitFromStart(ctx, t, "svgd", x0, rng, laplace.MAPSettings{}, laplace.FitSettings{})
	if err != nil {
		return nil, err
	}
	w := sc.Whitening
	inner := s
	inner.Whiten = WhitenNone
	// Strict applies to the set in x (Result).
	inner.Strict = false
	if inner.Bandwidth == 0 {
		if s.BandwidthRule == BandwidthLaplace {
			inner.Bandwidth, inner.BandwidthRule = laplace.WhitenedBandwidth(d), ""
		} else {
			inner.BandwidthRule = BandwidthParticles
		}
	}
	var z *mat.Dense // the starting particles in z
	if init != nil {
		z = w.RowsToZ(nil, init)
	} else {
		z = mat.NewDense(s.N, d, nil)
		for i := 0; i < s.N; i++ {
			for j, row := 0, z.RawRowView(i); j < d; j++ {
				row[j] = s.InitScale * rng.NormFloat64()
			}
		}
	}
	r, err := newState(w.Target(t), inner, particle.Start{Particles: z}, src)
	if err != nil {
		return nil, err
	}
	r.frame = &laplace.Frame{Target: t, W: w}
	return &State{GradEvals: sc.GradEvals, r: r, s: s, wh: sampler.Fit(sc)}, nil
}

// Step makes one SVGD update of st: the scores of the particles (on the
// next minibatch), the direction φ and the AdaGrad step (see the package
// documentation), then the stopping rule's statistics. It allocates
// nothing. A cancelled ctx returns ctx.Err() before the update and leaves
// st as it was. A non-finite log density, score or particle returns an
// error naming the iteration (a *particle.NonFiniteError for the first
// two); st is then not to be stepped again.
func Step(ctx context.Context, st *State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return st.update()
}

// update is Step without the context.
func (st *State) update() error {
	r := st.r
	it := st.Iteration + 1
	if err := r.step(st.Iteration); err != nil {
		return err
	}
	if err := r.checkFinite(it); err != nil {
		return err
	}
	st.Iteration = it
	st.GradEvals = st.wh.Evals + r.evals
	st.Bandwidth = r.h
	st.Settled = r.plat.add(r.x)
	return nil
}

// Len returns the number n of particles.
func (st *State) Len() int { return st.r.s.N }

// Particles writes the current particles, one per row, in the target's
// coordinates into dst (n×d; allocated when nil) and returns it.
func (st *State) Particles(dst *mat.Dense) *mat.Dense {
	if dst == nil {
		n, d := st.r.x.Dims()
		dst = mat.NewDense(n, d, nil)
	}
	if st.wh.W != nil {
		return st.wh.W.RowsToX(dst, st.r.x)
	}
	dst.Copy(st.r.x)
	return dst
}

// result is Result's set and error.
func (st *State) result() (particle.Set, error) {
	var p *plateau
	if st.Iteration >= st.s.Iterations {
		p = st.r.plat
	}
	return st.end(st.r.finish(st.Iteration, p), st.Iteration, nil)
}

// Close stops the goroutines of st (score workers, team). Step must not be
// called after it; Particles and Result may.
func (st *State) Close() { st.r.close() }

// end concludes set, the run's particles after it updates, in the run's
// coordinates: its diagnostics when err is nil, then, with WhitenLaplace,
// the particles mapped to x, the scale's gradient evaluations and the
// caller's Strict.
func (st *State) end(set particle.Set, it int, err error) (particle.Set, error) {
	set, err = st.r.conclude(set, it, err)
	if st.wh.W == nil {
		return set, err
	}
	if set.X != nil {
		set.X = st.wh.W.RowsToX(nil, set.X)
	}
	if set.X != nil || err == nil {
		set.Diag.Set("scale_grad_evals", float64(st.wh.Evals))
	}
	if err == nil {
		err = particle.Strict("svgd", set, st.s.Strict)
	}
	return set, err
}
