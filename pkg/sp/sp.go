package sp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Defaults of the zero Settings.
const (
	DefaultN             = 100
	DefaultCandidates    = 20
	DefaultNelderMeadPer = 200 // objective evaluations per dimension
	DefaultPerturb       = 1.0
	DefaultScale         = 1.0
	DefaultPriorFraction = 0.1
	DefaultBox           = 2.0
	DefaultC             = 1.0
	DefaultBeta          = -0.5
)

// Settings configures Run. The zero value is usable: every field documents
// its default.
type Settings struct {
	// N is the number N of points to place with StopFixed, and their
	// ceiling with StopKSD. Zero means DefaultN (100, the original's
	// experiments) with StopFixed and DefaultCeiling with StopKSD.
	N int `toml:"-" json:"-"`

	// Candidates is the number of Monte Carlo candidates scored at every
	// step before the refinement. Zero means DefaultCandidates (20, the
	// original's adaptive Monte Carlo optimiser).
	Candidates int `toml:"candidates" json:"candidates,omitempty"`

	// NelderMeadEvals caps the objective evaluations of the Nelder–Mead
	// refinement of each step's best candidate. Zero means
	// DefaultNelderMeadPer·d (200·d, MATLAB fminsearch's default that the
	// original's refinement used); NoRefinement (-1) disables the
	// refinement, leaving pure Monte Carlo search. Other negative values
	// are errors.
	NelderMeadEvals int `toml:"nelder_mead_evals" json:"nelder_mead_evals,omitempty"`

	// Perturb scales the Gaussian perturbations of the candidates drawn
	// around existing points: coordinate j moves by Perturb·σⱼ·z, z ~ N(0,1),
	// with σⱼ the robust spread of coordinate j over the current points,
	// 1.4826 × its median absolute deviation (Scale before two points
	// exist, or where it is zero). A few far-flung points do not inflate
	// it, as they would a standard deviation. Zero means DefaultPerturb (1).
	Perturb float64 `toml:"perturb" json:"perturb,omitempty"`

	// Box sets the search box, to which candidates and the Nelder–Mead
	// refinement are confined. The first step's box (the domain) is the
	// bounding box of its own candidates widened by Box·Scale on each side:
	// the prior draws, the MAP and its perturbations, or N(0, Scale² I).
	// Later boxes are, per coordinate, the union of the domain and
	// mⱼ ± Box·σⱼ, with mⱼ the median of coordinate j over the current
	// points and σⱼ their robust spread (as for Perturb, without Perturb's
	// factor). Candidates drawn outside are projected onto the box (and
	// still cost a score call, Cost.Projected); Nelder–Mead locations
	// outside are answered +∞ without a score call (Cost.Outside).
	//
	// The box is needed where the target is not distantly dissipative:
	// when the score stays bounded far away (a logistic regression's
	// log α → −∞), the objective levels off to k₀(x, x)/2 there, below its
	// value in the bulk, and an unbounded search runs off to where exp
	// overflows. A box that follows the median and a robust spread cannot
	// be dragged along by the points it lets stray. Zero means DefaultBox
	// (2); NoBox (-1) searches without a box. Other negative values are
	// errors.
	Box float64 `toml:"box" json:"box,omitempty"`

	// Scale is the perturbation standard deviation before the point set has
	// a spread of its own. Zero means DefaultScale (1, the original's
	// proposal variance σ² = 1).
	Scale float64 `toml:"scale" json:"scale,omitempty"`

	// PriorFraction is the share of each step's candidates drawn from the
	// prior when the target is a target.PriorSampler (rounded up). Zero
	// means DefaultPriorFraction (0.1); NoPriorDraws (-1) draws none.
	// Other negative values are errors.
	PriorFraction float64 `toml:"prior_fraction" json:"prior_fraction,omitempty"`

	// C and Beta are the IMQ base kernel's parameters,
	// k(x, y) = (c² + ‖x − y‖²)^β. Zero means DefaultC (1) and DefaultBeta
	// (−1/2), the original's choice; with WhitenLaplace the zero C is √d,
	// the typical distance of a draw of N(0, I_d) from its mode, in whose
	// wider kernel the points' variances come closer to the target's (on
	// a 5-dimensional Gaussian, 0.84–0.89 of them at 100 points against
	// 0.75–0.81 with c = 1). C must be positive, Beta in (−1, 0).
	C    float64 `toml:"c" json:"c,omitempty"`
	Beta float64 `toml:"beta" json:"beta,omitempty"`

	// Frame is the run frame Stein Points shares (its keys whiten, stop,
	// ksd_size and strict): Whiten WhitenLaplace (the default) searches the
	// points and measures the kernel in the coordinates of the Laplace fit
	// at the MAP, in which Scale, Perturb, Box, C and the perturbations'
	// spreads are in posterior standard deviations, WhitenNone in the
	// target's own, as the original; Stop StopKSD (the default) ends the
	// run once the points' KSD² is as small as that expected of KSDSize
	// independent draws, N being a ceiling whose reaching flags the result
	// when it is worse than N draws (metric.CeilingFlagged), StopFixed
	// after exactly N points. Workers is not used: a run is one goroutine.
	sampler.Frame
}

