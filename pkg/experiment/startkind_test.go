package experiment

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestTrainedNeedsBNN refuses the trained start on a model without a
// network, naming the key, in each kind that offers it.
func TestTrainedNeedsBNN(t *testing.T) {
	info := &Info{Name: "gauss2d"}
	_, err := runSVGD(context.Background(), trainedSVGD(info, "trained", 0, nil, 1))
	if err == nil || !strings.Contains(err.Error(), "init") || !strings.Contains(err.Error(), "BNN") {
		t.Errorf("svgd: error %v, want one naming init and a BNN", err)
	}
	for _, s := range []string{"trained", "ensemble"} {
		_, err := runStart(context.Background(), harness.Input[StartConfig]{Problem: &harness.Problem{Model: info},
			Settings: StartConfig{Start: s}, Src: rand.NewPCG(1, 1), Env: startEnv()})
		if err == nil || !strings.Contains(err.Error(), "start") || !strings.Contains(err.Error(), "BNN") {
			t.Errorf("start %s: error %v, want one naming start and a BNN", s, err)
		}
	}
}

// TestStartSettingsValidation refuses, naming the key, what the trained
// start's keys and the start kind do not allow.
func TestStartSettingsValidation(t *testing.T) {
	for _, tc := range []struct {
		kind, settings, key string
	}{
		{"svgd", `{ init = "model", init_noise = 0.5 }`, "init_noise"},
		{"svgd", `{ init = "trained", init_noise = -0.5 }`, "init_noise"},
		{"svgd", `{ init = "model", train_steps = 100 }`, "init"},
		{"svgd", `{ init = "trained", train_batch = -1 }`, "train_batch"},
		{"start", `{ }`, "start"},
		{"start", `{ start = "svgd" }`, "start"},
		{"start", `{ start = "map", train_steps = 100 }`, "start"},
		{"start", `{ start = "ensemble", train_patience = -2 }`, "train_patience"},
		{"mmdfw", `{ start = "model", train_steps = 100 }`, "start"},
	} {
		src := "id = \"v\"\ndatasets = [\"bostonHousing\"]\nsplits = [0]\n[eval]\nmetrics = [\"rmse\"]\n[methods.m]\nkind = \"" +
			tc.kind + "\"\nsettings = " + tc.settings + "\n"
		_, err := harness.Load(testRegistry, "v.toml", []byte(src), "")
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s %s: error %v, want one naming %s", tc.kind, tc.settings, err, tc.key)
		}
	}
	for _, tc := range []struct{ kind, settings string }{
		{"svgd", `{ init = "trained", init_noise = 0.1, train_steps = 500 }`},
		{"start", `{ start = "ensemble", train_step = 0.005 }`},
		{"start", `{ start = "laplace" }`},
		{"start", `{ start = "prior" }`},
	} {
		src := "id = \"v\"\ndatasets = [\"bostonHousing\"]\nsplits = [0]\n[eval]\nmetrics = [\"rmse\"]\n[methods.m]\nkind = \"" +
			tc.kind + "\"\nsettings = " + tc.settings + "\n"
		if _, err := harness.Load(testRegistry, "v.toml", []byte(src), ""); err != nil {
			t.Errorf("%s %s: %v", tc.kind, tc.settings, err)
		}
	}
}

func startInput(d *BNNData, s string, n int, rec particle.Recorder, seed uint64) harness.Input[StartConfig] {
	return harness.Input[StartConfig]{Problem: &harness.Problem{Target: d.BNN, Model: d}, Settings: StartConfig{Start: s},
		N: n, Threads: 1, Src: rand.NewPCG(seed, 9), Recorder: rec, Env: startEnv()}
}

// TestStartTrainedIsMMDFWFirst checks that start = "trained" is MMD-FW's
// trained first particle: whatever the cells' seeds, the network alone and
// MMD-FW's first snapshot are the same point bit for bit (the shared
// network), at the same gradient evaluations (the training's).
func TestStartTrainedIsMMDFWFirst(t *testing.T) {
	d := startData()
	var a, b snapshots
	out, err := runStart(context.Background(), startInput(d, "trained", 0, &a, 5))
	if err != nil {
		t.Fatal(err)
	}
	b.stopAfter = 1
	in := harness.Input[MMDFWConfig]{Problem: &harness.Problem{Target: d.BNN, Model: d},
		Settings: MMDFWConfig{Start: "trained", Settings: mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, LMO: mmdfw.LMO{Batch: 50, LMOSteps: 5}}},
		N:        3, Threads: 1, Src: rand.NewPCG(6, 10), Recorder: &b, Env: startEnv()}
	if _, err := runMMDFW(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if len(a.s) != 1 || len(b.s) == 0 {
		t.Fatalf("%d and %d snapshots", len(a.s), len(b.s))
	}
	if r, _ := a.s[0].X.Dims(); r != 1 || !mat.Equal(a.s[0].X, b.s[0].X) {
		t.Errorf("the trained network alone differs from MMD-FW's first particle")
	}
	m := out.Summary.(map[string]any)["method"].(map[string]any)
	if g := m["train_grad_evals"].(int64); a.s[0].GradEvals != g || b.s[0].GradEvals != g {
		t.Errorf("gradient evaluations %d (start) and %d (MMD-FW), want the training's %d", a.s[0].GradEvals, b.s[0].GradEvals, g)
	}
}

