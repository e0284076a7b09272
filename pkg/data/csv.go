package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// CSV is a table read from a comma-separated file whose first line names
// the columns: a dataset of one's own. Cells are kept as text until a
// loader picks its columns, so that a class label may be a word.
type CSV struct {
	// Name is the file name used in messages.
	Name string
	// Header holds the column names, in file order.
	Header []string
	// SHA256 is the hex sha256 of the bytes read.
	SHA256 string

	records [][]string
	lines   []int // 1-based line of each record
}

// DefaultMaxCSVBytes is the size above which ReadCSVFile refuses a file
// unless given a larger limit: 256 MiB, 76 times the largest data file of
// the paper's data sets (protein-tertiary-structure's data.txt, 3,528,658
// bytes) and three times UCI's whole Covertype (75 MB). Reading a CSV
// takes about four times its size in memory (the text, and a string header
// per field).
const DefaultMaxCSVBytes = 256 << 20

// MaxCSVLine is the longest line ReadCSV reads (1 MiB, some 100,000
// numeric columns): a longer one is a *ParseError naming its line, not a
// buffer grown to the line's size.
const MaxCSVLine = 1 << 20

// ReadCSV reads a CSV file with a header row (RFC 4180: quoted fields may
// hold commas; surrounding spaces of unquoted fields are trimmed). Every
// row must have as many fields as the header; column names must be
// distinct and not empty. Errors are *ParseError values naming name, the
// line and the field. A line longer than MaxCSVLine bytes is an error.
func ReadCSV(r io.Reader, name string) (*CSV, error) {
	h := sha256.New()
	cr := csv.NewReader(&lineLimiter{r: io.TeeReader(r, h), line: 1})
	cr.ReuseRecord = false
	t := &CSV{Name: name}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &ParseError{File: name, Err: ErrEmpty}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	seen := map[string]int{}
	for j, c := range header {
		c = strings.TrimSpace(c)
		if j == 0 {
			c = strings.TrimPrefix(c, "\ufeff")
		}
		if c == "" {
			return nil, &ParseError{File: name, Line: 1, Column: j + 1, Err: errors.New("empty column name in the header")}
		}
		if k, dup := seen[c]; dup {
			return nil, &ParseError{File: name, Line: 1, Column: j + 1, Err: fmt.Errorf("column %q repeats column %d", c, k)}
		}
		seen[c] = j + 1
		t.Header = append(t.Header, c)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, csv.ErrFieldCount) {
			return nil, fieldCountError(name, err, len(rec), t.Header)
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		for j := range rec {
			rec[j] = strings.TrimSpace(rec[j])
		}
		t.records = append(t.records, rec)
		t.lines = append(t.lines, line)
	}
	if len(t.records) == 0 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("a header and no data row: %w", ErrEmpty)}
	}
	t.SHA256 = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// ReadCSVFile is ReadCSV on the file at path, which must be a regular file
