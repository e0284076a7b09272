// Package setting holds the error type that every method's Settings.Validate
// returns: the field at fault, by the name it has in an experiment file, its
// value and the reason it is refused.
package setting

import (
	"errors"
	"fmt"
	"slices"
)

// Error is an invalid settings field. Field is the field's TOML/JSON name
// (for example "lmo_steps"), so that a decoder can point at the line that
// set it; Value is the refused value; Reason says what is wrong with it.
type Error struct {
	Field  string
	Value  any
	Reason string
}

// Error is "field = value: reason".
func (e *Error) Error() string {
	return fmt.Sprintf("%s = %v: %s", e.Field, e.Value, e.Reason)
}

// Errorf returns an *Error for field with value v and the reason formatted
// from format and args.
func Errorf(field string, v any, format string, args ...any) *Error {
	return &Error{Field: field, Value: v, Reason: fmt.Sprintf(format, args...)}
}

// As reports whether err is or wraps an *Error and returns it.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// NonNegative returns an *Error for the first of the named values that is
// negative (or NaN), and nil when there is none. Fields are given in pairs
// name, value; values are int, int64 or float64.
func NonNegative(fields ...any) error {
	if len(fields)%2 != 0 {
		panic("setting: NonNegative needs name, value pairs")
	}
	for i := 0; i < len(fields); i += 2 {
		name, ok := fields[i].(string)
		if !ok {
			panic("setting: NonNegative field name is not a string")
		}
		var bad bool
		switch v := fields[i+1].(type) {
		case int:
			bad = v < 0
		case int64:
			bad = v < 0
		case float64:
			bad = v < 0 || v != v
		default:
			panic(fmt.Sprintf("setting: NonNegative value of %s has type %T", name, v))
		}
		if bad {
			return Errorf(name, fields[i+1], "must not be negative")
		}
	}
	return nil
}

// OneOf returns nil when v is the empty text, which an enumerated setting
// takes for its default, or one of allowed, and otherwise an *Error for
// field whose reason lists the allowed texts:
//
//	whiten = sideways: is not one of ["laplace" "none"]
//
// Every method's enumerated settings are string types whose constants are
// their texts in experiment files; their Validate methods check them with
// OneOf.
func OneOf[T ~string](field string, v T, allowed ...T) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	texts := make([]string, len(allowed))
	for i, a := range allowed {
		texts[i] = string(a)
	}
	return Errorf(field, string(v), "is not one of %q", texts)
}
