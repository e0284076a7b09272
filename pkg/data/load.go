package data

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// splitStream is the second PCG seed word of the covertype split, so that
// seed s of a split never shares a stream with seed s elsewhere.
const splitStream = 0x636f76747970 // "covtyp"

// TestFraction is the share of covertype rows held out for testing.
const TestFraction = 0.2

// Classification is a binary classification dataset split and scaled for
// Bayesian logistic regression.
type Classification struct {
	Name string
	// Label names the data in results and plots: "Covertype", or
	// "Covertype (20,000-row prefix)" when only the prefix was present.
	Label  string
	Subset bool
	Seed   uint64
	// Rows is the number of rows read (train + test).
	Rows int
	// XTrain and XTest hold the features min-max scaled with the training
	// statistics, with a last column of ones (the bias).
	XTrain, XTest *mat.Dense
	// YTrain and YTest hold the labels ±1.
	YTrain, YTest []float64
	// Min and Scale map a raw feature x to (x − Min)/Scale.
	Min, Scale []float64
	// Files lists every file read and its sha256.
	Files []FileSum
}

// Regression is a regression dataset split and standardised for the
// Bayesian neural network.
type Regression struct {
	Name  string
	Label string
	Split int
	// XTrain and XTest are standardised with the training statistics.
	XTrain, XTest *mat.Dense
	// YTrain and YTest are standardised with the training statistics;
	// Unscale maps predictions back to the original scale of y.
	YTrain, YTest []float64
	// XMean and XStd map a raw feature x to (x − XMean)/XStd; a constant
	// column has XStd 1.
	XMean, XStd []float64
	// YMean and YStd map a raw target y to (y − YMean)/YStd.
	YMean, YStd float64
	// Files lists every file read and its sha256.
	Files []FileSum
}

// Unscale maps a standardised target or prediction back to the original
// scale of y, where RMSE and test log-likelihood are reported.
func (r *Regression) Unscale(y float64) float64 { return y*r.YStd + r.YMean }

// LoadClassification loads the named classification dataset from
// dir/<name>, checks its checksum and returns the seeded 80/20 split.
// The full data is used when present, else the registered prefix, which
// sets Subset and Label.
func LoadClassification(dir, name string, seed uint64) (*Classification, error) {
	d, ok := Lookup(name)
	if !ok || d.Task != TaskClassification {
		return nil, fmt.Errorf("data: %q is not a registered classification dataset", name)
	}
	return d.LoadClassification(dir, seed)
}

// LoadRegression loads split number split of the named regression dataset
// from dir/<name>, checking every file read against its checksum.
func LoadRegression(dir, name string, split int) (*Regression, error) {
	d, ok := Lookup(name)
	if !ok || d.Task != TaskRegression {
		return nil, fmt.Errorf("data: %q is not a registered regression dataset", name)
	}
	return d.LoadRegression(dir, split)
}

// dataFile returns the data file to read from folder: the first present
// complete one, else the first present subset.
func (d *Dataset) dataFile(folder string) (File, bool) {
	for _, subset := range []bool{false, true} {
		for _, f := range d.Files {
			if f.Role != RoleData || f.Subset != subset {
				continue
			}
			if _, err := os.Stat(filepath.Join(folder, f.Name)); err == nil {
				return f, true
			}
		}
	}
	return File{}, false
}

// readTable parses data file f of folder, verifying its checksum in the
// same pass, and checks the row count.
func (d *Dataset) readTable(folder string, f File, sep Sep) ([]float64, FileSum, error) {
	path := filepath.Join(folder, f.Name)
	want, err := ExpectedSHA256(folder, f)
	if err != nil {
		return nil, FileSum{}, err
	}
	v, err := openVerified(path, want, f.Size)
	if err != nil {
		return nil, FileSum{}, err
	}
	var r io.Reader = v
	if f.Format == FormatCSVGzip {
		zr, err := gzip.NewReader(v)
		if err != nil {
			return nil, FileSum{}, v.finish(fmt.Errorf("%s: %w", path, err))
		}
		r = zr
	}
	vals, rows, _, perr := ParseTable(r, path, sep, d.Cols, nil)
	if perr == nil && f.Rows > 0 && rows != f.Rows {
		perr = &ParseError{File: path, Err: fmt.Errorf("%d rows, want %d (truncated file?)", rows, f.Rows)}
	}
	if err := v.finish(perr); err != nil {
		return nil, FileSum{}, err
	}
	return vals, FileSum{Path: d.Name + "/" + f.Name, SHA256: want}, nil
}