// of at most maxBytes bytes (DefaultMaxCSVBytes when maxBytes ≤ 0): a
// device, a FIFO, a folder or a larger file is refused before it is read.
func ReadCSVFile(path string, maxBytes int64) (*CSV, error) {
	f, err := openRegular(path, maxBytes, DefaultMaxCSVBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV(f, path)
}

// sizedFile is an open regular file that errors when more than its limit
// is read (it grew after its size was checked).
type sizedFile struct {
	*os.File
	path string
	left int64
	max  int64
}

func (f *sizedFile) Read(p []byte) (int, error) {
	if int64(len(p)) > f.left+1 {
		p = p[:f.left+1]
	}
	n, err := f.File.Read(p)
	f.left -= int64(n)
	if f.left < 0 {
		return n - 1, fmt.Errorf("%s: more than %d bytes (the file grew as it was read)", f.path, f.max)
	}
	return n, err
}

// openRegular opens the regular file at path for reading, refusing a file
// of other type or of more than maxBytes bytes (def when maxBytes ≤ 0)
// before opening it: opening a FIFO would wait for a writer, and a device
// such as /dev/zero never ends.
func openRegular(path string, maxBytes, def int64) (*sizedFile, error) {
	if maxBytes <= 0 {
		maxBytes = def
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() > maxBytes {
		return nil, fmt.Errorf("%s has %d bytes, more than the limit of %d", path, fi.Size(), maxBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return &sizedFile{File: f, path: path, left: maxBytes, max: maxBytes}, nil
}

// lineLimiter reads r and fails at a line longer than MaxCSVLine bytes.
type lineLimiter struct {
	r    io.Reader
	line int // the line being read, from 1
	n    int // bytes of it read so far
}

// lineTooLong is lineLimiter's error.
type lineTooLong struct{ line int }

func (e *lineTooLong) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.line, MaxCSVLine)
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	k, err := l.r.Read(p)
	for i, c := range p[:k] {
		if c == '\n' {
			l.line++
			l.n = 0
			continue
		}
		l.n++
		if l.n > MaxCSVLine {
			return i, &lineTooLong{line: l.line}
		}
	}
	return k, err
}

func csvError(name string, err error) error {
	var long *lineTooLong
	if errors.As(err, &long) {
		return &ParseError{File: name, Line: long.line, Err: fmt.Errorf("a line longer than %d bytes", MaxCSVLine)}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: name, Line: pe.Line, Column: pe.Column, Err: pe.Err}
	}
	return &ParseError{File: name, Err: err}
}

// fieldCountError is the error of a row of n fields under a header of
// other width: it names the row's line and both counts (the csv package's
// own error points at the row's first field, which is not at fault).
func fieldCountError(name string, err error, n int, header []string) error {
	line := 0
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		line = pe.StartLine
	}
	fields := "fields"
	if n == 1 {
		fields = "field"
	}
	return &ParseError{File: name, Line: line, Err: fmt.Errorf("%d %s where the header has %d columns (%s)", n, fields, len(header), strings.Join(header, ", "))}
}

// Rows returns the number of data rows.
func (t *CSV) Rows() int { return len(t.records) }

// column returns the index of the named column.
func (t *CSV) column(name string) (int, error) {
	for j, c := range t.Header {
		if c == name {
			return j, nil
		}
	}
	return 0, &ParseError{File: t.Name, Line: 1, Err: fmt.Errorf("no column %q (columns: %s)", name, strings.Join(t.Header, ", "))}
}

// Columns selects the columns of a CSV dataset.
type Columns struct {
	// Target is the name of the response column.
	Target string
	// Features are the names of the feature columns, in the order the
	// model sees them; empty means every column but the target, in file
	// order.
	Features []string
}

// features resolves c against the header.
func (t *CSV) features(c Columns) (target int, feat []int, err error) {
	if target, err = t.column(c.Target); err != nil {
		return 0, nil, err
	}
	if len(c.Features) == 0 {
		for j := range t.Header {
			if j != target {
				feat = append(feat, j)
			}
		}
		if len(feat) == 0 {
			return 0, nil, &ParseError{File: t.Name, Line: 1, Err: fmt.Errorf("no feature column besides the target %q", c.Target)}
		}
		return target, feat, nil
	}
	seen := map[int]bool{}
	for _, f := range c.Features {
		j, err := t.column(f)
		if err != nil {
			return 0, nil, err
		}
		if j == target {
			return 0, nil, &ParseError{File: t.Name, Line: 1, Column: j + 1, Err: fmt.Errorf("column %q is the target and a feature", f)}
		}
		if seen[j] {
			return 0, nil, &ParseError{File: t.Name, Line: 1, Column: j + 1, Err: fmt.Errorf("feature %q is listed twice", f)}
		}
		seen[j] = true
		feat = append(feat, j)
	}
	return target, feat, nil
}

// number parses the cell of row i in column j as a finite number.
func (t *CSV) number(i, j int) (float64, error) {
	s := t.records[i][j]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		what := "is not a number"
		if err == nil {
			what = "is not finite"
		}
		if s == "" {
			what = "is empty, not a number"
		}
		return 0, &ParseError{File: t.Name, Line: t.lines[i], Column: j + 1, Err: fmt.Errorf("%q (column %q) %s", s, t.Header[j], what)}
	}
	return v, nil
}

