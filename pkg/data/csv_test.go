package data

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const ownCSV = `id,x1,x2,label,y
1,0,10,yes,1.5
2,1,20,no,2.5
3,2,30,yes,3.5
4,3,40,no,4.5
5,4,50,"yes",5.5
`

func mustCSV(t *testing.T, s string) *CSV {
	t.Helper()
	c, err := ReadCSV(strings.NewReader(s), "own.csv")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCSVClassificationHand(t *testing.T) {
	c := mustCSV(t, ownCSV)
	if c.Rows() != 5 || strings.Join(c.Header, " ") != "id x1 x2 label y" || len(c.SHA256) != 64 {
		t.Fatalf("read %d rows, header %v, sha %q", c.Rows(), c.Header, c.SHA256)
	}
	cl, err := c.Classification(Columns{Target: "label", Features: []string{"x2", "x1"}}, "yes", []int{0, 1, 4}, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	// Training rows 0, 1, 4: x2 ∈ {10, 20, 50} → (x2 − 10)/40, x1 ∈ {0, 1, 4} → x1/4.
	want := [][]float64{{0, 0, 1}, {0.25, 0.25, 1}, {1, 1, 1}}
	for i, w := range want {
		for j, v := range w {
			if got := cl.XTrain.At(i, j); math.Abs(got-v) > 1e-15 {
				t.Errorf("XTrain[%d,%d] = %v, want %v", i, j, got, v)
			}
		}
	}
	if got := cl.XTest.At(1, 0); math.Abs(got-0.75) > 1e-15 { // row 3: x2 = 40
		t.Errorf("XTest[1,0] = %v, want 0.75", got)
	}
	if ftoa(cl.YTrain) != "1 -1 1" || ftoa(cl.YTest) != "1 -1" {
		t.Errorf("labels %s | %s", ftoa(cl.YTrain), ftoa(cl.YTest))
	}
}

func ftoa(v []float64) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		if x > 0 {
			b.WriteString("1")
		} else {
			b.WriteString("-1")
		}
	}
	return b.String()
}