// TestStartEnsemble trains a deep ensemble of 3 networks: a snapshot after
// each, equal weights, the cost of snapshot k the sum of the first k
// trainings' gradient evaluations, the first network the trained start's
// network of the same seed, the same seed the same ensemble; a recorder
// that stops it (a budget) after 2 networks gets 2.
func TestStartEnsemble(t *testing.T) {
	d := startData()
	var a, one, c, stop snapshots
	out, err := runStart(context.Background(), startInput(d, "ensemble", 3, &a, 5))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runStart(context.Background(), startInput(d, "trained", 0, &one, 5)); err != nil {
		t.Fatal(err)
	}
	if len(a.s) != 3 {
		t.Fatalf("%d snapshots, want 3", len(a.s))
	}
	trainings := out.Summary.(map[string]any)["method"].(map[string]any)["trainings"].([]any)
	var sum int64
	for k, s := range a.s {
		sum += trainings[k].(map[string]any)["train_grad_evals"].(int64)
		if r, _ := s.X.Dims(); r != k+1 || s.Step != k+1 || s.GradEvals != sum {
			t.Errorf("snapshot %d: %d networks, step %d, %d gradient evaluations; want %d, %d, %d", k, r, s.Step, s.GradEvals, k+1, k+1, sum)
		}
		for _, w := range s.W {
			if w != 1/float64(k+1) {
				t.Errorf("snapshot %d: weights %v, want equal", k, s.W)
				break
			}
		}
	}
	if !mat.Equal(a.s[0].X, one.s[0].X) {
		t.Error("the ensemble's first network is not the trained start's")
	}
	last := a.s[2].X
	if mat.Equal(last.Slice(0, 1, 0, d.BNN.Dim()), last.Slice(1, 2, 0, d.BNN.Dim())) {
		t.Error("two networks of the ensemble are the same: the draws are not independent")
	}
	if _, err := runStart(context.Background(), startInput(d, "ensemble", 3, &c, 5)); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(last, c.s[2].X) {
		t.Error("the same seed gave another ensemble")
	}
	stop.stopAfter = 2
	out2, err := runStart(context.Background(), startInput(d, "ensemble", 3, &stop, 5))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := out2.Set.X.Dims(); r != 2 || len(stop.s) != 2 {
		t.Errorf("stopped after 2 snapshots: %d networks, %d snapshots", r, len(stop.s))
	}
}

// TestStartMAPLaplaceGaussian runs start = "map" and "laplace" on the
// Gaussian gauss2d, where the MAP is the mean and the Laplace
// approximation is the target itself: the MAP's exact MMD² is that of one
// point at the mean, well above the 2,000 Laplace draws', whose expected
// MMD² is below 1/2000; both charge the MAP.
func TestStartMAPLaplaceGaussian(t *testing.T) {
	res := runExp(t, "", `
id = "starts"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2"]
[methods.map]
kind = "start"
settings = { start = "map" }
[methods.laplace]
kind = "start"
particles = [2000]
settings = { start = "laplace" }
`)
	mp, lp := res["map/gauss2d"], res["laplace/gauss2d"]
	if v := lp.last[MMD2]; !(v >= 0 && v < 3e-3) {
		t.Errorf("Laplace draws: MMD² %v, want below 3·10⁻³ (expected < 5·10⁻⁴)", v)
	}
	if !(mp.last[MMD2] > 10*lp.last[MMD2]) {
		t.Errorf("MAP MMD² %v, Laplace %v: want the point far worse than the draws", mp.last[MMD2], lp.last[MMD2])
	}
	for name, r := range map[string]result{"map": mp, "laplace": lp} {
		s := summaryOf(t, r)
		if m, ok := s["map"].(map[string]any); !ok || !(m["grad_evals"].(float64) > 0) {
			t.Errorf("%s: summary %v, want the MAP and its cost", name, s["map"])
		}
	}
}

// TestStartPriorGaussian checks start = "prior" on gauss2d, whose prior
// draws are the target's own exact draws (target.Gaussian.SamplePrior):
// 2,000 of them have expected MMD² below 1/2000, and they cost no MAP and
// no gradient evaluation. A target without prior draws is refused, naming
// the key.
func TestStartPriorGaussian(t *testing.T) {
	res := runExp(t, "", `
id = "starts"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2"]
[methods.prior]
kind = "start"
particles = [2000]
settings = { start = "prior" }
`)
	r := res["prior/gauss2d"]
	if v := r.last[MMD2]; !(v >= 0 && v < 3e-3) {
		t.Errorf("prior draws: MMD² %v, want below 3·10⁻³ (expected < 5·10⁻⁴)", v)
	}
	if s := summaryOf(t, r); s["map"] != nil {
		t.Errorf("prior draws: summary %v, want no MAP", s)
	}
	_, err := runStart(context.Background(), harness.Input[StartConfig]{Problem: &harness.Problem{Model: &Info{Name: "none"}},
		Settings: StartConfig{Start: "prior"}, N: 3, Src: rand.NewPCG(1, 1), Env: startEnv()})
	if err == nil || !strings.Contains(err.Error(), "start") || !strings.Contains(err.Error(), "prior") {
		t.Errorf("no prior sampler: error %v, want one naming start and prior", err)
	}
}