// NoRefinement as Settings.NelderMeadEvals, NoBox as Settings.Box and
// NoPriorDraws as Settings.PriorFraction turn the refinement, the search
// box and the prior candidates off. They are the only negative values of
// their fields (-1 in an experiment file).
const (
	NoRefinement = -1
	NoBox        = -1.0
	NoPriorDraws = -1.0
)

// Validate returns a *setting.Error naming the first invalid field, nil
// when s is valid. Zero fields are valid: they take their defaults; so are
// NelderMeadEvals = NoRefinement, Box = NoBox and PriorFraction =
// NoPriorDraws, but no other negative value.
func (s Settings) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case s.N < 0:
		return setting.Errorf("particles", s.N, "must not be negative")
	case s.Candidates < 0:
		return setting.Errorf("candidates", s.Candidates, "must not be negative")
	case s.NelderMeadEvals < 0 && s.NelderMeadEvals != NoRefinement:
		return setting.Errorf("nelder_mead_evals", s.NelderMeadEvals, "must not be negative (NoRefinement, -1, turns the refinement off)")
	case s.Box < 0 && s.Box != NoBox:
		return setting.Errorf("box", s.Box, "must not be negative (NoBox, -1, searches without a box)")
	case s.PriorFraction < 0 && s.PriorFraction != NoPriorDraws:
		return setting.Errorf("prior_fraction", s.PriorFraction, "must not be negative (NoPriorDraws, -1, draws none)")
	case s.Perturb < 0 || bad(s.Perturb):
		return setting.Errorf("perturb", s.Perturb, "is not a finite non-negative number")
	case bad(s.Box):
		return setting.Errorf("box", s.Box, "is not a finite number")
	case s.Scale < 0 || bad(s.Scale):
		return setting.Errorf("scale", s.Scale, "is not a finite non-negative number")
	case s.PriorFraction > 1 || math.IsNaN(s.PriorFraction):
		return setting.Errorf("prior_fraction", s.PriorFraction, "is above 1")
	case s.C < 0 || bad(s.C):
		return setting.Errorf("c", s.C, "is not a finite positive number")
	case s.Beta <= -1 || s.Beta > 0 || math.IsNaN(s.Beta):
		return setting.Errorf("beta", s.Beta, "is outside (−1, 0)")
	}
	return s.Frame.Validate(rules)
}