func TestCSVRegressionHand(t *testing.T) {
	c := mustCSV(t, ownCSV)
	r, err := c.Regression(Columns{Target: "y", Features: []string{"x1"}}, []int{0, 1, 2}, []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	// Training y = 1.5, 2.5, 3.5: mean 2.5, population sd √(2/3).
	sd := math.Sqrt(2.0 / 3)
	if math.Abs(r.YMean-2.5) > 1e-15 || math.Abs(r.YStd-sd) > 1e-15 {
		t.Fatalf("y mean %v sd %v", r.YMean, r.YStd)
	}
	if got := r.Unscale(r.YTest[1]); math.Abs(got-5.5) > 1e-14 {
		t.Errorf("unscaled test y = %v, want 5.5", got)
	}
	if got := r.XTest.At(0, 0); math.Abs(got-(3-1)/sd) > 1e-14 { // x1 = 3, training mean 1, sd √(2/3)
		t.Errorf("XTest[0,0] = %v", got)
	}
	// Features default to every column but the target.
	all, err := c.Regression(Columns{Target: "y"}, []int{0, 1, 2}, []int{3, 4})
	if err == nil || !strings.Contains(err.Error(), `"yes" (column "label") is not a number`) || !strings.Contains(err.Error(), "own.csv:2: column 4") {
		t.Errorf("all columns with a word column: %v, %v", all, err)
	}
}

func TestCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		build      func(*CSV) error
		want       string
	}{
		{"missing column", ownCSV, func(c *CSV) error {
			_, err := c.Classification(Columns{Target: "label", Features: []string{"x3"}}, "yes", []int{0}, []int{1})
			return err
		}, `own.csv:1: no column "x3" (columns: id, x1, x2, label, y)`},
		{"missing target", ownCSV, func(c *CSV) error {
			_, err := c.Regression(Columns{Target: "z"}, []int{0}, []int{1})
			return err
		}, `own.csv:1: no column "z"`},
		{"non-numeric cell", strings.Replace(ownCSV, "3,40,no", "3,forty,no", 1), func(c *CSV) error {
			_, err := c.Classification(Columns{Target: "label", Features: []string{"x1", "x2"}}, "yes", []int{0, 1}, []int{2})
			return err
		}, `own.csv:5: column 3: "forty" (column "x2") is not a number`},
		{"single class", ownCSV, func(c *CSV) error {
			_, err := c.Classification(Columns{Target: "label", Features: []string{"x1"}}, "Yes", []int{0, 1}, []int{2})
			return err
		}, `own.csv: target column "label" has a single class: no row has the positive class "Yes" (values: "no", "yes")`},
		{"third class", strings.Replace(ownCSV, "3,40,no", "3,40,maybe", 1), func(c *CSV) error {
			_, err := c.Classification(Columns{Target: "label", Features: []string{"x1"}}, "yes", []int{0, 1}, []int{2})
			return err
		}, `own.csv:5: column 4: target column "label" has a third value "maybe" (besides the positive class "yes" and "no", first at line 3): a logistic model needs exactly two classes`},
		{"third class before the second", strings.Replace(ownCSV, "1,20,no", "1,20,maybe", 1), func(c *CSV) error {
			_, err := c.Classification(Columns{Target: "label", Features: []string{"x1"}}, "yes", []int{0, 1}, []int{2})
			return err
		}, `own.csv:5: column 4: target column "label" has a third value "no" (besides the positive class "yes" and "maybe", first at line 3)`},
		{"constant target", strings.NewReplacer("1.5", "2", "2.5", "2", "3.5", "2").Replace(ownCSV), func(c *CSV) error {
			_, err := c.Regression(Columns{Target: "y", Features: []string{"x1"}}, []int{0, 1, 2}, []int{3})
			return err
		}, `own.csv: target column "y" is constant over the 3 training rows (every value is 2)`},
		{"target as feature", ownCSV, func(c *CSV) error {
			_, err := c.Regression(Columns{Target: "y", Features: []string{"y"}}, []int{0}, []int{1})
			return err
		}, `own.csv:1: column 5: column "y" is the target and a feature`},
		{"overlapping split", ownCSV, func(c *CSV) error {
			_, err := c.Regression(Columns{Target: "y", Features: []string{"x1"}}, []int{0, 1}, []int{1})
			return err
		}, "row 1 is in both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build(mustCSV(t, tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	for text, want := range map[string]string{
		"":                       "own.csv: file is empty",
		"a,b\n":                  "a header and no data row",
		"a,b\n1,2\n3\n":          "own.csv:3: 1 field where the header has 2 columns (a, b)",
		"a,b\n1,2\n3,4\n5,6,7\n": "own.csv:4: 3 fields where the header has 2 columns (a, b)",
		"a,b,c\n1,2,3\n\n4,5\n":  "own.csv:4: 2 fields where the header has 3 columns (a, b, c)",
		"a,a\n1,2\n":             `own.csv:1: column 2: column "a" repeats column 1`,
		"a,\n1,2\n":              "own.csv:1: column 2: empty column name",
		"a,b\n1,\"2\n":           "extraneous or missing",
	} {
		if _, err := ReadCSV(strings.NewReader(text), "own.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadCSV(%q): %v, want %q", text, err, want)
		}
	}
}

