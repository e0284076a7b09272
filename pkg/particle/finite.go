package particle

import (
	"errors"
	"fmt"
	"math"
)

// Site names a point a method evaluated: the method, its iteration, what the
// point is to it and the point's index, and optionally a stage within the
// iteration (an optimisation step of MMD-FW's LMO, a Nelder–Mead evaluation
// of Stein Points). Indices follow the method's own count (documented by
// each method).
type Site struct {
	// Method names the method ("mmdfw", "svgd", …).
	Method string
	// Iteration is the method's iteration, as it counts them.
	Iteration int
	// Point says what was evaluated: "particle", "candidate", "chain",
	// "point", "probe", …; Index is its index.
	Point string
	Index int
	// Stage, when not empty, names the sub-step of the iteration ("LMO
	// step", "Nelder–Mead evaluation") and Step its number.
	Stage string
	Step  int
}

// NonFiniteError reports a log density or a score that is not finite at a
// point a method evaluated. Every method of this module returns one instead
// of keeping the point, so that a target written without its support (log p
// = NaN or −∞ outside it) or one that overflows is an error, never a
// silently wrong particle set.
type NonFiniteError struct {
	Site
	// Coord is −1 when the log density is not finite, else the first
	// coordinate of the score that is not.
	Coord int
	// Value is the non-finite value.
	Value float64
}

func (e *NonFiniteError) Error() string {
	where := fmt.Sprintf("%s: iteration %d, %s %d", e.Method, e.Iteration, e.Point, e.Index)
	if e.Stage != "" {
		where += fmt.Sprintf(" (%s %d)", e.Stage, e.Step)
	}
	if e.Coord < 0 {
		return fmt.Sprintf("%s: non-finite log density %v", where, e.Value)
	}
	return fmt.Sprintf("%s: non-finite score: coordinate %d is %v", where, e.Coord, e.Value)
}

// ErrNonFinite is matched by errors.Is for every *NonFiniteError.
var ErrNonFinite = errors.New("particle: non-finite log density or score")

// Is reports whether target is ErrNonFinite.
func (e *NonFiniteError) Is(target error) bool { return target == ErrNonFinite }

// FiniteEval reports whether the log density lp and every coordinate of the
// score grad are finite. It allocates nothing: methods call it after every
// evaluation, and build the error with NonFinite only when it fails.
func FiniteEval(lp float64, grad []float64) bool {
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return false
	}
	for _, v := range grad {
		// v − v is 0 for a finite v and NaN for ±Inf and NaN.
		if v-v != 0 {
			return false
		}
	}
	return true
}

// NonFinite returns the *NonFiniteError of an evaluation at site whose log
// density lp or score grad is not finite, and nil when both are.
func NonFinite(site Site, lp float64, grad []float64) error {
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return &NonFiniteError{Site: site, Coord: -1, Value: lp}
	}
	for j, v := range grad {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{Site: site, Coord: j, Value: v}
		}
	}
	return nil
}
