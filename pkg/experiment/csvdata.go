package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/model"
)

// CSV model names of a [data.NAME] declaration.
const (
	CSVLogistic = "logistic"
	CSVBNN      = "bnn"
)

// CSVData declares a dataset of one's own in an experiment file:
//
//	[data.NAME]
//	file = "own.csv"          # relative to the experiment file; header row
//	target = "label"          # the response column
//	features = ["x1", "x2"]   # optional: every other column, in file order
//	model = "logistic"        # or "bnn"
//	positive = "yes"          # logistic: the target value of class +1
//	hidden = 50               # bnn: hidden units (50 when omitted)
//	label = "My data"         # optional: the name figures and reports print
//	split_count = 5           # either k seeded splits 0…k−1 …
//	train_fraction = 0.8      #   … each training on this share of the rows
//	split_dir = "splits"      # or split files index_{train,test}_<s>.txt (PBP layout)
//	max_bytes = 1_000_000_000 # optional: the file's size limit (data.DefaultMaxCSVBytes, 256 MiB)
//
// The file must be a regular file of at most max_bytes bytes, each line at
// most data.MaxCSVLine (1 MiB): a device, a FIFO or a larger file is an
// error of the load before anything is read.
//
// Every split needs data.MinSplitRows (5) training and test rows: a file
// of fewer rows than data.MinRows(train_fraction) (23 for 0.8) is an error
// of the load naming the file and that count, a split file of fewer rows
// fails the cells of its split naming the file.
//
// The cache key of a cell covers the CSV file's sha256, the split files'
// (with split_dir) and the declaration itself (columns, model, positive
// class, hidden units, split rule), but not the file names nor the label.
type CSVData struct {
	// File is the CSV file, relative to the experiment file.
	File string `toml:"file" json:"-"`
	// Target is the response column; Features the feature columns
	// (empty: every other column).
	Target   string   `toml:"target" json:"target"`
	Features []string `toml:"features" json:"features,omitempty"`
	// Model is CSVLogistic, CSVBNN or a model the program registered
	// (RegisterCSVModel); Positive the class +1 of a logistic model (or
	// of a registered one that takes classes), Hidden the hidden units of
	// a BNN (50 when zero).
	Model    string `toml:"model" json:"model"`
	Positive string `toml:"positive" json:"positive,omitempty"`
	Hidden   int    `toml:"hidden" json:"hidden,omitempty"`
	// Label is the name figures and reports print (the dataset's name
	// when empty).
	Label string `toml:"label" json:"-"`
	// SplitCount seeded splits train on TrainFraction of the rows each;
	// SplitDir, instead, holds PBP-layout split files.
	SplitCount    int     `toml:"split_count" json:"split_count,omitempty"`
	TrainFraction float64 `toml:"train_fraction" json:"train_fraction,omitempty"`
	SplitDir      string  `toml:"split_dir" json:"-"`
	// MaxBytes is the CSV file's size limit (data.DefaultMaxCSVBytes when
	// zero); it is not part of the cache key.
	MaxBytes int64 `toml:"max_bytes" json:"-"`
}

// Validate checks the declaration's keys and their combinations.
func (c CSVData) Validate() error {
	fe := func(key, format string, args ...any) error {
		return &harness.FieldError{Key: key, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case c.File == "":
		return fe("file", "required key is missing")
	case c.Target == "":
		return fe("target", "required key is missing")
	}
	switch c.Model {
	case CSVLogistic:
		if c.Positive == "" {
			return fe("positive", "a logistic model needs the target value of the positive class")
		}
		if c.Hidden != 0 {
			return fe("hidden", "hidden units belong to model = %q", CSVBNN)
		}
	case CSVBNN:
		if c.Positive != "" {
			return fe("positive", "a positive class belongs to model = %q", CSVLogistic)
		}
		if c.Hidden < 0 {
			return fe("hidden", "%d is out of range (≥ 1; 0 for 50)", c.Hidden)
		}
	case "":
		return fe("model", "required key is missing (%q or %q)", CSVLogistic, CSVBNN)
	default:
		// A model of one's own (RegisterCSVModel): checked against the
		// registry when the dataset is built.
	}
	switch {
	case c.SplitCount != 0 && c.SplitDir != "":
		return fe("split_dir", "give either split_count with train_fraction or split_dir, not both")
	case c.SplitCount == 0 && c.SplitDir == "":
		return fe("split_count", "required: split_count with train_fraction, or split_dir")
	case c.SplitCount < 0:
		return fe("split_count", "%d is out of range (≥ 1)", c.SplitCount)
	case c.SplitCount > 0 && !(c.TrainFraction > 0 && c.TrainFraction < 1):
		return fe("train_fraction", "%v is out of range (0, 1), required with split_count", c.TrainFraction)
	case c.SplitDir != "" && c.TrainFraction != 0:
		return fe("train_fraction", "split files fix the training rows: train_fraction belongs to split_count")
	case c.MaxBytes < 0:
		return fe("max_bytes", "%d is out of range (≥ 1; 0 for %d)", c.MaxBytes, data.DefaultMaxCSVBytes)
	}
	return nil
}

// csvDataset is a declared dataset: its parsed table and how to split it.
type csvDataset struct {
	name, dir string // dir: the experiment file's folder
	decl      CSVData
	own       *CSVModel // a registered model; nil for the built-in ones
	table     *data.CSV
	declSum   string
}

func (d *csvDataset) cols() data.Columns {
	return data.Columns{Target: d.decl.Target, Features: d.decl.Features}
}

func (d *csvDataset) rel(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, p)
}