// resolved returns s with the defaults filled in for dimension d, or an
// error naming the first invalid field.
func (s Settings) resolved(d int) (Settings, error) {
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("sp: %w", err)
	}
	s.resolveScale(d)
	s.Candidates = cmp.Or(s.Candidates, DefaultCandidates)
	s.NelderMeadEvals = cmp.Or(s.NelderMeadEvals, DefaultNelderMeadPer*d)
	s.Perturb = cmp.Or(s.Perturb, DefaultPerturb)
	s.Scale = cmp.Or(s.Scale, DefaultScale)
	s.Box = cmp.Or(s.Box, DefaultBox)
	s.PriorFraction = cmp.Or(s.PriorFraction, DefaultPriorFraction)
	s.C = cmp.Or(s.C, DefaultC)
	s.Beta = cmp.Or(s.Beta, DefaultBeta)
	return s, nil
}

// Cost is the bill of a run, point by point. Stein Points pays one score
// call (a full-data gradient) per objective evaluation, and many
// evaluations per point: this is the figure to compare with other methods.
type Cost struct {
	// ScoreCalls is the total number of calls to the target's LogProbGrad.
	// It equals the sum of Candidates and Refine.
	ScoreCalls int64
	// Candidates[n−1] is the number of Monte Carlo candidates scored for
	// point n.
	Candidates []int
	// Refine[n−1] is the number of Nelder–Mead objective evaluations for
	// point n that scored a location (one score call each).
	Refine []int
	// Outside[n−1] is the number of Nelder–Mead evaluations for point n at
	// locations outside the search box, answered +∞ without a score call.
	// They count against Settings.NelderMeadEvals with Refine.
	Outside []int
	// Projected[n−1] is the number of point n's candidates drawn outside
	// the search box and projected onto it (included in Candidates).
	Projected []int
	// Rejected[n−1] is the number of point n's scored locations (candidates
	// or Nelder–Mead) whose objective was not finite, an overflowing or NaN
	// score; they were discarded (and are included in Candidates and
	// Refine).
	Rejected []int
	// Objective[n−1] is the greedy objective f_n(x_n) at the accepted point
	// n.
	Objective []float64
}

// KSD2 returns the equally weighted squared kernel Stein discrepancy of the
// first n points, (1/n²) Σ_{i,j≤n} k₀(xᵢ, xⱼ) = (2/n²) Σ_{m≤n} f_m(x_m),
// from the objective trace at no extra cost.
func (c Cost) KSD2(n int) float64 {
	if n < 1 || n > len(c.Objective) {
		panic("sp: KSD2 index out of range")
	}
	var sum float64
	for _, f := range c.Objective[:n] {
		sum += f
	}
	return 2 * sum / float64(n*n)
}

// Run places s.N Stein Points greedily and returns them with equal weights
// 1/n, the seconds and gradient evaluations of the run, and its Cost, the
// point-by-point accounting, as the Result's Detail.
//
// Step n draws s.Candidates candidates (the first pool as described at
// Init; later ones Gaussian perturbations of uniformly chosen
// existing points, plus a share of prior draws, projected onto the search
// box of Settings.Box), scores each once, and refines the best with
// gonum's optimize.NelderMead within the box; the best location evaluated
// anywhere in the step, whose score is cached, becomes xₙ.
//
// src seeds every draw. rec (nil records nothing) receives a snapshot after
// every added point, with Step = n, equal weights, the compute seconds and
// GradEvals = score calls × target.NData(t); its ErrStop ends the run with
// the current points and a nil error. When ctx is cancelled the current
// points are returned with ctx.Err(). A non-finite log density or score at a
// location the run scores ends it with a *particle.NonFiniteError naming
// the iteration n (the point being placed, from 1) and the candidate or
// Nelder–Mead evaluation (from 1), and no points. A location whose
// objective is not finite although its score is (k₀ overflowing) is
// discarded (Cost.Rejected); a step in which no location had a finite
// objective ends the run, with an error naming the step.
//
// The returned set carries its diagnostics (Set.Diag, see diagnose, in the
// target's coordinates with WhitenLaplace); with Settings.Strict a flagged
// set (a "ceiling" of StopKSD included) comes with a *particle.FlaggedError.
func Run(ctx context.Context, t target.Target, start particle.Start, s Settings, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
	return sampler.Run(ctx, func(particle.Recorder) (sampler.State, error) {
		return Init(ctx, t, start, s, src)
	}, rec)
}

