package harness

import (
	"fmt"
	"io"
	"os"
)

// Limits of an experiment file, checked before the TOML parser sees it: a
// 40 KB file holding a dotted key of 20,000 parts, or tables nested
// 100,000 deep, once took the parser beyond any memory.
const (
	// MaxConfigBytes is the largest experiment file read (1 MiB; the
	// largest of experiments/*.toml has 22,820 bytes).
	MaxConfigBytes = 1 << 20
	// MaxKeyParts is the most parts of one dotted key or table header
	// (the committed experiment files' keys have at most 4, as in
	// [profiles.full.methods.svgd]).
	MaxKeyParts = 32
	// MaxNesting is the deepest nesting of arrays and inline tables in a
	// value (the committed files' values nest at most 2 deep).
	MaxNesting = 32
)

// readConfigFile reads the experiment file at path: a regular file of at
// most MaxConfigBytes bytes (a device or a FIFO is refused before it is
// opened, a larger file before it is read).
func readConfigFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &ConfigError{File: path, Msg: fmt.Sprintf("not a regular file (%s)", fi.Mode().Type())}
	}
	if fi.Size() > MaxConfigBytes {
		return nil, tooLarge(path, fi.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxConfigBytes {
		return nil, tooLarge(path, int64(len(b)))
	}
	return b, nil
}

func tooLarge(file string, n int64) *ConfigError {
	return &ConfigError{File: file, Msg: fmt.Sprintf("%d bytes: an experiment file has at most %d (MaxConfigBytes)", n, MaxConfigBytes)}
}

// checkConfigShape refuses, before parsing, an experiment file of more
// than MaxConfigBytes bytes, a dotted key or table header of more than
// MaxKeyParts parts, or arrays and inline tables nested more than
// MaxNesting deep, naming the line. It reads TOML's lexical structure
// only (strings, comments, keys, brackets): whatever else is wrong is the
// parser's to report.
func checkConfigShape(file string, src []byte) error {
	if len(src) > MaxConfigBytes {
		return tooLarge(file, int64(len(src)))
	}
	return checkShape(file, src, MaxKeyParts, MaxNesting)
}

// checkShape is checkConfigShape's scan with the limits maxParts and
// maxDepth.
func checkShape(file string, src []byte, maxParts, maxDepth int) error {
	line := 1
	var stack []byte // '[' (array) and '{' (inline table) open in a value
	inKey := true    // reading a key: at a line's start, in a header, after '{' or ',' in an inline table
	header := false  // reading a table header's key
	lineStart := true
	parts := 1
	errAt := func(format string, args ...any) error {
		return &ConfigError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			lineStart = true
			if len(stack) == 0 {
				inKey, header, parts = true, false, 1
			}
			continue
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
			continue
		case c == '"' || c == '\'':
			i = skipString(src, i, &line)
			lineStart = false
			continue
		}
		atStart := lineStart
		lineStart = false
		if inKey {
			switch {
			case c == '.':
				if parts++; parts > maxParts {
					return errAt("a dotted key of more than %d parts (MaxKeyParts)", maxParts)
				}
			case c == '=' && !header:
				inKey = false
			case c == '[' && atStart && len(stack) == 0:
				header = true
				if i+1 < len(src) && src[i+1] == '[' {
					i++
				}
			case c == ']' && header:
				inKey, header = false, false
			case c == '}' && len(stack) > 0 && stack[len(stack)-1] == '{':
				stack = stack[:len(stack)-1] // {} or a trailing comma
				inKey = false
			}
			continue
		}
		switch c {
		case '[', '{':
			if len(stack) == maxDepth {
				return errAt("arrays and inline tables nested more than %d deep (MaxNesting)", maxDepth)
			}
			stack = append(stack, c)
			if c == '{' {
				inKey, parts = true, 1
			}
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				inKey, parts = true, 1
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the TOML string that
// starts at src[i] (basic or literal, single- or multi-line), counting its
// newlines into line; an unterminated string runs to the end of its line
// (multi-line: of the file), where the parser reports it.
func skipString(src []byte, i int, line *int) int {
	q := src[i]
	multi := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	if multi {
		i += 3
	} else {
		i++
	}
	for ; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && q == '"':
			if i+1 < len(src) && src[i+1] == '\n' {
				*line++
			}
			i++
		case c == '\n':
			if !multi {
				return i - 1
			}
			*line++
		case c == q && !multi:
			return i
		case c == q && i+2 < len(src) && src[i+1] == q && src[i+2] == q:
			// A multi-line string may end with up to two more quotes.
			for i+3 < len(src) && src[i+3] == q {
				i++
			}
			return i + 2
		}
	}
	return len(src) - 1
}