// rows returns the training and test rows of split s and the sha256 of the
// split files read.
func (d *csvDataset) rows(s int) (train, test []int, sums []data.FileSum, err error) {
	if d.decl.SplitDir != "" {
		if s < 0 {
			return nil, nil, nil, fmt.Errorf("data.%s: split %d is negative", d.name, s)
		}
		return data.ReadSplitFiles(d.rel(d.decl.SplitDir), s, d.table.Rows())
	}
	if s < 0 || s >= d.decl.SplitCount {
		return nil, nil, nil, fmt.Errorf("data.%s: split %d is out of range: split_count = %d gives splits 0…%d", d.name, s, d.decl.SplitCount, d.decl.SplitCount-1)
	}
	train, test, err = data.SeededSplit(d.table.Rows(), d.decl.TrainFraction, uint64(s))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("data.%s: %w", d.name, err)
	}
	return train, test, nil, nil
}

// check builds the model's data once on all rows but the last, so that a
// bad cell, a missing column, a single class or a constant target is found
// when the experiment file is loaded.
func (d *csvDataset) check() error {
	if d.decl.SplitCount > 0 {
		// Too few rows for the splits (data.MinRows): refused here, not
		// per cell.
		if err := d.table.CheckSeededSplit(d.decl.TrainFraction); err != nil {
			return err
		}
	}
	n := d.table.Rows()
	if n < 2 {
		return fmt.Errorf("%s: %d data row: too few to split", d.table.Name, n)
	}
	all := make([]int, n-1)
	for i := range all {
		all[i] = i
	}
	var err error
	if d.classes() {
		_, err = d.table.Classification(d.cols(), d.decl.Positive, all, []int{n - 1})
	} else {
		_, err = d.table.Regression(d.cols(), all, []int{n - 1})
	}
	return err
}

// classes says the model takes two classes.
func (d *csvDataset) classes() bool {
	if d.own != nil {
		return d.own.Classes
	}
	return d.decl.Model == CSVLogistic
}

// loadOwn builds the problem of split s with the registered model.
func (d *csvDataset) loadOwn(ctx context.Context, s int, env *harness.Env, label string, train, test []int, files []data.FileSum) (*harness.Problem, error) {
	var xtr, xte *mat.Dense
	var ytr, yte []float64
	if d.own.Classes {
		c, err := d.table.Classification(d.cols(), d.decl.Positive, train, test)
		if err != nil {
			return nil, err
		}
		xtr, xte, ytr, yte = c.XTrain, c.XTest, c.YTrain, c.YTest
	} else {
		r, err := d.table.Regression(d.cols(), train, test)
		if err != nil {
			return nil, err
		}
		xtr, xte, ytr, yte = r.XTrain, r.XTest, r.YTrain, r.YTest
	}
	cv, err := carve(env, d.name, s, files, xtr, xte, ytr, yte)
	if err != nil {
		return nil, err
	}
	p, err := d.own.Build(ctx, CSVInput{
		Dataset: d.name, Label: label, Split: s,
		XTrain: cv.XTrain, YTrain: cv.YTrain, XTest: cv.XEval, YTest: cv.YEval,
		Threads: env.Threads, Key: cv.Key,
	})
	if err == nil && (p == nil || p.Target == nil) {
		err = fmt.Errorf("model %s built no target", d.decl.Model)
	}
	if err != nil {
		return nil, fmt.Errorf("data.%s: split %d: %w", d.name, s, err)
	}
	if p.Model == nil {
		p.Model = &Info{Name: d.name, Label: label, Key: cv.Key}
	}
	return p, nil
}