// LoadClassification loads d from dir/<d.Name>; see the package function.
func (d *Dataset) LoadClassification(dir string, seed uint64) (*Classification, error) {
	folder := filepath.Join(dir, d.Name)
	f, ok := d.dataFile(folder)
	if !ok {
		return nil, fmt.Errorf("data: %s: no data file in %s (run: repro data fetch %s)", d.Name, folder, d.Name)
	}
	sep := Comma
	if f.Format == FormatTable {
		sep = Whitespace
	}
	vals, sum, err := d.readTable(folder, f, sep)
	if err != nil {
		return nil, err
	}
	cols := d.Cols
	p := cols - 1 // features; the label column becomes the bias column
	n := len(vals) / cols
	y := make([]float64, n)
	for i := range n {
		row := vals[i*cols : (i+1)*cols]
		lab := row[p]
		if lab != math.Trunc(lab) || lab < 1 {
			return nil, fmt.Errorf("%s: row %d: class label %v is not a positive integer", filepath.Join(folder, f.Name), i+1, lab)
		}
		y[i] = 1
		if int(lab) == d.NegativeClass {
			y[i] = -1
		}
		row[p] = 1
	}

	// Seeded permutation: the first ⌈0.2·n⌉ rows of it are the test set
	// (the order of scikit-learn's train_test_split).
	rng := rand.New(rand.NewPCG(seed, splitStream))
	perm := rng.Perm(n)
	permuteRows(vals, cols, perm)
	permuteFloats(y, perm)
	nTest := int(math.Ceil(TestFraction * float64(n)))
	if nTest < 1 || nTest >= n {
		return nil, fmt.Errorf("%s: %d rows are too few for an 80/20 split", filepath.Join(folder, f.Name), n)
	}
	test := mat.NewDense(nTest, cols, vals[:nTest*cols])
	train := mat.NewDense(n-nTest, cols, vals[nTest*cols:])

	lo, scale := make([]float64, p), make([]float64, p)
	minMax(train, p, lo, scale)
	for j := range p {
		if !finite(scale[j]) {
			return nil, fmt.Errorf("%s: feature %d: range too large to scale (%v)", filepath.Join(folder, f.Name), j, scale[j])
		}
	}
	for _, m := range []*mat.Dense{train, test} {
		raw := m.RawMatrix()
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+p]
			for j := range row {
				row[j] = (row[j] - lo[j]) / scale[j]
			}
		}
	}
	c := &Classification{
		Name: d.Name, Label: label(d.Name), Subset: f.Subset, Seed: seed, Rows: n,
		XTrain: train, XTest: test, YTrain: y[nTest:], YTest: y[:nTest],
		Min: lo, Scale: scale, Files: []FileSum{sum},
	}
	if f.Subset {
		c.Label = fmt.Sprintf("%s (%s-row prefix)", label(d.Name), thousands(f.Rows))
	}
	return c, nil
}

// label is the display name of a dataset.
func label(name string) string {
	switch name {
	case "covertype":
		return "Covertype"
	case "year-prediction-MSD":
		return "Year"
	}
	return name
}

// thousands formats n with comma separators: 20000 → "20,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// minMax sets lo and scale to the column minimum and range of the first p
// columns of m; a constant column gets scale 1.
func minMax(m *mat.Dense, p int, lo, scale []float64) {
	raw := m.RawMatrix()
	hi := make([]float64, p)
	for j := range p {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+p]
		for j, x := range row {
			lo[j] = min(lo[j], x)
			hi[j] = max(hi[j], x)
		}
	}
	for j := range p {
		scale[j] = hi[j] - lo[j]
		if !(scale[j] > 0) {
			scale[j] = 1
		}
	}
}

