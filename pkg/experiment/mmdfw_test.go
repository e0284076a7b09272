package experiment

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/setting"
)

// TestMMDFWScaleValidation checks that the scale key accepts its two names
// and rejects others by name.
func TestMMDFWScaleValidation(t *testing.T) {
	for _, tc := range []struct {
		settings string
		ok       bool
	}{
		{`{ scale = "laplace", laplace_batch = 1000 }`, true},
		{`{ scale = "bandwidth" }`, true},
		{`{ scale = "laplas" }`, false},
		{`{ laplace_batch = -1 }`, false},
		{`{ start = "trained", train_steps = 300, train_step = 0.01 }`, true},
		{`{ scale = "bandwidth", start = "trained" }`, false},
		{`{ start = "model", train_steps = 300 }`, false},
		{`{ train_patience = -1, start = "trained" }`, false},
		{`{ map_newton_tol = -1 }`, false},
	} {
		src := "id = \"v\"\ndatasets = [\"gauss2d\"]\nsplits = [1]\n[eval]\nmetrics = [\"mmd2\"]\n[methods.m]\nkind = \"mmdfw\"\nsettings = " + tc.settings + "\n"
		_, err := harness.Load(testRegistry, "v.toml", []byte(src), "")
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.settings, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), strings.Fields(tc.settings)[1])) {
			t.Errorf("%s: error %v, want one naming the key", tc.settings, err)
		}
	}
}

// TestMMDFWLaplaceCovertype runs the Covertype setting of fig1a/fig1b on
// the staged prefix: the Laplace fit's exact Hessian is charged and
// reported as ⌈N·d/2⌉ per-datapoint gradient evaluations, the bandwidth is the posterior's scale (the median distance
// of Laplace draws, 8.2 on split 1, against 9.6 for the HMC reference's
// draws and 1.9 for the prior heuristic; the test asks for 5 to 15), and
// the predictive accuracy is that of a fitted model.
func TestMMDFWLaplaceCovertype(t *testing.T) {
	dir := sharedData(t)
	res := runExp(t, dir, `
id = "e2e"
datasets = ["covertype"]
splits = [1]
[eval]
metrics = ["accuracy"]
every = 5
[methods.mmdfw]
kind = "mmdfw"
particles = [5]
settings = { start = "map", lmo_steps = 20, batch = 100, scale = "laplace", noise = 0.5, weights = "equal" }
`)
	c, err := data.LoadClassification(dir, "covertype", 1)
	if err != nil {
		t.Fatal(err)
	}
	n, p := c.XTrain.Dims()
	r := res["mmdfw/covertype"]
	if a := r.last[Accuracy]; !(a > 0.6 && a <= 1) {
		t.Errorf("accuracy %v, want above 0.6", a)
	}
	m := summaryOf(t, r)["method"].(map[string]any)
	if got, want := m["laplace_grad_evals"].(float64), float64(laplace.HessianGradEvals(n, p+1)); got != want {
		t.Errorf("laplace_grad_evals %v, want N·d/2 = %v", got, want)
	}
	if h := m["bandwidth"].(float64); !(h > 5 && h < 15) {
		t.Errorf("bandwidth %v, want the posterior's scale (8.2 measured; reference draws 9.6)", h)
	}
}

// TestMMDFWTrainedYacht runs the trained start on yacht's split 0: the
// training is charged and reported, early-stopped on its own carved rows,
// and the test RMSE of the weighted particles ends below the constant
// predictor's (the sd of the test responses, 15.1 on this split) by far
// and does not rise by more than 5 % from the first particle's.
func TestMMDFWTrainedYacht(t *testing.T) {
	dir := sharedData(t)
	res := runExp(t, dir, `
id = "e2e"
datasets = ["yacht"]
splits = [0]
[eval]
metrics = ["rmse"]
every = 1
[methods.mmdfw]
kind = "mmdfw"
particles = [10]
settings = { start = "trained", weights = "stein", batch = 100, lmo_steps = 50 }
`)
	r := res["mmdfw/yacht"]
	m := summaryOf(t, r)["method"].(map[string]any)
	if g := m["train_grad_evals"].(float64); !(g > 0) {
		t.Errorf("train_grad_evals %v, want the training charged", g)
	}
	if m["start"] != "trained" {
		t.Errorf("start %v", m["start"])
	}
	c := r.series[RMSE]
	if len(c) != 10 {
		t.Fatalf("%d rmse values, want 10", len(c))
	}
	t.Logf("test RMSE %v; training %v steps (best %v), validation RMSE %v", c, m["train_steps"], m["train_best_step"], m["train_validation_rmse"])
	if c[len(c)-1] > 5 || c[len(c)-1] > 1.05*c[0] {
		t.Errorf("test RMSE %v … %v: want below 5 (constant predictor about 15) and not rising", c[0], c[len(c)-1])
	}
}