func (d *csvDataset) checksums(s int, _ *harness.Env) (map[string]string, error) {
	_, _, sums, err := d.rows(s)
	if err != nil {
		return nil, err
	}
	out := map[string]string{
		d.name + "/" + filepath.Base(d.decl.File): d.table.SHA256,
		d.name + "/declaration":                   d.declSum,
	}
	for _, f := range sums {
		out[d.name+"/"+filepath.Base(f.Path)] = f.SHA256
	}
	return out, nil
}

func (d *csvDataset) load(ctx context.Context, s int, env *harness.Env) (*harness.Problem, error) {
	train, test, sums, err := d.rows(s)
	if err != nil {
		return nil, err
	}
	files := append([]data.FileSum{{Path: d.name + "/" + filepath.Base(d.decl.File), SHA256: d.table.SHA256}, {Path: d.name + "/declaration", SHA256: d.declSum}}, sums...)
	label := d.decl.Label
	if label == "" {
		label = d.name
	}
	if d.own != nil {
		return d.loadOwn(ctx, s, env, label, train, test, files)
	}
	if d.decl.Model == CSVLogistic {
		c, err := d.table.Classification(d.cols(), d.decl.Positive, train, test)
		if err != nil {
			return nil, err
		}
		cv, err := carve(env, d.name, s, files, c.XTrain, c.XTest, c.YTrain, c.YTest)
		if err != nil {
			return nil, err
		}
		m := model.NewLogistic(cv.XTrain, cv.YTrain)
		m.Workers = env.Threads
		return &harness.Problem{Target: m, Model: NewLogisticData(
			Info{Name: d.name, Label: label, Key: cv.Key},
			m, cv.XEval, cv.YEval, cv.XDev, cv.YDev,
		)}, nil
	}
	r, err := d.table.Regression(d.cols(), train, test)
	if err != nil {
		return nil, err
	}
	cv, err := carve(env, d.name, s, files, r.XTrain, r.XTest, r.YTrain, r.YTest)
	if err != nil {
		return nil, err
	}
	m := model.NewBNN(cv.XTrain, cv.YTrain, d.decl.Hidden)
	m.Workers = env.Threads
	y := make([]float64, len(cv.YEval))
	for i, v := range cv.YEval {
		y[i] = r.Unscale(v)
	}
	return &harness.Problem{Target: m, Model: NewBNNData(
		Info{Name: d.name, Label: label, Key: cv.Key},
		m, cv.XTrain, cv.YTrain, cv.XEval, y, cv.XDev, unscaled(cv.YDev, r.Unscale), r.YMean, r.YStd,
	)}, nil
}

// buildCSVDataset reads and checks the declared CSV file of the experiment
// file expFile.
func buildCSVDataset(models *csvModels, expFile, name string, decl CSVData) (harness.Dataset, error) {
	if decl.Model == CSVBNN && decl.Hidden == 0 {
		decl.Hidden = 50 // the same key whether the default is written or not
	}
	d := &csvDataset{name: name, dir: filepath.Dir(expFile), decl: decl}
	if decl.Model != CSVLogistic && decl.Model != CSVBNN {
		m, err := models.checkOwn(decl)
		if err != nil {
			return harness.Dataset{}, err
		}
		d.own = &m
	}
	t, err := data.ReadCSVFile(d.rel(decl.File), decl.MaxBytes)
	if err != nil {
		var pe *data.ParseError
		if !errors.As(err, &pe) {
			err = fmt.Errorf("file = %q: %w", decl.File, err)
		}
		return harness.Dataset{}, err
	}
	d.table = t
	b, err := json.Marshal(decl)
	if err != nil {
		return harness.Dataset{}, err
	}
	if d.own != nil {
		b = append(b, " model version "+d.own.Version...)
	}
	sum := sha256.Sum256(append([]byte("csv-dataset v1 "), b...))
	d.declSum = hex.EncodeToString(sum[:])
	if err := d.check(); err != nil {
		return harness.Dataset{}, err
	}
	return harness.Dataset{Load: d.load, Checksums: d.checksums}, nil
}

func registerCSVData(r *harness.Registry) {
	models := csvModelsOf(r)
	harness.RegisterFileDataset(r, func(expFile, name string, decl CSVData) (harness.Dataset, error) {
		return buildCSVDataset(models, expFile, name, decl)
	})
}