// runner holds the state of one run.
type runner struct {
	t     target.Target
	frame *laplace.Frame // where the diagnostics are computed (nil: in t's coordinates)
	s     Settings
	mode  []float64 // the start point X0: the first candidate (nil: none)
	rng   *rand.Rand
	src   rand.Source // rng's source, whose state MarshalState saves
	prior target.PriorSampler
	obj   *objective
	cost  Cost

	sigma  []float64 // perturbation standard deviations
	lo, hi []float64 // search box of the current step
	dlo    []float64 // domain: the first step's box, contained in every later one
	dhi    []float64
	col    []float64 // one coordinate of every point, for the median
	cand   []float64 // the candidate being drawn
	x0     []float64 // Nelder–Mead start
	w      []float64 // weight buffer

	ref *refiner
}

func newRunner(t target.Target, s Settings, mode []float64, src rand.Source) *runner {
	d := t.Dim()
	k := kernel.IMQ{C: s.C, Beta: s.Beta}
	r := &runner{
		t:     t,
		s:     s,
		mode:  mode,
		rng:   rand.New(src),
		src:   src,
		obj:   newObjective(t, k, s.N),
		sigma: make([]float64, d),
		lo:    make([]float64, d),
		hi:    make([]float64, d),
		dlo:   make([]float64, d),
		dhi:   make([]float64, d),
		col:   make([]float64, 0, s.N),
		cand:  make([]float64, d),
		x0:    make([]float64, d),
		w:     make([]float64, 0, s.N),
	}
	r.prior, _ = t.(target.PriorSampler)
	r.ref = newRefiner(r.obj)
	// The cost trace has one entry per point: room for N.
	r.cost.Candidates = make([]int, 0, s.N)
	r.cost.Refine = make([]int, 0, s.N)
	r.cost.Outside = make([]int, 0, s.N)
	r.cost.Projected = make([]int, 0, s.N)
	r.cost.Rejected = make([]int, 0, s.N)
	r.cost.Objective = make([]float64, 0, s.N)
	return r
}

// madScale turns a median absolute deviation into a standard deviation for
// Gaussian data: 1/Φ⁻¹(3/4).
const madScale = 1.482602218505602

// median returns the median of v, reordering v.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// box sets the robust spread of every coordinate over the current points
// (Scale before two points exist, or where it is zero) and, from the first
// point on, the search box: the domain joined with median ± Box spreads.
// It allocates nothing.
func (r *runner) box() {
	o := r.obj
	d := o.d
	for j := 0; j < d; j++ {
		sd := r.s.Scale
		var m float64
		if o.n >= 1 {
			r.col = r.col[:0]
			for i := 0; i < o.n; i++ {
				r.col = append(r.col, o.x[i*d+j])
			}
			m = median(r.col)
			if o.n >= 2 {
				for i, v := range r.col {
					r.col[i] = math.Abs(v - m)
				}
				if v := madScale * median(r.col); v > 0 {
					sd = v
				}
			}
		}
		r.sigma[j] = r.s.Perturb * sd
		r.lo[j] = math.Min(r.dlo[j], m-r.s.Box*sd)
		r.hi[j] = math.Max(r.dhi[j], m+r.s.Box*sd)
	}
}

// project moves x onto the search box and reports whether it had to.
func (r *runner) project(x []float64) bool {
	moved := false
	for j, v := range x {
		switch {
		case v < r.lo[j]:
			x[j], moved = r.lo[j], true
		case v > r.hi[j]:
			x[j], moved = r.hi[j], true
		}
	}
	return moved
}

