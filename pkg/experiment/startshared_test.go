package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// sharedStartExperiment runs MMD-FW, SVGD and the two start baselines from
// the trained start on a synthetic BNN dataset through a runner, with the
// experiment seed given, and returns the runner and its cells.
func sharedStartExperiment(t *testing.T, results string, seed int) (*harness.Runner, []*harness.Cell) {
	t.Helper()
	reg := harness.NewRegistry()
	Register(reg)
	reg.RegisterDataset("synthbnn", harness.Dataset{Load: func(context.Context, int, *harness.Env) (*harness.Problem, error) {
		d := startData()
		return &harness.Problem{Target: d.BNN, Model: d}, nil
	}})
	src := `id = "shared"
seed = ` + string(rune('0'+seed)) + `
datasets = ["synthbnn"]
splits = [0]
[eval]
metrics = ["rmse"]
[methods.mmdfw-trained]
kind = "mmdfw"
particles = [3]
settings = { start = "trained", weights = "stein", batch = 50, lmo_steps = 5, train_steps = 300 }
[methods.svgd-trained]
kind = "svgd"
particles = [4]
settings = { iterations = 5, step_size = 1e-3, batch = 50, init = "trained", train_steps = 300, whiten = "none", stop = "fixed" }
[methods.start-trained]
kind = "start"
settings = { start = "trained", train_steps = 300 }
[methods.start-ensemble]
kind = "start"
particles = [2]
settings = { start = "ensemble", train_steps = 300 }
`
	e, err := harness.Load(reg, "shared.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(reg, harness.Options{Results: results, Jobs: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cells := harness.Plan([]*harness.Experiment{e})
	sum, err := r.Run(context.Background(), cells)
	if err != nil || sum.Failed > 0 || sum.Skipped > 0 {
		t.Fatalf("run: %v %v", sum, err)
	}
	return r, cells
}

// firstRow returns the step, gradient evaluations and value of the first
// row of a cell's CSV, and its method's start_artefact summary entry.
func firstRow(t *testing.T, r *harness.Runner, c *harness.Cell) (row []string, artefact string) {
	t.Helper()
	csvPath, prov := r.Paths(c)
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", c.ID, len(rows), err)
	}
	b, err := os.ReadFile(prov)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Summary struct {
			Method map[string]any `json:"method"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	a, _ := p.Summary.Method["start_artefact"].(string)
	if a == "" {
		if tr, ok := p.Summary.Method["trainings"].([]any); ok && len(tr) > 0 {
			a, _ = tr[0].(map[string]any)["start_artefact"].(string)
		}
	}
	return rows[1], a
}

// TestSharedTrainedStart runs the four arms that start from the trained
// network: every one reads the same artefact (member 0), MMD-FW's first
// snapshot, the network alone and the ensemble's first snapshot are the
// same answer at the same gradient evaluations (the training's, charged
// once each), and the network does not depend on the experiment's seed.
func TestSharedTrainedStart(t *testing.T) {
	dir := t.TempDir()
	r, cells := sharedStartExperiment(t, filepath.Join(dir, "a"), 1)
	rows := map[string][]string{}
	keys := map[string]bool{}
	for _, c := range cells {
		row, key := firstRow(t, r, c)
		rows[c.Method.Name] = row
		if key == "" || !strings.Contains(key, "/m0-") {
			t.Errorf("%s: start artefact %q, want member 0's", c.ID, key)
		}
		keys[key] = true
	}
	if len(keys) != 1 {
		t.Errorf("the arms read %d different start artefacts: %v", len(keys), keys)
	}
	// Columns: step 6, grad_evals 8, metric 9, value 10.
	ref := rows["start-trained"]
	for _, m := range []string{"mmdfw-trained", "start-ensemble"} {
		if g, v := rows[m][8], rows[m][10]; g != ref[8] || v != ref[10] || rows[m][9] != ref[9] {
			t.Errorf("%s's first snapshot: %s %s at %s gradient evaluations; the network alone: %s %s at %s", m, rows[m][9], v, g, ref[9], ref[10], ref[8])
		}
	}
	if rows["svgd-trained"][8] != ref[8] {
		t.Errorf("svgd-trained starts at %s gradient evaluations, the network alone at %s", rows["svgd-trained"][8], ref[8])
	}
	trained, err := filepath.Glob(filepath.Join(dir, "a", ".artefacts", "trained", "synth", "s0", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var nets int
	for _, p := range trained {
		if !strings.HasSuffix(p, ".lock") && !strings.HasSuffix(p, ".sha256") {
			nets++
		}
	}
	// Member 0, read by all four arms, and member 1, the ensemble's
	// second network: each computed once.
	if nets != 2 {
		t.Errorf("%d trained-start artefacts under .artefacts/trained/synth/s0, want 2 (found %v)", nets, trained)
	}

	// Another experiment seed: another cell stream, the same network.
	r2, cells2 := sharedStartExperiment(t, filepath.Join(dir, "b"), 2)
	for _, c := range cells2 {
		if c.Method.Name != "start-trained" {
			continue
		}
		row, _ := firstRow(t, r2, c)
		if row[10] != ref[10] || row[8] != ref[8] {
			t.Errorf("seed 2: the network alone scores %s at %s, seed 1 %s at %s", row[10], row[8], ref[10], ref[8])
		}
	}
}
