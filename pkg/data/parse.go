package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// maxLine bounds one line of a data file. The widest real line (Year, 91
// numbers) is about 1 KiB; anything beyond 1 MiB is not one of these files.
const maxLine = 1 << 20

// A ParseError reports a malformed input at a file and line, so that a bad
// download or a hand-edited file can be found and fixed without a debugger.
type ParseError struct {
	File   string // file name as given to the parser
	Line   int    // 1-based line number; 0 when the fault is the file as a whole
	Column int    // 1-based column; 0 when not about one value
	Err    error
}

// Error is "file:line: column c: problem", leaving out what is unknown.
func (e *ParseError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	case e.Column == 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	default:
		return fmt.Sprintf("%s:%d: column %d: %v", e.File, e.Line, e.Column, e.Err)
	}
}

// Unwrap returns the underlying problem.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrEmpty is wrapped by the error for a file with no data line: an empty
// download must never read as a dataset of zero rows.
var ErrEmpty = errors.New("file is empty")

// Sep selects how the columns of a numeric table are separated.
type Sep byte

const (
	// Whitespace separates columns by runs of spaces or tabs (the PBP data.txt
	// layout, as numpy.savetxt writes it).
	Whitespace Sep = 0
	// Comma separates columns by single commas (UCI covtype.data, Year).
	Comma Sep = ','
)

// ParseTable reads a numeric table of a fixed number of columns from r and
// returns its values row-major in dst (resliced; nil allocates) with the row
// count. cols ≤ 0 takes the column count from the first data line. Blank
// lines are skipped; every other line must hold exactly cols finite numbers.
// name is used only in error messages.
func ParseTable(r io.Reader, name string, sep Sep, cols int, dst []float64) (values []float64, rows, ncols int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	values = dst[:0]
	var fields [][]byte
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if isBlank(b) {
			continue
		}
		fields = splitFields(b, sep, fields[:0])
		if cols <= 0 {
			cols = len(fields)
		}
		if len(fields) != cols {
			return values, rows, cols, &ParseError{File: name, Line: line, Err: fmt.Errorf("%d columns, want %d (truncated or malformed line)", len(fields), cols)}
		}
		for j, tok := range fields {
			v, perr := parseNumber(tok)
			if perr != nil {
				return values, rows, cols, &ParseError{File: name, Line: line, Column: j + 1, Err: perr}
			}
			values = append(values, v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes", maxLine)
		}
		return values, rows, cols, &ParseError{File: name, Line: line + 1, Err: err}
	}
	if rows == 0 {
		return values, 0, cols, &ParseError{File: name, Err: ErrEmpty}
	}
	return values, rows, cols, nil
}

// ParseIndex reads 0-based row indices, one or more per line separated by
// white space, into dst (resliced; nil allocates). Every index must lie in
// [0, n) and appear once: a split file that repeats or overruns rows would
// silently bias every metric computed from it.
func ParseIndex(r io.Reader, name string, n int, dst []int) ([]int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), maxLine)
	idx := dst[:0]
	seen := make(map[int]int)
	var fields [][]byte
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		fields = splitFields(b, Whitespace, fields[:0])
		for j, tok := range fields {
			col := j + 1
			v, err := strconv.Atoi(string(tok))
			if err != nil {
				return idx, &ParseError{File: name, Line: line, Column: col, Err: fmt.Errorf("not an integer index: %q", clip(tok))}
			}
			if v < 0 || v >= n {
				return idx, &ParseError{File: name, Line: line, Column: col, Err: fmt.Errorf("index %d out of range [0, %d)", v, n)}
			}
			if first, dup := seen[v]; dup {
				return idx, &ParseError{File: name, Line: line, Column: col, Err: fmt.Errorf("index %d duplicated (first on line %d)", v, first)}
			}
			seen[v] = line
			idx = append(idx, v)
		}
	}
	if err := sc.Err(); err != nil {
		return idx, &ParseError{File: name, Line: line + 1, Err: err}
	}
	if len(idx) == 0 {
		return idx, &ParseError{File: name, Err: ErrEmpty}
	}
	return idx, nil
}

// ParseInt reads a file holding one integer (n_splits.txt, index_target.txt).
func ParseInt(r io.Reader, name string) (int, error) {
	v, err := ParseIndex(r, name, math.MaxInt, nil)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, &ParseError{File: name, Err: fmt.Errorf("%d values, want exactly 1", len(v))}
	}
	return v[0], nil
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// splitFields appends the fields of line b to dst. With Whitespace, runs of
// blanks separate fields and a blank line has none; with a separator byte,
// fields lie between separators with surrounding blanks trimmed, so "1,,2"
// has an empty middle field (an error later, not two columns).
func splitFields(b []byte, sep Sep, dst [][]byte) [][]byte {
	if sep == Whitespace {
		i := 0
		for {
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			if i == len(b) {
				return dst
			}
			j := i
			for j < len(b) && !isSpace(b[j]) {
				j++
			}
			dst = append(dst, b[i:j])
			i = j
		}
	}
	for {
		j := bytes.IndexByte(b, byte(sep))
		if j < 0 {
			return append(dst, trimBlank(b))
		}
		dst = append(dst, trimBlank(b[:j]))
		b = b[j+1:]
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func trimBlank(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// parseNumber reads one finite float64. Plain integers (every covtype token)
// take a fast path that does not go through strconv.
func parseNumber(tok []byte) (float64, error) {
	if len(tok) == 0 {
		return 0, errors.New("empty value")
	}
	if v, ok := parseSmallInt(tok); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, fmt.Errorf("non-numeric token %q", clip(tok))
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("non-finite value %q", clip(tok))
	}
	return v, nil
}

func parseSmallInt(tok []byte) (float64, bool) {
	neg := false
	b := tok
	if b[0] == '-' {
		neg = true
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return float64(v), true
}

// clip shortens a token quoted in an error message.
func clip(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "…"
	}
	return string(b)
}