// The pool sampler settings are checked: a known sampler, pilot settings
// only for HMC and valid, and either only where a pool is drawn.
func TestMMDFWConfigPoolSampler(t *testing.T) {
	for _, c := range []struct {
		cfg  MMDFWConfig
		want string // "" for valid
	}{
		{MMDFWConfig{PoolSampler: "hmc", PoolHMC: &hmc.Settings{Warmup: 500}, Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}}}, ""},
		{MMDFWConfig{PoolSampler: "sgld", Settings: mmdfw.Settings{KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool}}}, ""},
		{MMDFWConfig{PoolSampler: "nuts", Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}}}, "pool_sampler"},
		{MMDFWConfig{PoolHMC: &hmc.Settings{Warmup: 500}, Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}}}, "pool_hmc"},
		{MMDFWConfig{PoolSampler: "hmc", PoolHMC: &hmc.Settings{Warmup: -7}, Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}}}, "pool_hmc"},
		{MMDFWConfig{PoolSampler: "hmc", Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}}}, "pool_sampler"},
	} {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v, want valid", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("pool_sampler %q pool_hmc %+v: error %v, want one naming %s", c.cfg.PoolSampler, c.cfg.PoolHMC, err, c.want)
		}
	}
}

// scale = "given" takes the scales of a trained start, the only Scales
// the wiring gives the package: it is refused without one.
func TestMMDFWConfigScaleGiven(t *testing.T) {
	for _, start := range []string{"", "map", "prior"} {
		cfg := MMDFWConfig{Start: start, Settings: mmdfw.Settings{Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleGiven}}}
		if e, ok := setting.As(cfg.Validate()); !ok || e.Field != "scale" {
			t.Errorf("start %q, scale given: error %v, want a setting.Error on scale", start, cfg.Validate())
		}
	}
	for _, sc := range []mmdfw.Scale{mmdfw.ScaleAuto, mmdfw.ScaleGiven} {
		if err := (MMDFWConfig{Start: "trained", Settings: mmdfw.Settings{Candidates: mmdfw.Candidates{Scale: sc}}}).Validate(); err != nil {
			t.Errorf("start trained, scale %v: %v", sc, err)
		}
	}
}

// The weight solver: a file that names none runs the package's default,
// the pairwise solver (the same series as weight_solver = "pairwise", its
// solves recorded in the summary); "fista" runs the FISTA solver, which
// records none; the "mmd" rule takes the exact embedding on a Gaussian
// target. Each solver's own settings are refused with the other.
func TestMMDFWWeightSolver(t *testing.T) {
	file := func(stein string) string {
		return `
id = "ws"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2_exact"]
every = 1
[methods.stein]
kind = "mmdfw"
particles = [25]
settings = { weights = "stein", lmo_steps = 20, stop = "fixed"` + stein + ` }
[methods.mmd]
kind = "mmdfw"
particles = [25]
settings = { weights = "mmd", lmo_steps = 20, stop = "fixed", weight_solver = "pairwise" }
`
	}
	silent := runExp(t, "", file(""))
	fista := runExp(t, "", file(`, weight_solver = "fista"`))
	pairwise := runExp(t, "", file(`, weight_solver = "pairwise"`))
	a, b := silent["stein/gauss2d"].series[MMD2Exact], pairwise["stein/gauss2d"].series[MMD2Exact]
	if len(a) != 25 || len(a) != len(b) {
		t.Fatalf("%d and %d values", len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("step %d: silent %v, pairwise %v", i+1, a[i], b[i])
		}
	}
	f := fista["stein/gauss2d"].series[MMD2Exact]
	if len(f) != len(a) || slices.Equal(f, a) {
		t.Errorf("fista series %v, the same as the pairwise one", f)
	}
	if m := summaryOf(t, fista["stein/gauss2d"])["method"].(map[string]any); m["weight_solves"] != nil {
		t.Errorf("the FISTA run records pairwise solves: %v", m)
	}
	for _, r := range []result{silent["stein/gauss2d"], silent["mmd/gauss2d"]} {
		m := summaryOf(t, r)["method"].(map[string]any)
		if m["weight_solves"] != 24.0 || m["weight_not_converged"] != 0.0 {
			t.Errorf("summary %v", m)
		}
		c := r.series[MMD2Exact]
		if !(c[len(c)-1] < c[0]/10) {
			t.Errorf("exact MMD² %v … %v", c[0], c[len(c)-1])
		}
	}
	for _, c := range []struct {
		cfg  MMDFWConfig
		want string
	}{
		{MMDFWConfig{Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, WeightTol: 1e-4}}}, ""},
		{MMDFWConfig{Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, SteinIterations: 100}}}, "stein_iterations"},
		{MMDFWConfig{Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, WeightSolver: mmdfw.SolverFISTA, SteinIterations: 100}}}, ""},
		{MMDFWConfig{Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, WeightSolver: mmdfw.SolverFISTA, WeightTol: 1e-4}}}, "weight_solver"},
		{MMDFWConfig{Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, WeightSolver: mmdfw.SolverPairwise, SteinIterations: 100}}}, "stein_iterations"},
		{MMDFWConfig{Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein, WeightSolver: mmdfw.SolverPairwise, WeightTol: 1e-4}}}, ""},
	} {
		err := c.cfg.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cfg.Settings, err, c.want)
		}
	}
}
