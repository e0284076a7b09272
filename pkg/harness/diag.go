package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// Diagnostics is the provenance record of what a method said about the set
// it returned (particle.Set.Diag): its named values and its flags, each
// with the reason that makes the result suspect. A cell records it when
// the method said anything; it enters no cache key, so results made before
// it existed stay current.
type Diagnostics struct {
	// Values are the named diagnostics (R̂, ESS, KSD², iterations…).
	Values map[string]DiagValue `json:"values,omitempty"`
	// Flags are the reasons not to trust the result, in the order raised.
	Flags []DiagFlag `json:"flags,omitempty"`
	// Unchecked are the checks that did not run on the set, each with why
	// (particle.Diagnostics.Unchecked): a result without flags but with an
	// unchecked check is unchecked, not clean. Absent in cells made before
	// the record existed (their methods said nothing of it).
	Unchecked []DiagFlag `json:"unchecked,omitempty"`
	// Notes are information that is no flag (particle.Diagnostics.Notes).
	Notes []DiagFlag `json:"notes,omitempty"`
}

// DiagFlag is one flag of a result: a short stable code and its reason.
type DiagFlag struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// DiagValue is a diagnostic value. JSON has no non-finite numbers, so
// NaN and ±Inf are written as the strings "NaN", "+Inf" and "-Inf".
type DiagValue float64

// MarshalJSON writes v as a number, or as a string when it is not finite.
func (v DiagValue) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *DiagValue) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "NaN":
			*v = DiagValue(math.NaN())
		case "+Inf":
			*v = DiagValue(math.Inf(1))
		case "-Inf":
			*v = DiagValue(math.Inf(-1))
		default:
			return fmt.Errorf("harness: diagnostic value %q is not a number", s)
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = DiagValue(f)
	return nil
}

// recordDiagnostics returns the record of d, nil when d holds nothing.
func recordDiagnostics(d particle.Diagnostics) *Diagnostics {
	if len(d.Values) == 0 && len(d.Flags) == 0 && len(d.Unchecked) == 0 && len(d.Notes) == 0 {
		return nil
	}
	r := &Diagnostics{}
	if len(d.Values) > 0 {
		r.Values = make(map[string]DiagValue, len(d.Values))
		for k, v := range d.Values {
			r.Values[k] = DiagValue(v)
		}
	}
	for _, f := range d.Flags {
		r.Flags = append(r.Flags, DiagFlag{Code: f.Code, Reason: f.Reason})
	}
	for _, f := range d.Unchecked {
		r.Unchecked = append(r.Unchecked, DiagFlag{Code: f.Code, Reason: f.Reason})
	}
	for _, f := range d.Notes {
		r.Notes = append(r.Notes, DiagFlag{Code: f.Code, Reason: f.Reason})
	}
	return r
}

// Checked reports whether the record lists no unchecked check (true for
// nil: a record made before the list existed says nothing of it).
func (d *Diagnostics) Checked() bool { return d == nil || len(d.Unchecked) == 0 }

// Flagged reports whether the record holds a flag (false for nil).
func (d *Diagnostics) Flagged() bool { return d != nil && len(d.Flags) > 0 }

// CountFlags adds one to counts[code] for each flag code of d: a cell
// with two flags of one code counts once for it. counts must not be nil.
func (d *Diagnostics) CountFlags(counts map[string]int) {
	if d == nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range d.Flags {
		if !seen[f.Code] {
			seen[f.Code] = true
			counts[f.Code]++
		}
	}
}

// FlagCounts writes counts of cells by flag code (CountFlags) as
// "code n, code n", the most frequent first, ties by code: the run's
// summary and the report's flagged results count flags in these words.
func FlagCounts(counts map[string]int) string {
	codes := make([]string, 0, len(counts))
	for c := range counts {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		if counts[codes[i]] != counts[codes[j]] {
			return counts[codes[i]] > counts[codes[j]]
		}
		return codes[i] < codes[j]
	})
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s %d", c, counts[c])
	}
	return strings.Join(parts, ", ")
}

// Reason joins the flags into one line, "code: reason; code: reason", as
// particle.Diagnostics.Reason does ("" for nil or no flag).
func (d *Diagnostics) Reason() string {
	if d == nil {
		return ""
	}
	parts := make([]string, len(d.Flags))
	for i, f := range d.Flags {
		parts[i] = f.Code + ": " + f.Reason
	}
	return strings.Join(parts, "; ")
}
