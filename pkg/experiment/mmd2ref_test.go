package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// refSummaryExperiment measures an SVGD run on the banana target against an
// HMC reference, with the metrics {METRICS}.
const refSummaryExperiment = `
id = "refsum"
datasets = ["banana"]
splits = [1]
[eval]
metrics = {METRICS}
[reference]
kind = "hmc"
particles = 200
settings = { chains = 2, warmup = 200, init = "prior" }
[methods.svgd]
kind = "svgd"
particles = [10]
settings = { iterations = 20, step_size = 0.05 }
`

// cellSummary runs refSummaryExperiment with the metrics on reg and
// returns the reference entry of the one cell's provenance summary (nil
// when it has none).
func cellSummary(t *testing.T, reg *harness.Registry, metrics string) map[string]any {
	t.Helper()
	src := strings.Replace(refSummaryExperiment, "{METRICS}", metrics, 1)
	e, err := harness.Load(reg, "refsum.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	r := harness.NewRunner(reg, harness.Options{Results: results, Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cells := harness.Plan([]*harness.Experiment{e})
	if sum, err := r.Run(context.Background(), cells); err != nil || sum.Done != 1 {
		t.Fatalf("%v %v", sum, err)
	}
	_, pp := r.Paths(cells[0])
	b, err := os.ReadFile(pp)
	if err != nil {
		t.Fatal(err)
	}
	var prov struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(b, &prov); err != nil {
		t.Fatal(err)
	}
	if prov.Summary["dataset_label"] != "banana" {
		t.Errorf("summary %v lacks the dataset label", prov.Summary)
	}
	ref, _ := prov.Summary["reference"].(map[string]any)
	return ref
}

// bananaModel is the banana target's model with a start of its own,
// standard normal draws: a model of its own needs only the methods it has
// beside Info's.
type bananaModel struct{ Info }

func (bananaModel) OwnStart() bool { return true }

func (bananaModel) Start(how string, n int, rng *rand.Rand) (*mat.Dense, error) {
	if how == "prior" {
		return nil, errors.New("banana has no prior draws")
	}
	X := mat.NewDense(n, 3, nil)
	for i := range X.RawMatrix().Data {
		X.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return X, nil
}

// bananaStart is refDataset with bananaModel.
func bananaStart() harness.Dataset {
	ds, _ := refDataset()
	load := ds.Load
	ds.Load = func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
		p, err := load(ctx, split, env)
		if err != nil {
			return nil, err
		}
		p.Model = &bananaModel{*p.Model.(*Info)}
		return p, nil
	}
	return ds
}

// TestMMD2ReferenceExplicit checks that a method's summary reports the
// reference its cell's mmd2 is measured against without any help from the
// mmd2 metric's factory: with the factory replaced by one that measures
// nothing, the summary's reference is the same (kind, draws, the median
// bandwidth of the draws, the HMC diagnostics); a cell that evaluates no
// mmd2 reports none, and the model of a problem is not written to.
func TestMMD2ReferenceExplicit(t *testing.T) {
	reg := func(mmd2 harness.MetricFactory) *harness.Registry {
		r := harness.NewRegistry()
		harness.RegisterMethod(r, KindHMC, "1", runHMC)
		harness.RegisterMethod(r, KindSVGD, "1", runSVGD)
		r.RegisterDataset("banana", bananaStart())
		r.RegisterMetric(KSD2, func(context.Context, *harness.Problem, *harness.Env) (harness.Metric, error) {
			return func(particle.Snapshot) float64 { return 0 }, nil
		})
		r.RegisterMetric(MMD2, mmd2)
		return r
	}
	real := cellSummary(t, reg(mmd2Factory), `["mmd2"]`)
	if real == nil {
		t.Fatal("no reference in the summary of a cell measuring mmd2")
	}
	if real["kind"] != KindHMC || real["draws"] != 200.0 || !(real["bandwidth"].(float64) > 0) || real["diagnostics"] == nil {
		t.Errorf("reference %v: want kind hmc, 200 draws, a positive bandwidth and diagnostics", real)
	}

	// A registry whose "mmd2" measures nothing and so never asks for the
	// reference.
	called := false
	blind := reg(func(context.Context, *harness.Problem, *harness.Env) (harness.Metric, error) {
		called = true
		return func(particle.Snapshot) float64 { return 0 }, nil
	})
	got := cellSummary(t, blind, `["mmd2"]`)
	if !called {
		t.Fatal("the stand-in mmd2 factory was not called")
	}
	// The two references were computed apart: all but their times agree.
	delete(got["diagnostics"].(map[string]any), "seconds")
	delete(real["diagnostics"].(map[string]any), "seconds")
	if !reflect.DeepEqual(got, real) {
		t.Errorf("reference without the mmd2 factory %v, want %v", got, real)
	}

	if ref := cellSummary(t, reg(mmd2Factory), `["ksd2"]`); ref != nil {
		t.Errorf("cell without mmd2 reports the reference %v", ref)
	}

	// The factory leaves the problem's model as it was.
	ds := bananaStart()
	p, err := ds.Load(context.Background(), 1, &harness.Env{})
	if err != nil {
		t.Fatal(err)
	}
	before := *p.Model.(*bananaModel)
	e, err := harness.Load(reg(mmd2Factory), "refsum.toml", []byte(strings.Replace(refSummaryExperiment, "{METRICS}", `["mmd2"]`, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	g := &harness.Problem{Target: gaussDatasetTarget(t), Model: &GaussData{Info: Info{Name: "g"}, EvalH: 1.5}}
	g.Model.(*GaussData).Gauss = g.Target.(*target.Gaussian)
	if _, err := mmd2Factory(context.Background(), g, &harness.Env{Cell: harness.Cells(e)[0]}); err != nil {
		t.Fatal(err)
	}
	if got := *g.Model.(*GaussData); got.Info != (Info{Name: "g"}) || got.EvalH != 1.5 {
		t.Errorf("mmd2 factory changed the model to %+v", got)
	}
	if after := *p.Model.(*bananaModel); after != before {
		t.Errorf("model %v changed to %v", before, after)
	}
}

// gaussDatasetTarget is the target of the gauss2d dataset.
func gaussDatasetTarget(t *testing.T) target.Target {
	p, err := gaussDataset(gaussSpecs[0]).Load(context.Background(), 0, &harness.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Target
}