// step places point n.
func (r *runner) step(ctx context.Context, n int) error {
	o := r.obj
	d := o.d
	o.beginStep()
	before := o.calls
	first := o.n == 0
	boxed := r.s.Box >= 0
	r.box()
	if first {
		// The first box is the candidates' bounding box, widened below.
		for j := range r.lo {
			r.lo[j], r.hi[j] = math.Inf(1), math.Inf(-1)
		}
	}

	nPrior := 0
	if r.prior != nil && r.s.PriorFraction > 0 {
		nPrior = int(math.Ceil(r.s.PriorFraction * float64(r.s.Candidates)))
	}
	if first && r.prior != nil && r.mode == nil {
		nPrior = r.s.Candidates
	}
	projected := 0
	o.site = particle.Site{Method: "sp", Iteration: n, Point: "point", Index: n, Stage: "candidate"}
	for c := 0; c < r.s.Candidates; c++ {
		if c%8 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch {
		case first && c == 0 && r.mode != nil:
			copy(r.cand, r.mode)
		case c < nPrior:
			r.prior.SamplePrior(r.rng, r.cand)
		default:
			var centre []float64
			switch {
			case o.n > 0:
				i := r.rng.IntN(o.n)
				centre = o.x[i*d : (i+1)*d]
			case r.mode != nil:
				centre = r.mode
			}
			for j := range r.cand {
				var m float64
				if centre != nil {
					m = centre[j]
				}
				r.cand[j] = m + r.sigma[j]*r.rng.NormFloat64()
			}
		}
		switch {
		case first:
			for j, v := range r.cand {
				r.lo[j], r.hi[j] = math.Min(r.lo[j], v), math.Max(r.hi[j], v)
			}
		case boxed && r.project(r.cand):
			projected++
		}
		o.site.Step = c + 1
		o.eval(r.cand)
		if o.err != nil {
			return o.err
		}
	}
	if first {
		for j := range r.lo {
			r.lo[j] -= r.s.Box * r.s.Scale
			r.hi[j] += r.s.Box * r.s.Scale
		}
		copy(r.dlo, r.lo)
		copy(r.dhi, r.hi)
	}
	nCand := int(o.calls - before)

	outside := 0
	if r.s.NelderMeadEvals > 0 && !math.IsInf(o.bestF, 1) {
		var mean float64
		for _, v := range r.sigma {
			mean += v
		}
		mean /= float64(d)
		copy(r.x0, o.bestX)
		r.ref.lo, r.ref.hi = nil, nil
		o.site.Stage = "Nelder–Mead evaluation"
		if boxed {
			r.ref.lo, r.ref.hi = r.lo, r.hi
		}
		if err := r.ref.run(ctx, r.x0, o.bestF, 0.1*mean, r.s.NelderMeadEvals); err != nil {
			return err
		}
		outside = r.ref.outside
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if math.IsInf(o.bestF, 1) {
		return fmt.Errorf("sp: step %d: no finite objective among %d scored locations", n, o.calls-before)
	}
	if err := particle.CheckFinite("sp", n, o.bestX); err != nil {
		return err
	}
	r.cost.Candidates = append(r.cost.Candidates, nCand)
	r.cost.Refine = append(r.cost.Refine, int(o.calls-before)-nCand)
	r.cost.Outside = append(r.cost.Outside, outside)
	r.cost.Projected = append(r.cost.Projected, projected)
	r.cost.Rejected = append(r.cost.Rejected, o.rejected)
	r.cost.Objective = append(r.cost.Objective, o.bestF)
	r.cost.ScoreCalls = o.calls
	o.accept()
	return nil
}

// weights returns n equal weights in the run's buffer.
func (r *runner) weights() []float64 {
	n := r.obj.n
	r.w = r.w[:n]
	for i := range r.w {
		r.w[i] = 1 / float64(n)
	}
	return r.w
}

// set returns a copy of the current points with equal weights.
func (r *runner) set() particle.Set {
	n := r.obj.n
	if n == 0 {
		return particle.Set{}
	}
	x := mat.NewDense(n, r.obj.d, append([]float64(nil), r.obj.x...))
	return particle.Set{X: x, W: particle.Equal(n)}
}