// permuteRows reorders the rows of the row-major n×cols array a so that new
// row i is old row perm[i], in place by following the cycles of perm.
func permuteRows(a []float64, cols int, perm []int) {
	done := make([]bool, len(perm))
	tmp := make([]float64, cols)
	for start := range perm {
		if done[start] {
			continue
		}
		copy(tmp, a[start*cols:(start+1)*cols])
		j := start
		for {
			done[j] = true
			k := perm[j]
			if k == start {
				copy(a[j*cols:(j+1)*cols], tmp)
				break
			}
			copy(a[j*cols:(j+1)*cols], a[k*cols:(k+1)*cols])
			j = k
		}
	}
}

func permuteFloats(a []float64, perm []int) {
	b := make([]float64, len(a))
	for i, k := range perm {
		b[i] = a[k]
	}
	copy(a, b)
}

// LoadRegression loads split number split of d from dir/<d.Name>; see the
// package function.
func (d *Dataset) LoadRegression(dir string, split int) (*Regression, error) {
	folder := filepath.Join(dir, d.Name)
	if d.Name == "year-prediction-MSD" {
		return d.loadYear(folder, split)
	}
	var sums []FileSum
	readIndex := func(name string, n int) ([]int, error) {
		f, ok := d.File(name)
		if !ok {
			return nil, fmt.Errorf("data: %s has no file %s", d.Name, name)
		}
		path := filepath.Join(folder, name)
		v, err := openVerified(path, f.SHA256, f.Size)
		if err != nil {
			return nil, err
		}
		idx, perr := ParseIndex(v, path, n, nil)
		if err := v.finish(perr); err != nil {
			return nil, err
		}
		sums = append(sums, FileSum{Path: d.Name + "/" + name, SHA256: f.SHA256})
		return idx, nil
	}

	nsplits, err := readIndex("n_splits.txt", math.MaxInt)
	if err != nil {
		return nil, err
	}
	if len(nsplits) != 1 {
		return nil, fmt.Errorf("%s: %d values, want exactly 1", filepath.Join(folder, "n_splits.txt"), len(nsplits))
	}
	if split < 0 || split >= nsplits[0] {
		return nil, fmt.Errorf("data: %s: split %d out of range [0, %d)", d.Name, split, nsplits[0])
	}
	feat, err := readIndex("index_features.txt", d.Cols)
	if err != nil {
		return nil, err
	}
	tgt, err := readIndex("index_target.txt", d.Cols)
	if err != nil {
		return nil, err
	}
	if len(tgt) != 1 {
		return nil, fmt.Errorf("%s: %d target columns, want exactly 1", filepath.Join(folder, "index_target.txt"), len(tgt))
	}
	for _, j := range feat {
		if j == tgt[0] {
			return nil, fmt.Errorf("%s: target column %d is also a feature", filepath.Join(folder, "index_features.txt"), j)
		}
	}
	df, ok := d.File("data.txt")
	if !ok {
		return nil, fmt.Errorf("data: %s has no file data.txt", d.Name)
	}
	vals, sum, err := d.readTable(folder, df, Whitespace)
	if err != nil {
		return nil, err
	}
	sums = append(sums, sum)
	n := len(vals) / d.Cols
	trainName, testName := fmt.Sprintf("index_train_%d.txt", split), fmt.Sprintf("index_test_%d.txt", split)
	train, err := readIndex(trainName, n)
	if err != nil {
		return nil, err
	}
	test, err := readIndex(testName, n)
	if err != nil {
		return nil, err
	}
	inTrain := make(map[int]int, len(train))
	for i, r := range train {
		inTrain[r] = i + 1
	}
	for i, r := range test {
		if k, ok := inTrain[r]; ok {
			return nil, fmt.Errorf("%s:%d: row %d is also in %s (line %d)", filepath.Join(folder, testName), i+1, r, trainName, k)
		}
	}

	gather := func(rows []int) (*mat.Dense, []float64) {
		x := mat.NewDense(len(rows), len(feat), nil)
		y := make([]float64, len(rows))
		for i, r := range rows {
			src := vals[r*d.Cols : (r+1)*d.Cols]
			for j, c := range feat {
				x.Set(i, j, src[c])
			}
			y[i] = src[tgt[0]]
		}
		return x, y
	}
	xtr, ytr := gather(train)
	xte, yte := gather(test)
	return standardise(d, split, xtr, xte, ytr, yte, sums)
}