// matrix reads the feature columns of every row, with room for extra
// columns at the end.
func (t *CSV) matrix(feat []int, extra int) (*mat.Dense, error) {
	p := len(feat) + extra
	x := mat.NewDense(len(t.records), p, nil)
	for i := range t.records {
		row := x.RawRowView(i)
		for k, j := range feat {
			v, err := t.number(i, j)
			if err != nil {
				return nil, err
			}
			row[k] = v
		}
	}
	return x, nil
}

func gatherRows(x *mat.Dense, y []float64, rows []int) (*mat.Dense, []float64) {
	_, p := x.Dims()
	out := mat.NewDense(len(rows), p, nil)
	yo := make([]float64, len(rows))
	for i, r := range rows {
		copy(out.RawRowView(i), x.RawRowView(r))
		yo[i] = y[r]
	}
	return out, yo
}

func (t *CSV) checkSplit(train, test []int) error {
	if len(train) == 0 || len(test) == 0 {
		return fmt.Errorf("%s: a split needs training and test rows (%d and %d)", t.Name, len(train), len(test))
	}
	in := make(map[int]bool, len(train))
	for _, r := range train {
		if r < 0 || r >= len(t.records) {
			return fmt.Errorf("%s: training row %d out of range [0, %d)", t.Name, r, len(t.records))
		}
		in[r] = true
	}
	for _, r := range test {
		if r < 0 || r >= len(t.records) {
			return fmt.Errorf("%s: test row %d out of range [0, %d)", t.Name, r, len(t.records))
		}
		if in[r] {
			return fmt.Errorf("%s: row %d is in both the training and the test rows", t.Name, r)
		}
	}
	return nil
}

// Classification builds a logistic-regression dataset from the columns c:
// y = +1 where the target cell equals positive (as text, after trimming
// spaces) and −1 where it holds the one other value; a third value is a
// *ParseError naming its line and the column; the features are scaled to [0, 1] with the
// training rows' minimum and range, as for Covertype (a constant column is
// divided by 1), and a last column of ones is the bias. train and test are
// 0-based data rows (SeededSplit, ReadSplitFiles). A target with a single
// class (every row positive, or none) is an error naming the column; a
// non-numeric feature cell is a *ParseError naming its line and field.
func (t *CSV) Classification(c Columns, positive string, train, test []int) (*Classification, error) {
	tg, feat, err := t.features(c)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(t.records))
	npos := 0
	values := map[string]bool{}
	for i, rec := range t.records {
		values[rec[tg]] = true
		y[i] = -1
		if rec[tg] == positive {
			y[i], npos = 1, npos+1
		}
	}
	if npos == 0 || npos == len(y) {
		var seen []string
		for v := range values {
			seen = append(seen, strconv.Quote(v))
		}
		sort.Strings(seen)
		if len(seen) > 8 {
			seen = append(seen[:8], "…")
		}
		why := fmt.Sprintf("no row has the positive class %q", positive)
		if npos > 0 {
			why = fmt.Sprintf("every row has the positive class %q", positive)
		}
		return nil, &ParseError{File: t.Name, Err: fmt.Errorf("target column %q has a single class: %s (values: %s)", c.Target, why, strings.Join(seen, ", "))}
	}
	if len(values) > 2 {
		return nil, t.thirdClass(c.Target, tg, positive)
	}
	x, err := t.matrix(feat, 1)
	if err != nil {
		return nil, err
	}
	if err := t.checkSplit(train, test); err != nil {
		return nil, err
	}
	p := len(feat)
	for i := range t.records {
		x.Set(i, p, 1)
	}
	xtr, ytr := gatherRows(x, y, train)
	xte, yte := gatherRows(x, y, test)
	lo, scale := make([]float64, p), make([]float64, p)
	minMax(xtr, p, lo, scale)
	for j := range p {
		if !finite(scale[j]) {
			return nil, fmt.Errorf("%s: column %q: range too large to scale (%v)", t.Name, t.Header[feat[j]], scale[j])
		}
	}
	for _, m := range []*mat.Dense{xtr, xte} {
		raw := m.RawMatrix()
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+p]
			for j := range row {
				row[j] = (row[j] - lo[j]) / scale[j]
			}
		}
	}
	return &Classification{
		Name: t.Name, Label: t.Name, Rows: len(t.records),
		XTrain: xtr, XTest: xte, YTrain: ytr, YTest: yte, Min: lo, Scale: scale,
		Files: []FileSum{{Path: t.Name, SHA256: t.SHA256}},
	}, nil
}

