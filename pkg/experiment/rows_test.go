package experiment

import (
	"context"
	"encoding/csv"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func TestValidationRows(t *testing.T) {
	v := harness.Rows{Kind: harness.RowsValidation, Fraction: 0.2, Seed: 3}
	idx, err := ValidationRows(v, "yacht", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 20 || !slices.IsSorted(idx) || idx[0] < 0 || idx[19] >= 100 {
		t.Fatalf("validation rows %v: want 20 sorted indices in [0, 100)", idx)
	}
	for i := 1; i < len(idx); i++ {
		if idx[i] == idx[i-1] {
			t.Fatalf("index %d repeated", idx[i])
		}
	}
	again, _ := ValidationRows(v, "yacht", 1, 100)
	if !slices.Equal(idx, again) {
		t.Error("the same seed, dataset and split gave other rows")
	}
	for name, w := range map[string]struct {
		r     harness.Rows
		ds    string
		split int
	}{
		"seed":    {harness.Rows{Kind: harness.RowsValidation, Fraction: 0.2, Seed: 4}, "yacht", 1},
		"dataset": {v, "boston", 1},
		"split":   {v, "yacht", 2},
	} {
		o, _ := ValidationRows(w.r, w.ds, w.split, 100)
		if slices.Equal(idx, o) {
			t.Errorf("another %s gave the same rows", name)
		}
	}
	for _, tc := range []struct{ n, m int }{{308, 31}, {15, 2}, {25, 2}, {35, 4}, {20000, 500}, {4, 0}} {
		if got := DevelopmentRows(tc.n); got != tc.m {
			t.Errorf("DevelopmentRows(%d) = %d, want %d", tc.n, got, tc.m)
		}
	}
	dev, err := ValidationRows(harness.Rows{Kind: harness.RowsDevelopment}, "yacht", 0, 308)
	if err != nil || len(dev) != 31 || dev[0] != 277 || dev[30] != 307 {
		t.Errorf("development rows of 308: %v %v", dev, err)
	}
	if _, err := ValidationRows(harness.Rows{Kind: harness.RowsDevelopment}, "tiny", 0, 4); err == nil {
		t.Error("4 rows gave development rows")
	}
	if idx, err := ValidationRows(harness.Rows{}, "yacht", 0, 100); idx != nil || err != nil {
		t.Errorf("the published split carved %v %v", idx, err)
	}
}

// envWith is the environment of a cell of an experiment whose eval table
// selects rows.
func envWith(rows harness.Rows) *harness.Env {
	e := &harness.Experiment{Eval: harness.Schedule{Rows: rows.Kind, ValidationFraction: rows.Fraction, ValidationSeed: rows.Seed}}
	return &harness.Env{Cell: &harness.Cell{Experiment: e}}
}

// carve holds out exactly the rows ValidationRows names, gives the method
// the others in their order, drops the test rows and changes the data key.
func TestCarve(t *testing.T) {
	const n, d = 50, 3
	xtr := mat.NewDense(n, d, nil)
	ytr := make([]float64, n)
	for i := 0; i < n; i++ {
		ytr[i] = float64(i)
		for j := 0; j < d; j++ {
			xtr.Set(i, j, float64(i))
		}
	}
	xte := mat.NewDense(10, d, nil)
	yte := make([]float64, 10)
	for i := range yte {
		yte[i] = -1
		xte.SetRow(i, []float64{-1, -1, -1})
	}
	files := []data.FileSum{{Path: "toy/x", SHA256: "abc"}}
	pub, err := carve(envWith(harness.Rows{}), "toy", 0, files, xtr, xte, ytr, yte)
	if err != nil || pub.XTrain != xtr || pub.XEval != xte || pub.Key != filesKey(files) {
		t.Fatalf("the published split was changed: %v", err)
	}
	for _, rows := range []harness.Rows{
		{Kind: harness.RowsValidation, Fraction: 0.2, Seed: 9},
		{Kind: harness.RowsDevelopment},
	} {
		c, err := carve(envWith(rows), "toy", 0, files, xtr, xte, ytr, yte)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ValidationRows(rows, "toy", 0, n)
		seen := map[float64]bool{}
		for i, y := range c.YEval {
			if y != float64(want[i]) || c.XEval.At(i, 2) != y {
				t.Errorf("%v: evaluation row %d is training row %v, want %d", rows, i, y, want[i])
			}
			seen[y] = true
		}
		prev := -1.0
		for i, y := range c.YTrain {
			if seen[y] || y < 0 || y <= prev || c.XTrain.At(i, 0) != y {
				t.Errorf("%v: held-in row %d (training row %v) is held out, a test row or out of order", rows, i, y)
			}
			prev = y
		}
		if len(c.YTrain)+len(c.YEval) != n {
			t.Errorf("%v: %d + %d rows, want %d", rows, len(c.YTrain), len(c.YEval), n)
		}
		if c.Key == pub.Key {
			t.Errorf("%v: the data key (and so the MAP's) is the published split's", rows)
		}
	}
}

// A tuning experiment on a CSV dataset carves its rows: the method sees
// four fifths of the 30 training rows, the metrics the other fifth, and the
// runs give the same numbers for -j 1 and -j 2.
func TestCarveRowsRun(t *testing.T) {
	dir := t.TempDir()
	src := strings.NewReplacer("seed = 1", "role = \"tuning\"\nseed = 1", `metrics = ["accuracy"]`, "metrics = [\"accuracy\"]\nrows = \"validation\"").Replace(csvExp)
	path := writeExp(t, dir, src, ownCSV(40))
	e, err := harness.LoadFile(testRegistry, path, "")
	if err != nil {
		t.Fatal(err)
	}
	var decl CSVData
	if _, err := toml.Decode(`file = "own.csv"
target = "label"
features = ["x1", "x2"]
model = "logistic"
positive = "yes"
split_count = 3
train_fraction = 0.75`, &decl); err != nil {
		t.Fatal(err)
	}
	ds, err := buildCSVDataset(csvModelsOf(harness.NewRegistry()), path, "mine", decl)
	if err != nil {
		t.Fatal(err)
	}
	c := harness.Cells(e)[0]
	p, err := ds.Load(context.Background(), c.Split, &harness.Env{Cell: c, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Model.(Model).Predictive(false).Rows(); r != 6 || target.NData(p.Target) != 24 {
		t.Errorf("%d evaluation rows and %d for the method, want 6 and 24", r, target.NData(p.Target))
	}
	var got [2]map[string][]float64
	for j := 1; j <= 2; j++ {
		res := filepath.Join(dir, "results", string(rune('0'+j)))
		r := harness.NewRunner(testRegistry, harness.Options{Results: res, Jobs: j, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if sum, err := r.Run(context.Background(), harness.Plan([]*harness.Experiment{e})); err != nil || sum.Done != 2 {
			t.Fatalf("-j %d: %v %v", j, sum, err)
		}
		got[j-1] = metricValues(t, res, "accuracy")
	}
	if len(got[0]) != 2 {
		t.Fatalf("%d cells with accuracy, want 2", len(got[0]))
	}
	for id, v := range got[0] {
		if len(v) == 0 || !slices.Equal(v, got[1][id]) {
			t.Errorf("%s: -j 1 gave %v, -j 2 %v", id, v, got[1][id])
		}
	}
}

// metricValues reads the values of metric from every cell CSV under dir.
func metricValues(t *testing.T, dir, metric string) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	err := filepath.WalkDir(dir, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".csv") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return err
		}
		for _, r := range recs[1:] {
			if r[9] == metric {
				v, err := strconv.ParseFloat(r[10], 64)
				if err != nil {
					return err
				}
				out[r[1]] = append(out[r[1]], v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
