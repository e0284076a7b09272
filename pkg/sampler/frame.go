package sampler

import (
	"cmp"

	"github.com/mmdfw/mmdfw/pkg/setting"
)

// Whiten selects the coordinates of a run (Frame.Whiten); the empty text
// is the default, WhitenLaplace, of the methods that take it.
type Whiten string

// Coordinates of a run (Frame.Whiten).
const (
	// WhitenLaplace runs the method in the coordinates z = L⁻¹(x − x̂) of
	// the target's Laplace fit N(x̂, LLᵀ) at its MAP x̂ (laplace.FitAtMAP:
	// L-BFGS from the start point X0, then the target's exact Hessian
	// where it offers one, else 2d gradients by central differences; a
	// diagonal L above laplace.DenseMaxDim dimensions), whose gradient
	// evaluations are charged to the run (Cost.MAP, Cost.Laplace). In z
	// the posterior's curvature is about 1 in every direction, whatever
	// the units of x or the number of data, so that the method's lengths
	// (steps, spreads, kernel widths) are in posterior standard
	// deviations and coordinates whose scales differ by orders of
	// magnitude need no hand scaling. The particles are returned, reported
	// and diagnosed in x. The default of SVGD, SGLD and Stein Points.
	WhitenLaplace Whiten = "laplace"
	// WhitenNone runs the method in the target's own coordinates, as the
	// methods' reference codes do.
	WhitenNone Whiten = "none"
)

// Stop selects when a run ends (Frame.Stop); the empty text is the
// method's default, the first of its Rules.Stops.
type Stop string

// Stopping rules that several methods share (Frame.Stop); each method
// adds its own criterion (svgd.StopPlateau, sgld.StopConverged).
const (
	// StopFixed runs exactly the method's ceiling: N particles or points,
	// or Iterations.
	StopFixed Stop = "fixed"
	// StopKSD ends the run once the kernel Stein discrepancy of the set is
	// at most that expected of KSDSize independent draws of the target
	// (MMD-FW and Stein Points, in the Stein kernel they keep): the
	// ceiling reached first is then flagged "ceiling" when the set is
	// worse than as many independent draws (metric.CeilingFlagged), noted
	// otherwise.
	StopKSD Stop = "ksd"
	// DefaultKSDSize is the zero KSDSize.
	DefaultKSDSize = 1000
)

// Frame is the run frame every particle method shares, declared once and
// embedded (anonymously, so that an experiment file's keys and the
// recorded settings stay flat) in the Settings of MMD-FW, SVGD, Stein
// Points and SGLD: the coordinates, the stopping rule, what a set is
// measured by and what becomes of a flagged one. Each method's Rules say
// which of it the method takes; Validate refuses the rest, and Resolved
// fills the defaults. The ceiling of a stopping rule is the method's own
// count (N, Iterations; see Ceiling).
type Frame struct {
	// Whiten selects the run's coordinates: WhitenLaplace (the default,
	// also "", of the methods that take it) or WhitenNone. MMD-FW's
	// coordinates are its Scale instead.
	Whiten Whiten `toml:"whiten" json:"whiten,omitempty"`
	// Stop selects when the run ends: the method's criterion (its default,
	// also "") or StopFixed; the ceiling then flags a run that reaches it
	// first.
	Stop Stop `toml:"stop" json:"stop,omitempty"`
	// KSDSize is StopKSD's number of independent draws whose expected KSD²
	// the set must reach (methods with StopKSD). Zero means DefaultKSDSize.
	KSDSize int `toml:"ksd_size" json:"ksd_size,omitempty"`
	// Strict turns a result whose diagnostics raise a flag (Set.Diag) into
	// a *particle.FlaggedError returned beside the set. Default false: the
	// flags are only recorded.
	Strict bool `toml:"strict" json:"strict,omitempty"`
	// Workers is the number of goroutines of the methods that split their
	// work (SVGD's scores and direction, SGLD's chains); zero means
	// runtime.GOMAXPROCS(0), and the result does not depend on it. MMD-FW
	// and Stein Points run on the calling goroutine.
	Workers int `toml:"-" json:"-"`
	// NoDiagnostics leaves Set.Diag without the final set's diagnosis
	// (DiagnoseSet, and the cached-score diagnosis of MMD-FW and Stein
	// Points) and skips its evaluations, for a run nested in another
	// method whose clock would count them. The stopping rule's values and
	// flags remain. Default false.
	NoDiagnostics bool `toml:"-" json:"-"`
}

// Rules is what of the Frame a method takes.
type Rules struct {
	// Stops are the method's stopping rules, its default first.
	Stops []Stop
	// Whiten tells that the method takes Frame.Whiten.
	Whiten bool
	// KSD tells that the method has StopKSD and so takes KSDSize.
	KSD bool
}

// Validate checks f against the method's rules: an error wrapping a
// *setting.Error names the key at fault.
func (f Frame) Validate(r Rules) error {
	switch {
	case !r.Whiten && f.Whiten != "":
		return setting.Errorf("whiten", f.Whiten, "is not a setting of this method")
	}
	if err := setting.OneOf("whiten", f.Whiten, WhitenLaplace, WhitenNone); err != nil {
		return err
	}
	if err := setting.OneOf("stop", f.Stop, r.Stops...); err != nil {
		return err
	}
	switch {
	case f.KSDSize < 0:
		return setting.Errorf("ksd_size", f.KSDSize, "must not be negative")
	case !r.KSD && f.KSDSize != 0:
		return setting.Errorf("ksd_size", f.KSDSize, "applies only to a KSD stop, which this method has not")
	case f.Workers < 0:
		return setting.Errorf("workers", f.Workers, "must not be negative")
	}
	return nil
}

// Resolved returns f with its defaults filled under the method's rules:
// WhitenLaplace, the method's first stopping rule, DefaultKSDSize.
func (f Frame) Resolved(r Rules) Frame {
	if r.Whiten {
		f.Whiten = cmp.Or(f.Whiten, WhitenLaplace)
	}
	if len(r.Stops) > 0 {
		f.Stop = cmp.Or(f.Stop, r.Stops[0])
	}
	if r.KSD {
		f.KSDSize = cmp.Or(f.KSDSize, DefaultKSDSize)
	}
	return f
}

// Whitened reports whether f runs in the Laplace fit's coordinates:
// WhitenLaplace, or the default "".
func (f Frame) Whitened() bool { return f.Whiten == "" || f.Whiten == WhitenLaplace }

// Ceiling returns n, or when n is zero the method's default count: fixed
// with StopFixed, criterion (the ceiling of its stopping rule) otherwise.
func (f Frame) Ceiling(n, criterion, fixed int) int {
	if n != 0 {
		return n
	}
	if f.Stop == StopFixed {
		return fixed
	}
	return criterion
}