// thirdClass returns the error for the first row of the target column tg
// whose value is neither positive nor the first other value.
func (t *CSV) thirdClass(target string, tg int, positive string) error {
	negative, negLine := "", 0 // the other class and the line it first appears on
	for i, rec := range t.records {
		switch v := rec[tg]; {
		case v == positive:
		case negLine == 0:
			negative, negLine = v, t.lines[i]
		case v != negative:
			return &ParseError{File: t.Name, Line: t.lines[i], Column: tg + 1, Err: fmt.Errorf(
				"target column %q has a third value %q (besides the positive class %q and %q, first at line %d): a logistic model needs exactly two classes",
				target, v, positive, negative, negLine)}
		}
	}
	panic("data: thirdClass called on a column of two values")
}

// Regression builds a regression dataset from the columns c: features and
// target are standardised with the training rows' mean and population
// standard deviation, as for the UCI sets (Regression.Unscale undoes it for
// y). A constant target over the training rows is an error naming the
// column; a non-numeric cell is a *ParseError naming its line and field.
func (t *CSV) Regression(c Columns, train, test []int) (*Regression, error) {
	tg, feat, err := t.features(c)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(t.records))
	for i := range t.records {
		if y[i], err = t.number(i, tg); err != nil {
			return nil, err
		}
	}
	x, err := t.matrix(feat, 0)
	if err != nil {
		return nil, err
	}
	if err := t.checkSplit(train, test); err != nil {
		return nil, err
	}
	xtr, ytr := gatherRows(x, y, train)
	xte, yte := gatherRows(x, y, test)
	constant := true
	for _, v := range ytr {
		constant = constant && v == ytr[0]
	}
	if constant {
		return nil, &ParseError{File: t.Name, Err: fmt.Errorf("target column %q is constant over the %d training rows (every value is %v)", c.Target, len(ytr), ytr[0])}
	}
	r, err := standardise(&Dataset{Name: t.Name}, 0, xtr, xte, ytr, yte, []FileSum{{Path: t.Name, SHA256: t.SHA256}})
	if err != nil {
		return nil, err
	}
	r.Label = t.Name
	return r, nil
}

// splitStreamCSV is the second PCG seed word of SeededSplit.
const splitStreamCSV = 0x637376_73706c74 // "csv" "splt"

// MinSplitRows is the fewest training rows, and the fewest test rows, a
// split of a dataset of one's own may have (SeededSplit, ReadSplitFiles):
// a test metric averaged over fewer rows is noise, and a file that small is
// more likely truncated or the wrong file than a dataset. Seeded splits
// that train on a fraction f of n rows thus need n ≥ MinRows(f): 23 rows
// for f = 0.8, 10 for f = 0.5.
const MinSplitRows = 5

// seededTrainRows is the number of training rows of a seeded split.
func seededTrainRows(n int, trainFraction float64) int {
	return int(math.Round(trainFraction * float64(n)))
}

// MinRows returns the fewest rows n for which SeededSplit with
// trainFraction puts at least MinSplitRows rows on each side:
// round(f·n) ≥ MinSplitRows and n − round(f·n) ≥ MinSplitRows. It is 0 when
// trainFraction is not in (0, 1).
func MinRows(trainFraction float64) int {
	f := trainFraction
	if !(f > 0 && f < 1) {
		return 0
	}
	// Below (MinSplitRows − 1)/min(f, 1 − f) one side is surely short; the
	// search from there uses SeededSplit's own arithmetic.
	n := max(2*MinSplitRows, int((MinSplitRows-1)/min(f, 1-f)))
	for {
		if ntr := seededTrainRows(n, f); ntr >= MinSplitRows && n-ntr >= MinSplitRows {
			return n
		}
		n++
	}
}

