package experiment

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// RowsDevelopmentTest keeps the test rows for evaluation and carves the
// development rows, which the method never sees.
func TestCarveDevelopmentTest(t *testing.T) {
	const n, d = 50, 2
	xtr := mat.NewDense(n, d, nil)
	ytr := make([]float64, n)
	for i := range ytr {
		ytr[i] = float64(i)
		xtr.SetRow(i, []float64{float64(i), float64(i)})
	}
	xte := mat.NewDense(3, d, []float64{-1, -1, -2, -2, -3, -3})
	yte := []float64{-1, -2, -3}
	files := []data.FileSum{{Path: "toy/x", SHA256: "abc"}}
	c, err := carve(envWith(harness.Rows{Kind: harness.RowsDevelopmentTest}), "toy", 0, files, xtr, xte, ytr, yte)
	if err != nil {
		t.Fatal(err)
	}
	m := DevelopmentRows(n)
	if c.XEval != xte || len(c.YEval) != 3 {
		t.Errorf("evaluation rows are not the test rows")
	}
	if len(c.YDev) != m || len(c.YTrain) != n-m {
		t.Fatalf("%d development and %d training rows, want %d and %d", len(c.YDev), len(c.YTrain), m, n-m)
	}
	for i, y := range c.YDev {
		if y != float64(n-m+i) || c.XDev.At(i, 0) != y {
			t.Errorf("development row %d is training row %v, want %d", i, y, n-m+i)
		}
	}
	for i, y := range c.YTrain {
		if y != float64(i) {
			t.Errorf("method row %d is training row %v", i, y)
		}
	}
	dev, _ := carve(envWith(harness.Rows{Kind: harness.RowsDevelopment}), "toy", 0, files, xtr, xte, ytr, yte)
	if c.Key == dev.Key {
		t.Error("development+test shares the data key of development")
	}
}

// A run with eval.rows = "development+test" records the test metric and its
// dev_ twin at the same snapshots, and budget.grad_evals stops the method
// at the first snapshot that charged that many gradient evaluations.
func TestDevelopmentTestRun(t *testing.T) {
	dir := t.TempDir()
	const budget = 200 // SVGD: 5 particles × batch 4 = 20 per iteration
	src := strings.NewReplacer(`metrics = ["accuracy"]`,
		"metrics = [\"accuracy\", \"dev_accuracy\", \"dev_test_ll\"]\nrows = \"development+test\"\nevery_grad_evals = 40",
		"[eval]", "[budget]\ngrad_evals = 200\n\n[eval]").Replace(csvExp)
	path := writeExp(t, dir, src, ownCSV(80))
	e, err := harness.LoadFile(testRegistry, path, "")
	if err != nil {
		t.Fatal(err)
	}
	c := harness.Cells(e)[0]
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
	p, err := ds.Load(context.Background(), c.Split, &harness.Env{Cell: c, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	dd := p.Model.(Model)
	te, dv := dd.Predictive(false).Rows(), dd.Predictive(true).Rows()
	if te != 20 || dv != DevelopmentRows(60) || target.NData(p.Target) != 60-dv {
		t.Errorf("%d test, %d development and %d method rows", te, dv, target.NData(p.Target))
	}
	res := filepath.Join(dir, "results")
	r := harness.NewRunner(testRegistry, harness.Options{Results: res, Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if sum, err := r.Run(context.Background(), harness.Plan([]*harness.Experiment{e})); err != nil || sum.Done != 2 {
		t.Fatalf("%v %v", sum, err)
	}
	acc, dacc, dll := metricValues(t, res, "accuracy"), metricValues(t, res, "dev_accuracy"), metricValues(t, res, "dev_test_ll")
	if len(acc) != 2 {
		t.Fatalf("%d cells", len(acc))
	}
	for id := range acc {
		if len(acc[id]) < 3 || len(dacc[id]) != len(acc[id]) || len(dll[id]) != len(acc[id]) {
			t.Errorf("%s: %d test, %d dev accuracy, %d dev test_ll values", id, len(acc[id]), len(dacc[id]), len(dll[id]))
		}
	}
	seen := 0
	filepath.WalkDir(res, func(path string, de os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, _ := os.ReadFile(path)
		var pr harness.Provenance
		if json.Unmarshal(b, &pr) != nil || pr.Cell == "" {
			return nil
		}
		seen++
		if pr.GradEvals < budget || pr.GradEvals >= budget+20 {
			t.Errorf("%s: stopped at %d gradient evaluations, want the first snapshot ≥ %d", pr.Cell, pr.GradEvals, budget)
		}
		return nil
	})
	if seen != 2 {
		t.Errorf("%d provenance files, want 2", seen)
	}
}
