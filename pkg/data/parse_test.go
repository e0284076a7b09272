package data

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTable(t *testing.T) {
	for _, tc := range []struct {
		name, in   string
		sep        Sep
		cols       int
		want       []float64
		rows, ncol int
	}{
		{"csv", "1,2,3\n4,5,6\n", Comma, 3, []float64{1, 2, 3, 4, 5, 6}, 2, 3},
		{"csv infer cols, spaces, CRLF, no final newline", " 1 , -2.5,3e2\r\n\n4,5,6", Comma, 0, []float64{1, -2.5, 300, 4, 5, 6}, 2, 3},
		{"whitespace", "   1.0e+00   2\t3\n\n  4 5 6  \n\n", Whitespace, 3, []float64{1, 2, 3, 4, 5, 6}, 2, 3},
		{"big integer takes the float path", "12345678901234567,1\n", Comma, 2, []float64{12345678901234567, 1}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rows, ncol, err := ParseTable(strings.NewReader(tc.in), "f", tc.sep, tc.cols, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rows != tc.rows || ncol != tc.ncol {
				t.Fatalf("rows, cols = %d, %d, want %d, %d", rows, ncol, tc.rows, tc.ncol)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestParseTableErrors checks that every malformed input is reported with
// the file, the line and, for a bad value, the column.
func TestParseTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		sep      Sep
		cols     int
		want     string
	}{
		{"truncated last line", "1,2,3\n4,5,6\n7,8", Comma, 3, "f.csv:3: 2 columns, want 3"},
		{"extra column", "1,2,3\n4,5,6,7\n", Comma, 3, "f.csv:2: 4 columns, want 3"},
		{"inferred cols then short", "1 2 3\n\n4 5\n", Whitespace, 0, "f.csv:3: 2 columns, want 3"},
		{"non-numeric", "1,2,3\n4,x5,6\n", Comma, 3, `f.csv:2: column 2: non-numeric token "x5"`},
		{"empty field", "1,,3\n", Comma, 3, "f.csv:1: column 2: empty value"},
		{"trailing comma", "1,2,3,\n", Comma, 3, "f.csv:1: 4 columns, want 3"},
		{"nan", "1 nan 3\n", Whitespace, 3, `f.csv:1: column 2: non-finite value "nan"`},
		{"overflow", "1 2 1e999\n", Whitespace, 3, `f.csv:1: column 3: non-numeric token "1e999"`},
		{"empty file", "", Comma, 3, "f.csv: file is empty"},
		{"blank lines only", "\n  \n\r\n", Whitespace, 0, "f.csv: file is empty"},
		{"line too long", strings.Repeat("1 ", maxLine), Whitespace, 0, "f.csv:1: line longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := ParseTable(strings.NewReader(tc.in), "f.csv", tc.sep, tc.cols, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
		})
	}
	_, _, _, err := ParseTable(strings.NewReader(""), "f", Comma, 1, nil)
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("empty input: %v does not wrap ErrEmpty", err)
	}
}

func TestParseIndex(t *testing.T) {
	got, err := ParseIndex(strings.NewReader("3\n0\n\n 2 1\n"), "idx", 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{3, 0, 2, 1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	for _, tc := range []struct{ name, in, want string }{
		{"out of range", "0\n1\n4\n", "idx:3: column 1: index 4 out of range [0, 4)"},
		{"negative", "0\n-1\n", "idx:2: column 1: index -1 out of range [0, 4)"},
		{"duplicate", "0\n2\n1\n2\n", "idx:4: column 1: index 2 duplicated (first on line 2)"},
		{"non-integer", "0\n1.5\n", `idx:2: column 1: not an integer index: "1.5"`},
		{"empty", "", "idx: file is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseIndex(strings.NewReader(tc.in), "idx", 4, nil)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseInt(t *testing.T) {
	if v, err := ParseInt(strings.NewReader("20\n"), "n"); err != nil || v != 20 {
		t.Fatalf("ParseInt = %d, %v; want 20", v, err)
	}
	if _, err := ParseInt(strings.NewReader("1\n2\n"), "n"); err == nil || !strings.Contains(err.Error(), "want exactly 1") {
		t.Fatalf("two values: error %v", err)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 20000: "20,000", 581012: "581,012", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
