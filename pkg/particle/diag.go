package particle

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Diagnostics is what a method says about the trust one may place in the set
// it returned, in one shape for every method: named values (HMC's largest R̂
// and smallest bulk and tail ESS and its divergences; a particle method's Kish
// ESS of the weights, the KSD² of the final set, its iterations) and flags,
// each a short code and a one-line reason, raised when a value shows that the
// set is not to be read as an answer (chains that disagree, a collapse onto a
// point, an iteration ceiling reached before the stopping criterion).
//
// The zero value holds no values and no flags. A flagged result is still
// returned; Settings that ask for strictness turn it into a *FlaggedError.
type Diagnostics struct {
	// Values holds named diagnostics, e.g. "rhat_max", "ess_bulk_min",
	// "divergences", "kish_ess", "ksd2", "iterations". Nil when none.
	Values map[string]float64
	// Flags lists what makes the result suspect, in the order raised.
	Flags []Flag
	// Unchecked lists the checks that did not run on the set, each with
	// its code (the check's, e.g. "stein" for the Stein spread checks,
	// "mode" for the missed-mode test) and why it did not run (too few
	// particles, no budget for the scores). An unflagged set with an
	// unchecked check is not a clean one: nothing was said of it.
	Unchecked []Flag
	// Notes lists conditions that read like flags but, measured, say
	// nothing against the set (e.g. MMD-FW's size ceiling reached with a
	// set no worse than as many independent draws in KSD²): information,
	// not a reason to distrust the result.
	Notes []Flag
}

// Flag is one reason not to trust a result.
type Flag struct {
	// Code is a short stable identifier ("rhat", "collapse", "ceiling", ...).
	Code string
	// Reason says what was measured against what, in one line.
	Reason string
}

// Set records a named value, allocating the map when needed.
func (d *Diagnostics) Set(name string, v float64) {
	if d.Values == nil {
		d.Values = make(map[string]float64)
	}
	d.Values[name] = v
}

// Raise adds a flag with the given code and a reason formatted by fmt.Sprintf.
func (d *Diagnostics) Raise(code, format string, args ...any) {
	d.Flags = append(d.Flags, Flag{Code: code, Reason: fmt.Sprintf(format, args...)})
}

// Skip records that the check code did not run on the set, with a reason
// formatted by fmt.Sprintf.
func (d *Diagnostics) Skip(code, format string, args ...any) {
	d.Unchecked = append(d.Unchecked, Flag{Code: code, Reason: fmt.Sprintf(format, args...)})
}

// Note records information with the given code and a reason formatted by
// fmt.Sprintf: neither a flag nor an unchecked check.
func (d *Diagnostics) Note(code, format string, args ...any) {
	d.Notes = append(d.Notes, Flag{Code: code, Reason: fmt.Sprintf(format, args...)})
}

// Checked reports whether every check ran on the set (no Unchecked).
func (d Diagnostics) Checked() bool { return len(d.Unchecked) == 0 }

// Flagged reports whether any flag was raised.
func (d Diagnostics) Flagged() bool { return len(d.Flags) > 0 }

// Reason joins the flags' reasons into one line ("" when none is raised).
func (d Diagnostics) Reason() string {
	parts := make([]string, len(d.Flags))
	for i, f := range d.Flags {
		parts[i] = f.Code + ": " + f.Reason
	}
	return strings.Join(parts, "; ")
}

// Names returns the names of the recorded values in sorted order.
func (d Diagnostics) Names() []string {
	names := make([]string, 0, len(d.Values))
	for k := range d.Values {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// FlaggedError is the error a strict run returns beside its (flagged) set.
type FlaggedError struct {
	// Method names the method that raised the flags.
	Method string
	// Diagnostics is the result's diagnostics, flags included.
	Diagnostics Diagnostics
}

func (e *FlaggedError) Error() string {
	return e.Method + ": result flagged: " + e.Diagnostics.Reason()
}

// ErrFlagged is matched by errors.Is for every *FlaggedError.
var ErrFlagged = errors.New("particle: result flagged")

// Is reports whether target is ErrFlagged.
func (e *FlaggedError) Is(target error) bool { return target == ErrFlagged }

// Strict returns a *FlaggedError for a flagged set when strict is true, and
// nil otherwise.
func Strict(method string, s Set, strict bool) error {
	if !strict || !s.Diag.Flagged() {
		return nil
	}
	return &FlaggedError{Method: method, Diagnostics: s.Diag}
}
