package pdbmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// fields reads a posteriordb data object. Its first error sticks and names
// the key at fault; later reads return zero values.
type fields struct {
	data map[string]json.RawMessage
	err  error
}

func (f *fields) fail(format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf(format, args...)
	}
}

func (f *fields) raw(key string) json.RawMessage {
	if f.err != nil {
		return nil
	}
	r, ok := f.data[key]
	if !ok {
		f.fail("data has no key %q", key)
		return nil
	}
	return r
}

// real reads a number.
func (f *fields) real(key string) float64 {
	r := f.raw(key)
	if r == nil {
		return 0
	}
	var v float64
	if err := json.Unmarshal(unbox(r), &v); err != nil {
		f.fail("data key %q: %v", key, err)
	}
	return v
}

// count reads a non-negative integer (a size such as N, T or K).
func (f *fields) count(key string) int {
	v := f.real(key)
	if f.err == nil && (v < 0 || v != math.Trunc(v) || v > 1<<31) {
		f.fail("data key %q = %v: want a non-negative integer", key, v)
		return 0
	}
	return int(v)
}

// vector reads n numbers; size names where n came from ("N"), for errors.
// A bare number is read as a vector of one, as R's JSON writers give it.
func (f *fields) vector(key string, n int, size string) []float64 {
	r := f.raw(key)
	if r == nil {
		return nil
	}
	var v []float64
	if t := bytes.TrimSpace(r); len(t) > 0 && t[0] != '[' {
		v = []float64{f.real(key)}
	} else if err := json.Unmarshal(r, &v); err != nil {
		f.fail("data key %q: %v", key, err)
		return nil
	}
	if f.err == nil && len(v) != n {
		f.fail("data key %q has %d values, want %s = %d", key, len(v), size, n)
		return nil
	}
	return v
}

// matrix reads an n×k matrix written as n rows of k numbers and returns it
// row-major.
func (f *fields) matrix(key string, n, k int, rows, cols string) []float64 {
	r := f.raw(key)
	if r == nil {
		return nil
	}
	var m [][]float64
	if err := json.Unmarshal(r, &m); err != nil {
		f.fail("data key %q: %v (want %s rows of %s numbers)", key, err, rows, cols)
		return nil
	}
	if len(m) != n {
		f.fail("data key %q has %d rows, want %s = %d", key, len(m), rows, n)
		return nil
	}
	out := make([]float64, 0, n*k)
	for i, row := range m {
		if len(row) != k {
			f.fail("data key %q: row %d has %d values, want %s = %d", key, i+1, len(row), cols, k)
			return nil
		}
		out = append(out, row...)
	}
	return out
}

// within checks that every value of key lies in [lo, hi], as a Stan data
// declaration vector<lower=lo, upper=hi> does.
func (f *fields) within(key string, v []float64, lo, hi float64) {
	for i, x := range v {
		if f.err == nil && !(x >= lo && x <= hi) {
			f.fail("data key %q: element %d = %v is outside [%v, %v]", key, i+1, x, lo, hi)
		}
	}
}

// positive checks that every value of key is above 0 (a scale).
func (f *fields) positive(key string, v []float64) {
	for i, x := range v {
		if f.err == nil && !(x > 0) {
			f.fail("data key %q: element %d = %v is not positive", key, i+1, x)
		}
	}
}

// logOf returns the logarithms of v, which must be positive (Stan's log of
// a data vector in transformed data).
func (f *fields) logOf(key string, v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		if f.err == nil && !(x > 0) {
			f.fail("data key %q: element %d = %v has no logarithm", key, i+1, x)
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