// tooFew says why n rows are too few for seeded splits of trainFraction.
func tooFew(trainFraction float64) string {
	return fmt.Sprintf("a split needs at least %d training and %d test rows, which takes at least %d rows", MinSplitRows, MinSplitRows, MinRows(trainFraction))
}

// CheckSeededSplit returns a *ParseError naming the file when its data rows
// are fewer than SeededSplit with trainFraction needs (MinRows), so that a
// file too small for its splits is refused when it is read rather than
// when a split is drawn.
func (t *CSV) CheckSeededSplit(trainFraction float64) error {
	if !(trainFraction > 0 && trainFraction < 1) {
		return &ParseError{File: t.Name, Err: fmt.Errorf("train fraction %v is out of range (0, 1)", trainFraction)}
	}
	if n := t.Rows(); n < MinRows(trainFraction) {
		return &ParseError{File: t.Name, Err: fmt.Errorf("%d data rows are too few for splits that train on %v of them: %s", n, trainFraction, tooFew(trainFraction))}
	}
	return nil
}

// SeededSplit returns the rows of split s of n rows: the rows are permuted
// by a PCG stream seeded with (s, a fixed word) and the first
// round(trainFraction·n) rows of the permutation train, the others test,
// both in increasing row order. It is an error when either side would have
// fewer than MinSplitRows rows (n < MinRows(trainFraction)).
func SeededSplit(n int, trainFraction float64, s uint64) (train, test []int, err error) {
	if !(trainFraction > 0 && trainFraction < 1) {
		return nil, nil, fmt.Errorf("data: train fraction %v is out of range (0, 1)", trainFraction)
	}
	ntr := seededTrainRows(n, trainFraction)
	if ntr < MinSplitRows || n-ntr < MinSplitRows {
		return nil, nil, fmt.Errorf("data: %d rows are too few for a train fraction of %v: %s", n, trainFraction, tooFew(trainFraction))
	}
	perm := rand.New(rand.NewPCG(s, splitStreamCSV)).Perm(n)
	train, test = append([]int(nil), perm[:ntr]...), append([]int(nil), perm[ntr:]...)
	sort.Ints(train)
	sort.Ints(test)
	return train, test, nil
}

// maxSplitBytes bounds a split file of a table of n rows: each of at most
// n indices takes at most 20 digits and a separator, with room for
// comments and blank lines.
func maxSplitBytes(n int) int64 { return 1<<20 + 32*int64(n) }

// ReadSplitFiles reads split s of n rows in the PBP layout: the files
// index_train_<s>.txt and index_test_<s>.txt of dir hold 0-based row
// indices separated by white space (see ParseIndex). It returns the rows
// with the sha256 of both files. A file of fewer than MinSplitRows rows is
// a *ParseError naming it.
func ReadSplitFiles(dir string, s, n int) (train, test []int, sums []FileSum, err error) {
	read := func(kind string) ([]int, error) {
		path := filepath.Join(dir, fmt.Sprintf("index_%s_%d.txt", kind, s))
		f, err := openRegular(path, maxSplitBytes(n), 0)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		sums = append(sums, FileSum{Path: path, SHA256: hex.EncodeToString(sum[:])})
		rows, err := ParseIndex(bytes.NewReader(b), path, n, nil)
		if err == nil && len(rows) < MinSplitRows {
			err = &ParseError{File: path, Err: fmt.Errorf("%d %s rows: a split needs at least %d", len(rows), strings.Replace(kind, "train", "training", 1), MinSplitRows)}
		}
		return rows, err
	}
	if train, err = read("train"); err != nil {
		return nil, nil, nil, err
	}
	if test, err = read("test"); err != nil {
		return nil, nil, nil, err
	}
	return train, test, sums, nil
}