// loadYear reads YearPredictionMSD.txt: target in column 0, the producer's
// fixed split (first YearTrain rows train, the rest test).
func (d *Dataset) loadYear(folder string, split int) (*Regression, error) {
	if split != 0 {
		return nil, fmt.Errorf("data: %s has one fixed split (0), not %d", d.Name, split)
	}
	f, ok := d.dataFile(folder)
	if !ok {
		return nil, fmt.Errorf("data: %s: no data file in %s (run: repro data fetch --trust-on-first-use %s)", d.Name, folder, d.Name)
	}
	vals, sum, err := d.readTable(folder, f, Comma)
	if err != nil {
		return nil, err
	}
	cols := d.Cols
	n := len(vals) / cols
	nTrain := d.NTrain
	if nTrain <= 0 || nTrain >= n {
		return nil, fmt.Errorf("%s: %d rows, too few for the fixed split at row %d", filepath.Join(folder, f.Name), n, nTrain)
	}
	// Drop column 0 in place: row i moves to [i·p, (i+1)·p), never past its source.
	p := cols - 1
	y := make([]float64, n)
	for i := range n {
		y[i] = vals[i*cols]
		copy(vals[i*p:(i+1)*p], vals[i*cols+1:(i+1)*cols])
	}
	vals = vals[:n*p]
	xtr := mat.NewDense(nTrain, p, vals[:nTrain*p])
	xte := mat.NewDense(n-nTrain, p, vals[nTrain*p:])
	return standardise(d, 0, xtr, xte, y[:nTrain], y[nTrain:], []FileSum{sum})
}

// standardise scales X and y of both parts with the training mean and
// population standard deviation; a constant column gets scale 1.
func standardise(d *Dataset, split int, xtr, xte *mat.Dense, ytr, yte []float64, sums []FileSum) (*Regression, error) {
	n, p := xtr.Dims()
	mean, sd := make([]float64, p), make([]float64, p)
	col := make([]float64, n)
	for j := range p {
		mat.Col(col, j, xtr)
		mean[j], sd[j] = meanStd(col)
		if !finite(mean[j]) || !finite(sd[j]) {
			return nil, fmt.Errorf("data: %s: feature %d: values too large to standardise (mean %v, sd %v)", d.Name, j, mean[j], sd[j])
		}
	}
	for _, m := range []*mat.Dense{xtr, xte} {
		raw := m.RawMatrix()
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+p]
			for j := range row {
				row[j] = (row[j] - mean[j]) / sd[j]
			}
		}
	}
	ym, ys := meanStd(ytr)
	if !finite(ym) || !finite(ys) {
		return nil, fmt.Errorf("data: %s: target values too large to standardise (mean %v, sd %v)", d.Name, ym, ys)
	}
	for _, y := range [][]float64{ytr, yte} {
		for i := range y {
			y[i] = (y[i] - ym) / ys
		}
	}
	return &Regression{
		Name: d.Name, Label: label(d.Name), Split: split,
		XTrain: xtr, XTest: xte, YTrain: ytr, YTest: yte,
		XMean: mean, XStd: sd, YMean: ym, YStd: ys, Files: sums,
	}, nil
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// meanStd returns the mean and population standard deviation of x. A
// constant column returns its value and 1 exactly: computing its deviation
// would give rounding noise of order 1e-16, which scaling would blow up.
func meanStd(x []float64) (mean, sd float64) {
	constant := true
	for _, v := range x {
		if v != x[0] {
			constant = false
			break
		}
	}
	if constant {
		return x[0], 1
	}
	// Corrected two-pass algorithm (Chan, Golub & LeVeque 1983): the second
	// pass removes the rounding error of the first from the mean, which
	// matters for columns like naval's whose spread is 1e-2 of their level.
	n := float64(len(x))
	var s float64
	for _, v := range x {
		s += v
	}
	mean = s / n
	var c, ss float64
	for _, v := range x {
		c += v - mean
		ss += (v - mean) * (v - mean)
	}
	mean += c / n
	ss -= c * c / n
	return mean, math.Sqrt(ss / n)
}