func TestSeededSplit(t *testing.T) {
	tr, te, err := SeededSplit(20, 0.7, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 14 || len(te) != 6 {
		t.Fatalf("%d/%d rows", len(tr), len(te))
	}
	seen := map[int]bool{}
	for _, r := range append(append([]int{}, tr...), te...) {
		if seen[r] || r < 0 || r >= 20 {
			t.Fatalf("row %d repeated or out of range", r)
		}
		seen[r] = true
	}
	tr2, _, _ := SeededSplit(20, 0.7, 3)
	tr3, _, _ := SeededSplit(20, 0.7, 4)
	if ftoaI(tr) != ftoaI(tr2) || ftoaI(tr) == ftoaI(tr3) {
		t.Errorf("split 3 is not reproducible or equals split 4: %v %v %v", tr, tr2, tr3)
	}
	for _, f := range []float64{0, 1, 0.01, math.NaN()} {
		if _, _, err := SeededSplit(20, f, 0); err == nil {
			t.Errorf("fraction %v: no error", f)
		}
	}
	// 10 rows at 0.7 leave 3 test rows: too few.
	if _, _, err := SeededSplit(10, 0.7, 0); err == nil || !strings.Contains(err.Error(), "10 rows are too few for a train fraction of 0.7: a split needs at least 5 training and 5 test rows, which takes at least 16 rows") {
		t.Errorf("10 rows at 0.7: %v", err)
	}
}

// MinRows is the fewest rows that SeededSplit accepts: it gives at least
// MinSplitRows on each side there, and one row fewer is refused.
func TestMinRows(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want int
	}{{0.5, 10}, {0.8, 23}, {0.75, 19}, {0.9, 46}, {0.2, 23}, {0.7, 16}} {
		if got := MinRows(c.f); got != c.want {
			t.Errorf("MinRows(%v) = %d, want %d", c.f, got, c.want)
		}
	}
	for f := 0.01; f < 1; f += 0.01 {
		n := MinRows(f)
		tr, te, err := SeededSplit(n, f, 1)
		if err != nil || len(tr) < MinSplitRows || len(te) < MinSplitRows {
			t.Fatalf("fraction %v, MinRows %d: %d/%d rows, %v", f, n, len(tr), len(te), err)
		}
		if _, _, err := SeededSplit(n-1, f, 1); err == nil {
			t.Fatalf("fraction %v: %d rows accepted, MinRows says %d", f, n-1, n)
		}
	}
	for _, f := range []float64{0, 1, -1, math.NaN()} {
		if n := MinRows(f); n != 0 {
			t.Errorf("MinRows(%v) = %d, want 0", f, n)
		}
	}
}

// A file too small for its seeded splits is refused with its name and the
// rows the splits need.
func TestCheckSeededSplit(t *testing.T) {
	small := mustCSV(t, "x,label\n1,yes\n2,no\n3,yes\n")
	err := small.CheckSeededSplit(0.8)
	var pe *ParseError
	if !errors.As(err, &pe) || err.Error() != "own.csv: 3 data rows are too few for splits that train on 0.8 of them: a split needs at least 5 training and 5 test rows, which takes at least 23 rows" {
		t.Errorf("3 rows: %v", err)
	}
	var b strings.Builder
	b.WriteString("x,label\n")
	for i := range 23 {
		b.WriteString(strconv.Itoa(i) + ",yes\n")
	}
	if err := mustCSV(t, b.String()).CheckSeededSplit(0.8); err != nil {
		t.Errorf("23 rows: %v", err)
	}
}

func ftoaI(v []int) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(" " + string(rune('0'+x)))
	}
	return b.String()
}

func TestReadSplitFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index_train_2.txt"), []byte("0\n3\n4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index_test_2.txt"), []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Three training rows: fewer than MinSplitRows.
	if _, _, _, err := ReadSplitFiles(dir, 2, 5); err == nil || err.Error() != filepath.Join(dir, "index_train_2.txt")+": 3 training rows: a split needs at least 5" {
		t.Errorf("3 training rows: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index_train_2.txt"), []byte("0\n3\n4\n5 6 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Two test rows.
	if _, _, _, err := ReadSplitFiles(dir, 2, 8); err == nil || err.Error() != filepath.Join(dir, "index_test_2.txt")+": 2 test rows: a split needs at least 5" {
		t.Errorf("2 test rows: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index_test_2.txt"), []byte("1 2\n8 9 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, te, sums, err := ReadSplitFiles(dir, 2, 11)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(tr) != "[0 3 4 5 6 7]" || fmt.Sprint(te) != "[1 2 8 9 10]" || len(sums) != 2 || len(sums[0].SHA256) != 64 {
		t.Errorf("train %v test %v sums %v", tr, te, sums)
	}
	if _, _, _, err := ReadSplitFiles(dir, 2, 7); err == nil || !strings.Contains(err.Error(), "index_train_2.txt:4: column 3: index 7 out of range") {
		t.Errorf("out of range: %v", err)
	}
	if _, _, _, err := ReadSplitFiles(dir, 0, 5); !os.IsNotExist(err) {
		t.Errorf("absent split: %v", err)
	}
}
