package pdbmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Fields reads the values of a posteriordb data object, as a Builder does:
//
//	f := pdbmodel.Fields{Data: data}
//	n := f.Count("N")
//	y := f.Vector("y", n, "N")
//	if f.Err() != nil {
//		return nil, f.Err()
//	}
//
// Its first error sticks and names the key at fault (a missing key, a value
// of the wrong type or size); later reads return zero values, so that a
// Builder reads everything and checks once. Sizes are read first, so that
// a vector's error names the size it should have had.
type Fields struct {
	// Data is the data file's JSON object, key by key.
	Data map[string]json.RawMessage
	err  error
}

// Err returns the first error of the reads so far, or nil.
func (f *Fields) Err() error { return f.err }

// Fail records an error of the Builder's own (a value the model cannot
// take), formatted as fmt.Errorf does, unless one is already recorded.
func (f *Fields) Fail(format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf(format, args...)
	}
}

func (f *Fields) raw(key string) json.RawMessage {
	if f.err != nil {
		return nil
	}
	r, ok := f.Data[key]
	if !ok {
		f.Fail("data has no key %q", key)
		return nil
	}
	return r
}

// Real reads a number (a bare number or an array of one, as R's JSON
// writers give a scalar).
func (f *Fields) Real(key string) float64 {
	r := f.raw(key)
	if r == nil {
		return 0
	}
	var v float64
	if err := json.Unmarshal(unbox(r), &v); err != nil {
		f.Fail("data key %q: %v", key, err)
	}
	return v
}

// Count reads a non-negative integer (a size such as N, T or K).
func (f *Fields) Count(key string) int {
	v := f.Real(key)
	if f.err == nil && (v < 0 || v != math.Trunc(v) || v > 1<<31) {
		f.Fail("data key %q = %v: want a non-negative integer", key, v)
		return 0
	}
	return int(v)
}

// Vector reads n numbers; size names where n came from ("N"), for errors.
// A bare number is read as a vector of one, as R's JSON writers give it.
func (f *Fields) Vector(key string, n int, size string) []float64 {
	r := f.raw(key)
	if r == nil {
		return nil
	}
	var v []float64
	if t := bytes.TrimSpace(r); len(t) > 0 && t[0] != '[' {
		v = []float64{f.Real(key)}
	} else if err := json.Unmarshal(r, &v); err != nil {
		f.Fail("data key %q: %v", key, err)
		return nil
	}
	if f.err == nil && len(v) != n {
		f.Fail("data key %q has %d values, want %s = %d", key, len(v), size, n)
		return nil
	}
	return v
}

// Matrix reads an n×k matrix written as n rows of k numbers and returns it
// row-major; rows and cols name where n and k came from, for errors.
func (f *Fields) Matrix(key string, n, k int, rows, cols string) []float64 {
	r := f.raw(key)
	if r == nil {
		return nil
	}
	var m [][]float64
	if err := json.Unmarshal(r, &m); err != nil {
		f.Fail("data key %q: %v (want %s rows of %s numbers)", key, err, rows, cols)
		return nil
	}
	if len(m) != n {
		f.Fail("data key %q has %d rows, want %s = %d", key, len(m), rows, n)
		return nil
	}
	out := make([]float64, 0, n*k)
	for i, row := range m {
		if len(row) != k {
			f.Fail("data key %q: row %d has %d values, want %s = %d", key, i+1, len(row), cols, k)
			return nil
		}
		out = append(out, row...)
	}
	return out
}

// Within checks that every value v of key lies in [lo, hi], as a Stan data
// declaration vector<lower=lo, upper=hi> does.
func (f *Fields) Within(key string, v []float64, lo, hi float64) {
	for i, x := range v {
		if f.err == nil && !(x >= lo && x <= hi) {
			f.Fail("data key %q: element %d = %v is outside [%v, %v]", key, i+1, x, lo, hi)
		}
	}
}

// Positive checks that every value v of key is above 0 (a scale).
func (f *Fields) Positive(key string, v []float64) {
	for i, x := range v {
		if f.err == nil && !(x > 0) {
			f.Fail("data key %q: element %d = %v is not positive", key, i+1, x)
		}
	}
}

// LogOf returns the logarithms of v, the values of key, which must be
// positive (Stan's log of a data vector in transformed data).
func (f *Fields) LogOf(key string, v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		if f.err == nil && !(x > 0) {
			f.Fail("data key %q: element %d = %v has no logarithm", key, i+1, x)
		}
		out[i] = math.Log(x)
	}
	return out
}

// unbox returns the number inside a one-element array, as R's JSON writers
// sometimes give a scalar.
func unbox(r json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(r)
	if len(t) > 1 && t[0] == '[' && t[len(t)-1] == ']' && !bytes.ContainsAny(t[1:len(t)-1], ",[") {
		return t[1 : len(t)-1]
	}
	return r
}
